import { resolve } from "node:path";
import {
  type Checkpointer,
  PGliteCheckpointer,
  PostgresCheckpointer,
} from "../checkpoint/index.js";
import { createServer, loadServerConfig, ServerConfigError } from "../server/index.js";

/** How `serve` is configured: flags first, then the environment, then defaults. */
export interface ServeSettings {
  configFile: string;
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  token: string | undefined;
}

/** Read `--config`, `--port`, `--host` and the environment (PORT, HOST, STATEWEAVER_*…). */
export function serveSettings(argv: readonly string[], env: NodeJS.ProcessEnv): ServeSettings {
  const flag = (name: string) => {
    const at = argv.indexOf(`--${name}`);
    return at >= 0 ? argv[at + 1] : undefined;
  };
  const port = Number(flag("port") ?? env.PORT ?? 2024);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new ServerConfigError(`PORT must be a port number (0-65535), got "${env.PORT}".`);
  return {
    configFile: resolve(flag("config") ?? "stateweaver.json"),
    port,
    host: flag("host") ?? env.HOST ?? "127.0.0.1",
    dataDir: env.STATEWEAVER_DATA_DIR || "./.stateweaver",
    databaseUrl: env.DATABASE_URL || undefined,
    token: env.STATEWEAVER_TOKEN || undefined,
  };
}

// Node runs .js; a .ts entry needs a loader. `npm start` runs under tsx already; under a
// plain `node`, tsx (when installed) loads it.
async function importModule(url: string): Promise<Record<string, unknown>> {
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

/**
 * `stateweaver serve`: load the graphs in stateweaver.json, open the store (PostgreSQL
 * with DATABASE_URL, else PGlite in STATEWEAVER_DATA_DIR), seed it once if empty, listen.
 * Stops cleanly on SIGINT/SIGTERM.
 */
export async function serveCommand(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<number> {
  const settings = serveSettings(argv, env);
  if (
    settings.host !== "127.0.0.1" &&
    settings.host !== "localhost" &&
    settings.host !== "::1" &&
    !settings.token
  ) {
    throw new ServerConfigError(
      `Refusing to listen on ${settings.host} without STATEWEAVER_TOKEN: set it, or bind 127.0.0.1.`,
    );
  }
  const { graphs, seed } = await loadServerConfig(settings.configFile, importModule);
  const checkpointer: Checkpointer = settings.databaseUrl
    ? new PostgresCheckpointer({ connectionString: settings.databaseUrl })
    : new PGliteCheckpointer(settings.dataDir);
  const server = createServer({ graphs, checkpointer, token: settings.token });
  let url: string;
  try {
    if (seed) {
      const first = await checkpointer.searchThreads({ limit: 1 });
      if (first.threads.length === 0) {
        const hosted = Object.fromEntries(
          server.context.hosted.ids.map((id) => [id, server.context.hosted.get(id)]),
        );
        await seed(hosted);
      }
    }
    ({ url } = await server.listen({ port: settings.port, host: settings.host }));
  } catch (error) {
    // Close the store (and free a PGlite directory's lock) so the process ends with the error.
    await server.close().catch(() => undefined);
    await checkpointer.close?.();
    if ((error as { code?: unknown }).code === "EADDRINUSE") {
      throw new ServerConfigError(
        `Port ${settings.port} on ${settings.host} is already in use. Stop what listens there, or choose another port: PORT=${settings.port + 1} npm start (or stateweaver serve with PORT set).`,
        { cause: error },
      );
    }
    throw error;
  }
  const store = settings.databaseUrl
    ? "PostgreSQL (DATABASE_URL)"
    : `PGlite in ${settings.dataDir}`;
  process.stdout.write(
    `stateweaver serving ${Object.keys(graphs).join(", ")} at ${url} (${store}${settings.token ? ", token required" : ""})\n`,
  );
  await new Promise<void>((done) => {
    const stop = () => done();
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  await server.close();
  await checkpointer.close?.();
  return 0;
}
