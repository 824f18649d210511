import type { AuditLog } from "../audit/index.js";
import type { Checkpointer } from "../checkpoint/index.js";
import type { CompiledGraph } from "../index.js";
import type { RunQueue, Runs, WebhookOptions } from "../runs/index.js";
import type { StoreIndexConfig } from "../store/index.js";
import type { GraphDefaults } from "./assistants.js";
import { createServerContext } from "./create-context.js";
import type { FactoryGraph } from "./graph-factory.js";
import { graphRunExecutor, wireRunValues } from "./graph-runs.js";
import type { StoreTtlOptions } from "./store-ttl.js";

/** Options of `startWorker`. */
export interface RunWorkerOptions {
  /** The same graphs, by the same ids, as the servers that create the runs. */
  graphs: Record<string, CompiledGraph<any, any> | FactoryGraph>;
  /** The store the servers use (the hosted graphs are rebound to it). */
  checkpointer: Checkpointer;
  /** The servers' `storeIndex`, so what nodes put to the store here is embedded as there. */
  storeIndex?: StoreIndexConfig;
  /** The servers' `storeTtl`, so what nodes put here expires as there (this process sweeps too). */
  storeTtl?: StoreTtlOptions;
  /** The shared queue, e.g. `await PostgresRunQueue.open({ connectionString })`. */
  queue: RunQueue;
  /** Runs executed at once in this process (default 4). */
  concurrency?: number;
  /** How long this process holds a run without renewing its lease (default 30 s). */
  leaseMs?: number;
  /** The servers' audit log (default `auditLogFor(checkpointer)`): deadlines and tool results go there. */
  audit?: AuditLog;
  /** The same webhook settings as the servers' (this process delivers and signs webhooks too). */
  webhooks?: WebhookOptions;
  /** Where a failure to queue a webhook goes (it never fails the run); ignored by default. */
  onWebhookError?: (error: unknown) => void;
  /**
   * The servers' `graphDefaults` (the config file's per-graph config and context), so a cron
   * this process fires runs through its assistant as on a server.
   */
  graphDefaults?: Record<string, GraphDefaults>;
  /** Where errors nobody awaits go (a cron that could not fire); `console.error` by default. */
  onUnexpectedError?: (error: unknown) => void;
}

/**
 * A worker process's work: execute queued runs of `graphs` exactly as a server would (the
 * same executor, so a run's stream and stored state do not depend on who ran it), and fire
 * the crons that come due, as every server does (each firing is claimed in the database,
 * so it starts once however many servers and workers look), until `close()`, which hands
 * the runs it holds back to the queue.
 *
 * @example
 * const worker = await startWorker({ graphs: { ops: agent }, checkpointer, queue });
 * process.once("SIGTERM", () => void worker.close());
 */
export async function startWorker(
  options: RunWorkerOptions,
): Promise<{ runs: Runs; close(): Promise<void> }> {
  const context = createServerContext({
    // The same long-term store the server's /store shows: the checkpointer's database.
    ...options,
    watchThreads: false,
    onWebhookError: options.onWebhookError ?? (() => {}),
    report: options.onUnexpectedError ?? ((error: unknown) => console.error(error)),
  });
  const { runs, audit } = context;
  await runs.work({
    concurrency: options.concurrency ?? 4,
    execute: graphRunExecutor({ audit, webhooks: runs.webhooks }),
    values: wireRunValues,
  });
  context.crons.start();
  context.storeSweep?.start();
  return {
    runs,
    close: async () => {
      await context.crons.stop();
      await context.storeSweep?.stop();
      await runs.close();
    },
  };
}
