import { ServerConfigError } from "../server/index.js";

// Node runs .js; a .ts entry needs a loader. `npm start` runs under tsx already; under a
// plain `node`, tsx (when installed) loads it.
/** Import a graph module named in stateweaver.json, loading TypeScript through tsx if needed. */
export async function importModule(url: string): Promise<Record<string, unknown>> {
  try {
    return await import(url);
  } catch (error) {
    if ((error as { code?: string }).code !== "ERR_UNKNOWN_FILE_EXTENSION") throw error;
    const tsxApi = "tsx/esm/api";
    const tsx = (await import(tsxApi).catch(() => undefined)) as
      | { tsImport(url: string, parent: string): Promise<Record<string, unknown>> }
      | undefined;
    if (!tsx) {
      throw new ServerConfigError(
        `${url} is TypeScript and no loader is installed: run \`node --import tsx …\` (npm i -D tsx), or point stateweaver.json at compiled JavaScript.`,
      );
    }
    // Node remembers the failed import of this URL, so load it through tsx's own loader.
    return await tsx.tsImport(url, import.meta.url);
  }
}
