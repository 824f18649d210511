import { type AuditLog, auditLogFor } from "../audit/index.js";
import type { Checkpointer } from "../checkpoint/index.js";
import type { CompiledGraph } from "../index.js";
import { createRuns, type RunQueue, type Runs, type WebhookOptions } from "../runs/index.js";
import { type StoreIndexConfig, storeFor } from "../store/index.js";
import type { FactoryGraph } from "./graph-factory.js";
import { graphRunExecutor, wireRunValues } from "./graph-runs.js";
import { HostedGraphs } from "./hosted-graphs.js";

/** Options of `startWorker`. */
export interface RunWorkerOptions {
  /** The same graphs, by the same ids, as the servers that create the runs. */
  graphs: Record<string, CompiledGraph<any, any> | FactoryGraph>;
  /** The store the servers use (the hosted graphs are rebound to it). */
  checkpointer: Checkpointer;
  /** The servers' `storeIndex`, so what nodes put to the store here is embedded as there. */
  storeIndex?: StoreIndexConfig;
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
}

/**
 * A worker process's work: execute queued runs of `graphs` exactly as a server would (the
 * same executor, so a run's stream and stored state do not depend on who ran it), until
 * `close()`, which hands the runs it holds back to the queue.
 *
 * @example
 * const worker = await startWorker({ graphs: { ops: agent }, checkpointer, queue });
 * process.once("SIGTERM", () => void worker.close());
 */
export async function startWorker(
  options: RunWorkerOptions,
): Promise<{ runs: Runs; close(): Promise<void> }> {
  // The same long-term store the server's /store shows: the checkpointer's database.
  const hosted = new HostedGraphs(
    options.graphs,
    options.checkpointer,
    storeFor(options.checkpointer, options.storeIndex ? { index: options.storeIndex } : {}),
  );
  const audit = options.audit ?? auditLogFor(options.checkpointer);
  const runs = createRuns({
    graphs: Object.fromEntries(hosted.ids.map((id) => [id, hosted.get(id)])),
    queue: options.queue,
    audit,
    ...(options.leaseMs !== undefined && { leaseMs: options.leaseMs }),
    ...(options.webhooks && { webhooks: options.webhooks }),
    ...(options.onWebhookError && { onWebhookError: options.onWebhookError }),
    graphForRun: hosted.forRun,
  });
  await runs.work({
    concurrency: options.concurrency ?? 4,
    execute: graphRunExecutor({ audit, webhooks: runs.webhooks }),
    values: wireRunValues,
  });
  return { runs, close: () => runs.close() };
}
