import { PostgresCheckpointer } from "../checkpoint/index.js";
import { PostgresRunQueue, webhookOptionsOf } from "../runs/index.js";
import {
  findConfigFile,
  loadServerConfig,
  ServerConfigError,
  startWorker,
} from "../server/index.js";
import { claimTtlFromEnv } from "./claim-ttl.js";
import { importModule } from "./import-module.js";

/**
 * `stateweaver worker`: execute background runs from the PostgreSQL queue (DATABASE_URL)
 * for the graphs in stateweaver.json, and fire the crons that come due (once across every
 * server and worker), until SIGINT/SIGTERM, which hands the runs it holds back to the
 * queue for another worker.
 */
export async function workerCommand(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<number> {
  const flag = (name: string) => {
    const at = argv.indexOf(`--${name}`);
    return at >= 0 ? argv[at + 1] : undefined;
  };
  const databaseUrl = env.DATABASE_URL;
  if (!databaseUrl) {
    throw new ServerConfigError(
      "stateweaver worker needs DATABASE_URL: workers share runs through PostgreSQL. With the embedded PGlite store, `stateweaver serve` runs its runs itself.",
    );
  }
  const concurrency = Number(flag("concurrency") ?? env.STATEWEAVER_CONCURRENCY ?? 4);
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new ServerConfigError(
      `--concurrency (STATEWEAVER_CONCURRENCY) must be a whole number ≥ 1, got "${flag("concurrency") ?? env.STATEWEAVER_CONCURRENCY}".`,
    );
  }
  const leaseMs = env.STATEWEAVER_LEASE_MS ? Number(env.STATEWEAVER_LEASE_MS) : undefined;
  if (leaseMs !== undefined && !(leaseMs >= 100)) {
    throw new ServerConfigError(
      `STATEWEAVER_LEASE_MS must be a number of milliseconds ≥ 100, got "${env.STATEWEAVER_LEASE_MS}".`,
    );
  }
  const tablePrefix = env.STATEWEAVER_TABLE_PREFIX || undefined;
  const { graphs, webhooks, storeIndex, storeTtl, graphDefaults } = await loadServerConfig(
    findConfigFile(process.cwd(), flag("config")),
    importModule,
    env,
  );
  const webhookOptions = webhooks === undefined ? undefined : webhookOptionsOf(webhooks, env);
  const checkpointer = new PostgresCheckpointer({
    connectionString: databaseUrl,
    ...(tablePrefix && { tablePrefix }),
    ...claimTtlFromEnv(env),
  });
  const queue = await PostgresRunQueue.open({
    connectionString: databaseUrl,
    ...(tablePrefix && { tablePrefix }),
  });
  const worker = await startWorker({
    graphs,
    checkpointer,
    queue,
    concurrency,
    graphDefaults,
    ...(storeIndex && { storeIndex }),
    ...(storeTtl && { storeTtl }),
    ...(leaseMs !== undefined && { leaseMs }),
    ...(webhookOptions && { webhooks: webhookOptions }),
  });
  process.stdout.write(
    `stateweaver worker executing runs of ${Object.keys(graphs).join(", ")} (${concurrency} at once)\n`,
  );
  // A signal listener does not keep Node running: while the database is away and every
  // connection and timer of the worker is closed or unref'd, the process would end, silently
  // and with status 0, in the middle of an outage. It runs until it is told to stop.
  const running = setInterval(() => {}, 2 ** 30);
  await new Promise<void>((done) => {
    process.once("SIGINT", () => done());
    process.once("SIGTERM", () => done());
  });
  clearInterval(running);
  await worker.close();
  await checkpointer.close();
  return 0;
}
