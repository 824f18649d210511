// Loads the graph modules stateweaver.json names, TypeScript included, into the CLI's own module
// graph, so a user's `import … from "stateweaver"` gets the same copy the server runs.
import { createRequire, register as registerHooks } from "node:module";
import { pathToFileURL } from "node:url";
import { ServerConfigError } from "../server/index.js";

const TYPESCRIPT = /\.(ts|mts|cts|tsx)$/;

interface TsxApi {
  register(): unknown;
}

let registered: Promise<boolean> | undefined;

/**
 * Import a graph module named in stateweaver.json, loading TypeScript through tsx if needed.
 *
 * Why not tsx's `tsImport`: it loads the module in a namespace of its own, and everything
 * that module imports with it, stateweaver included; the user's graph then runs a second
 * copy of stateweaver beside the server's. So for a TypeScript entry, tsx's loader is
 * registered for the whole process (once, before the first import: Node remembers a failed
 * import of a URL, and a seed module importing the same graph file must find it loadable),
 * and the module is imported the ordinary way. Under `npm start` or `node --import tsx`,
 * registering again is harmless. In a CommonJS package a `.ts` module loads as an ES module
 * (see typescript-as-module.ts), for the same reason.
 *
 * @example
 * const { graph } = await importModule(pathToFileURL("./my-graph.ts").href);
 */
export async function importModule(url: string): Promise<Record<string, unknown>> {
  if (TYPESCRIPT.test(new URL(url).pathname)) {
    registered ??= registerTsx(url);
    const withTsx = await registered;
    try {
      return await import(url);
    } catch (error) {
      if (!withTsx && (error as { code?: string }).code === "ERR_UNKNOWN_FILE_EXTENSION") {
        throw new ServerConfigError(
          `${url} is TypeScript and no loader is installed: install tsx in your project (npm i -D tsx), run \`node --import tsx …\`, or point stateweaver.json at compiled JavaScript.`,
        );
      }
      throw moduleScopeProblem(url, error) ?? error;
    }
  }
  return await import(url);
}

const COMMONJS_GLOBAL = /^(require|module|exports|__dirname|__filename) is not defined/;

/**
 * The fix for a TypeScript module that failed because it expected CommonJS: a `.cts` file
 * (tsx's ES module loader cannot give it `require`), or a `.ts` file, loaded as an ES module,
 * that uses `require` or `__dirname`. Undefined for any other failure.
 */
function moduleScopeProblem(url: string, error: unknown): ServerConfigError | undefined {
  const message = (error as Error)?.message ?? String(error);
  if (new URL(url).pathname.endsWith(".cts")) {
    return new ServerConfigError(
      `${url} is CommonJS TypeScript (.cts), which stateweaver serve and worker cannot load (${message}): rename it .ts or .mts (an ES module that imports stateweaver), or compile it to JavaScript.`,
      { cause: error },
    );
  }
  if (error instanceof ReferenceError && COMMONJS_GLOBAL.test(message)) {
    return new ServerConfigError(
      `${url} runs as an ES module (stateweaver serve and worker load .ts files as ES modules, in a CommonJS package too, so that they share the server's stateweaver), and ${message.replace(/ in ES module scope.*$/s, "")} there: use import in place of require, and import.meta.dirname or import.meta.filename in place of __dirname or __filename.`,
      { cause: error },
    );
  }
  return undefined;
}

/** Register tsx's loader, found beside stateweaver or else in the user's project; false without tsx. */
async function registerTsx(userModule: string): Promise<boolean> {
  // This file is TypeScript only when a loader already runs it (`npm start`).
  if (import.meta.url.endsWith(".ts")) return true;
  const api = ((await import("tsx/esm/api" as string).catch(() => undefined)) ??
    (await importFrom(userModule, "tsx/esm/api"))) as
    | (Partial<TsxApi> & { default?: TsxApi })
    | undefined;
  const register = api?.register ?? api?.default?.register;
  if (!register) return false;
  // Registered before tsx, so tsx's resolve gets the format from it and keeps it.
  registerHooks(new URL("./typescript-as-module.js", import.meta.url));
  register();
  return true;
}

async function importFrom(parent: string, specifier: string): Promise<unknown> {
  try {
    const path = createRequire(parent).resolve(specifier);
    return await import(pathToFileURL(path).href);
  } catch {
    return undefined;
  }
}
