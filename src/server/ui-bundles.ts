// Generative UI, as LangGraph's server builds it: each `ui` entry's components bundled for the
// browser into one script that `LoadExternalComponent` (@langchain/langgraph-sdk/react-ui) runs.
import { existsSync } from "node:fs";
import { basename, dirname, resolve } from "node:path";
import type { Message, Plugin } from "esbuild";
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
    checkUiName(name);
    const file = resolve(options.cwd, path);
    if (!existsSync(file)) {
      throw new ServerConfigError(
        `ui.${name}: no file ${path} (relative to ${options.cwd}); point it at your components module.`,
      );
    }
    try {
      const result = await esbuild.build({
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
        plugins: [
          componentsEntry(file),
          fromThePage([...CLIENT_PROVIDED, ...(options.shared ?? [])]),
        ],
      });
      bundles.set(
        name,
        result.outputFiles.map((out) => ({
          basename: basename(out.path),
          contents: out.path.endsWith(".js") ? unmarked(out.text) : out.contents,
        })),
      );
    } catch (error) {
      const messages = (error as { errors?: Message[] }).errors;
      const detail = messages?.length
        ? messages.map(describe).join("; ")
        : (error as Error).message;
      throw new ServerConfigError(
        `ui.${name}: cannot bundle ${path}: ${detail}. Fix the file (it must default-export its components by name), or remove "${name}" from "ui".`,
        { cause: error },
      );
    }
  }
  return bundles;
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
