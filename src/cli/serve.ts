import { basename } from "node:path";
import {
  type Checkpointer,
  PGliteCheckpointer,
  PostgresCheckpointer,
} from "../checkpoint/index.js";
import { PostgresRunQueue, webhookOptionsOf } from "../runs/index.js";
import {
  buildUi,
  checkToken,
  createServer,
  findConfigFile,
  loadServerConfig,
  ServerConfigError,
  watchUi,
} from "../server/index.js";
import { claimTtlFromEnv } from "./claim-ttl.js";
import { importModule } from "./import-module.js";

/** How `serve` is configured: flags first, then the environment, then defaults. */
export interface ServeSettings {
  configFile: string;
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  token: string | undefined;
  /** `--watch-ui`: rebuild the config's generative-UI bundles when their files change. */
  watchUi: boolean;
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
    configFile: findConfigFile(process.cwd(), flag("config")),
    port,
    host: flag("host") ?? env.HOST ?? "127.0.0.1",
    dataDir: env.STATEWEAVER_DATA_DIR || "./.stateweaver",
    databaseUrl: env.DATABASE_URL || undefined,
    // Unset and "" are no token; a blank one is refused here, before any store is opened.
    token: checkToken(env.STATEWEAVER_TOKEN || undefined),
    watchUi: argv.includes("--watch-ui"),
  };
}

/**
 * `stateweaver serve`: load the graphs in stateweaver.json, open the store (PostgreSQL
 * with DATABASE_URL, else PGlite in STATEWEAVER_DATA_DIR), listen, and seed it once if empty.
 * Stops cleanly on SIGINT/SIGTERM.
 */
export async function serveCommand(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<number> {
  const settings = serveSettings(argv, env);
  const {
    graphs,
    seed,
    auth,
    graphDefaults,
    routes,
    unused,
    webhooks,
    configurableHeaders,
    storeIndex,
    ui: uiEntries,
    storeTtl,
  } = await loadServerConfig(settings.configFile, importModule, env);
  if (unused.length > 0) {
    process.stderr.write(
      `${basename(settings.configFile)}: not used by stateweaver serve: ${unused.join(", ")} (docs/server.md, "Config file").\n`,
    );
  }
  // Secrets named by environment variable are read here, before any store is opened.
  const webhookOptions = webhooks === undefined ? undefined : webhookOptionsOf(webhooks, env);
  if (
    settings.host !== "127.0.0.1" &&
    settings.host !== "localhost" &&
    settings.host !== "::1" &&
    !settings.token &&
    !auth
  ) {
    throw new ServerConfigError(
      `Refusing to listen on ${settings.host} without STATEWEAVER_TOKEN or an auth file: set one, or bind 127.0.0.1.`,
    );
  }
  // Bundled before any store opens: a component that does not build stops here, leaking nothing.
  const watching =
    uiEntries && settings.watchUi
      ? await watchUi(uiEntries.entries, {
          ...uiEntries,
          onRebuildError: (error) =>
            process.stderr.write(`${error.message} (still serving the last build)\n`),
        })
      : undefined;
  const ui =
    watching?.bundles ?? (uiEntries ? await buildUi(uiEntries.entries, uiEntries) : undefined);
  const tablePrefix = env.STATEWEAVER_TABLE_PREFIX || undefined;
  const checkpointer: Checkpointer = settings.databaseUrl
    ? new PostgresCheckpointer({
        connectionString: settings.databaseUrl,
        ...(tablePrefix && { tablePrefix }),
        ...claimTtlFromEnv(env),
      })
    : new PGliteCheckpointer({ dataDir: settings.dataDir, ...claimTtlFromEnv(env) });
  // With PostgreSQL, runs go through its queue, so `stateweaver worker` processes share them.
  const queue = settings.databaseUrl
    ? await PostgresRunQueue.open({
        connectionString: settings.databaseUrl,
        ...(tablePrefix && { tablePrefix }),
      })
    : undefined;
  const concurrency = env.STATEWEAVER_CONCURRENCY ? Number(env.STATEWEAVER_CONCURRENCY) : undefined;
  if (concurrency !== undefined && !(Number.isInteger(concurrency) && concurrency >= 0)) {
    throw new ServerConfigError(
      `STATEWEAVER_CONCURRENCY must be a whole number ≥ 0 (0: leave runs to workers), got "${env.STATEWEAVER_CONCURRENCY}".`,
    );
  }
  const server = createServer({
    graphs,
    checkpointer,
    token: settings.token,
    graphDefaults,
    ...(routes && { routes }),
    ...(storeIndex && { storeIndex }),
    ...(ui && { ui }),
    ...(storeTtl && { storeTtl }),
    ...(configurableHeaders && { configurableHeaders }),
    ...(auth && { auth }),
    // Inbox sessions signed with a shared secret survive restarts and work across servers.
    ...(auth &&
      env.STATEWEAVER_SESSION_SECRET && { sessionSecret: env.STATEWEAVER_SESSION_SECRET }),
    ...(queue && { queue }),
    ...(concurrency !== undefined && { concurrency }),
    ...(webhookOptions && { webhooks: webhookOptions }),
  });
  let url: string;
  try {
    // Listening first lets the inbox's page load while the store opens and the seed runs
    // (it shows the seeded threads as they arrive); the line below still waits for both.
    ({ url } = await server.listen({ port: settings.port, host: settings.host }));
    if (seed) {
      const first = await checkpointer.searchThreads({ limit: 1 });
      if (first.threads.length === 0) {
        const hosted = Object.fromEntries(
          server.context.hosted.ids.map((id) => [id, server.context.hosted.get(id)]),
        );
        await seed(hosted);
      }
    }
  } catch (error) {
    // Close the store (and free a PGlite directory's lock) so the process ends with the error.
    await server.close().catch(() => undefined);
    await watching?.close();
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
  await watching?.close();
  await checkpointer.close?.();
  return 0;
}
