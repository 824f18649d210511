// Generative UI, as LangGraph's server builds it: each `ui` entry's components bundled for the
// browser into one script that `LoadExternalComponent` (@langchain/langgraph-sdk/react-ui) runs.
import { existsSync } from "node:fs";
import { basename, dirname, resolve } from "node:path";
import type { BuildOptions, Message, OutputFile, Plugin } from "esbuild";
import { ServerConfigError } from "./errors.js";

/** One built file of a UI bundle, served at `/ui/<name>/<basename>`. */
export interface UiFile {
  basename: string;
  contents: Uint8Array;
}

/**
 * Built generative-UI bundles by name (a graph id, or the `namespace` the client passes to
 * `LoadExternalComponent`): `entrypoint.js`, and `entrypoint.css` when the components import CSS.
 *
 * @example
 * const ui: UiBundles = await buildUi({ agent: "./src/agent/ui.tsx" }, { cwd: import.meta.dirname });
 */
export type UiBundles = ReadonlyMap<string, readonly UiFile[]>;

/** What `buildUi` needs besides the entries. */
export interface BuildUiOptions {
  /** The folder entry paths are relative to (the config file's). */
  cwd: string;
  /** More packages the client provides rather than the bundle (`ui_config.shared`). */
  shared?: readonly string[];
}

/** A `ui` name becomes a URL segment and part of a script's global name: a graph id's letters. */
export function checkUiName(name: string): void {
  if (!/^[A-Za-z_][\w-]*$/.test(name)) {
    throw new ServerConfigError(
      `ui: "${name}" is not a usable name; use letters, digits, _ and - (it is a URL segment).`,
    );
  }
}

/**
 * What `LoadExternalComponent` hands a bundle through `globalThis[Symbol.for("LGUI_REQUIRE")]`
 * (see `bootstrapUiContext` in @langchain/langgraph-sdk/react-ui), so one React runs the page.
 */
const CLIENT_PROVIDED = [
  "react",
  "react-dom",
  "@langchain/langgraph-sdk",
  "@langchain/langgraph-sdk/react-ui",
];

/**
 * Bundle each entry's components (a module whose default export maps component names to React
 * components) for the browser, as LangGraph's server does: an IIFE assigned to
 * `__LGUI_<name>` whose `render(componentName, shadowRootId)` mounts the component in that
 * element's shadow root through `LoadExternalComponent`'s store. React, react-dom, the SDK and
 * `shared` come from the page. A file that does not bundle is a `ServerConfigError` with
 * esbuild's message; esbuild is loaded only here, so a server without `ui` never loads it.
 *
 * @example
 * const ui = await buildUi({ agent: "./ui.tsx" }, { cwd: process.cwd(), shared: ["sonner"] });
 * createServer({ graphs, checkpointer, ui });
 */
export async function buildUi(
  entries: Readonly<Record<string, string>>,
  options: BuildUiOptions,
): Promise<UiBundles> {
  const esbuild = await import("esbuild");
  const bundles = new Map<string, UiFile[]>();
  for (const [name, path] of Object.entries(entries)) {
    const file = entryFile(name, path, options.cwd);
    try {
      const result = await esbuild.build(bundleOptions(name, file, options));
      bundles.set(name, filesOf(result.outputFiles));
    } catch (error) {
      throw bundleFailure(name, path, error);
    }
  }
  return bundles;
}

/** Bundles that follow their files (`watchUi`), until closed. */
export interface UiWatch {
  /** The latest good build of each entry: hand it to `createServer({ ui })`. */
  readonly bundles: UiBundles;
  /** Stop watching. */
  close(): Promise<void>;
}

/**
 * `buildUi`, then again whenever a file the components import changes (`serve --watch-ui`),
 * so a reload of the page shows the edit. A first build that fails throws, as `buildUi`;
 * a later one goes to `onRebuildError` and the last good bundle stays served.
 *
 * @example
 * const watching = await watchUi({ agent: "./ui.tsx" }, { cwd, onRebuildError: (e) => console.error(e.message) });
 * createServer({ graphs, checkpointer, ui: watching.bundles });
 * // later: await watching.close();
 */
export async function watchUi(
  entries: Readonly<Record<string, string>>,
  options: BuildUiOptions & { onRebuildError: (error: ServerConfigError) => void },
): Promise<UiWatch> {
  const esbuild = await import("esbuild");
  const bundles = new Map<string, UiFile[]>();
  const contexts: Array<{ dispose(): Promise<void> }> = [];
  const close = async () => {
    await Promise.all(contexts.splice(0).map((context) => context.dispose()));
  };
  try {
    for (const [name, path] of Object.entries(entries)) {
      const file = entryFile(name, path, options.cwd);
      const base = bundleOptions(name, file, options);
      let watching = false;
      const rebuilt: Plugin = {
        name: "stateweaver-ui-rebuilt",
        setup(build) {
          build.onEnd((result) => {
            if (!watching) return;
            if (result.errors.length > 0) options.onRebuildError(bundleFailure(name, path, result));
            else if (result.outputFiles) bundles.set(name, filesOf(result.outputFiles));
          });
        },
      };
      const context = await esbuild.context({ ...base, plugins: [...base.plugins, rebuilt] });
      contexts.push(context);
      try {
        bundles.set(name, filesOf((await context.rebuild()).outputFiles));
      } catch (error) {
        throw bundleFailure(name, path, error);
      }
      watching = true;
      await context.watch();
    }
  } catch (error) {
    await close();
    throw error;
  }
  return { bundles, close };
}

/** The entry's file, after checking its name and that it is there. */
function entryFile(name: string, path: string, cwd: string): string {
  checkUiName(name);
  const file = resolve(cwd, path);
  if (!existsSync(file)) {
    throw new ServerConfigError(
      `ui.${name}: no file ${path} (relative to ${cwd}); point it at your components module.`,
    );
  }
  return file;
}

/** How one entry is bundled: to memory, quietly (its errors go into ours). */
function bundleOptions(name: string, file: string, options: BuildUiOptions) {
  return {
    entryPoints: { entrypoint: "lgui-entry" },
    bundle: true,
    write: false,
    outdir: options.cwd,
    format: "iife",
    globalName: uiGlobalName(name),
    platform: "browser",
    target: "es2020",
    jsx: "automatic",
    logLevel: "silent",
    absWorkingDir: options.cwd,
    plugins: [componentsEntry(file), fromThePage([...CLIENT_PROVIDED, ...(options.shared ?? [])])],
  } satisfies BuildOptions;
}

function filesOf(outputFiles: readonly OutputFile[]): UiFile[] {
  return outputFiles.map((out) => ({
    basename: basename(out.path),
    contents: out.path.endsWith(".js") ? unmarked(out.text) : out.contents,
  }));
}

/** A failed build (thrown, or a watch's result) as the error that names the entry and the fix. */
function bundleFailure(name: string, path: string, failure: unknown): ServerConfigError {
  const messages = (failure as { errors?: Message[] }).errors;
  const detail = messages?.length ? messages.map(describe).join("; ") : (failure as Error).message;
  return new ServerConfigError(
    `ui.${name}: cannot bundle ${path}: ${detail}. Fix the file (it must default-export its components by name), or remove "${name}" from "ui".`,
    { cause: failure },
  );
}

/** The global a bundle assigns itself to, as LangGraph names it (the client's HTML calls it). */
export function uiGlobalName(name: string): string {
  return `__LGUI_${name.replace(/[^a-zA-Z0-9]/g, "_")}`;
}

/**
 * esbuild prefixes each `Symbol.for(…)` call with a pure-call comment; without it the lookups
 * read `globalThis[Symbol.for("LGUI_REQUIRE")]`, as in LangGraph's bundles (its suite looks for it).
 */
function unmarked(js: string): Uint8Array {
  return new TextEncoder().encode(
    js.replaceAll('/* @__PURE__ */ Symbol.for("LGUI_', 'Symbol.for("LGUI_'),
  );
}

function describe(message: Message): string {
  const at = message.location;
  return at ? `${at.file}:${at.line}:${at.column}: ${message.text}` : message.text;
}

/**
 * The bundle's entry: the user's components and the `render` the client's HTML calls once the
 * script loads. It hands the component and a fresh element inside the shadow root to the
 * store `LoadExternalComponent` registered under `Symbol.for("LGUI_EXT_STORE")`, which
 * portals the component there with the message's props.
 */
function componentsEntry(file: string): Plugin {
  const source = [
    `import components from ${JSON.stringify(file)};`,
    "export function render(name, shadowRootId) {",
    "  const host = document.getElementById(shadowRootId);",
    "  const root = host && host.shadowRoot;",
    '  if (!root) throw new Error("No shadow root #" + shadowRootId + " to render " + name + " in");',
    '  const target = document.createElement("div");',
    "  root.appendChild(target);",
    '  globalThis[Symbol.for("LGUI_EXT_STORE")].respond(shadowRootId, components[name], target);',
    "}",
  ].join("\n");
  return {
    name: "stateweaver-ui-entry",
    setup(build) {
      build.onResolve({ filter: /^lgui-entry$/ }, () => ({ path: file, namespace: "lgui-entry" }));
      build.onLoad({ filter: /.*/, namespace: "lgui-entry" }, () => ({
        contents: source,
        loader: "js",
        resolveDir: dirname(file),
      }));
    },
  };
}

/**
 * Packages the page provides: each import of one (or of a subpath, `react/jsx-runtime`)
 * becomes a call to the client's `LGUI_REQUIRE` when the script runs.
 */
function fromThePage(packages: readonly string[]): Plugin {
  const provided = (spec: string) => packages.some((p) => spec === p || spec.startsWith(`${p}/`));
  return {
    name: "stateweaver-ui-shared",
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, (args) =>
        provided(args.path) ? { path: args.path, namespace: "lgui-shared" } : undefined,
      );
      build.onLoad({ filter: /.*/, namespace: "lgui-shared" }, (args) => ({
        contents: `module.exports = globalThis[Symbol.for("LGUI_REQUIRE")](${JSON.stringify(args.path)});`,
        loader: "js",
      }));
    },
  };
}
