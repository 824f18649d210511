// The parts a server works with, built once for `createApp` and `startWorker` alike.
import { auditLogFor } from "../audit/index.js";
import { createRuns, deliveryOutboxFor, InProcessRunQueue } from "../runs/index.js";
import { storeFor } from "../store/index.js";
import type { ServerOptions } from "./app.js";
import { Assistants } from "./assistants.js";
import { cronStoreFor } from "./crons/cron-store-for.js";
import { Crons } from "./crons/crons.js";
import { HostedGraphs } from "./hosted-graphs.js";
import { InboxEvents } from "./inbox-events.js";
import { NewThreads } from "./new-threads.js";
import type { ServerContext } from "./server-context.js";
import { storeSweep } from "./store-ttl.js";
import { ThreadStateUpdates } from "./thread-state-updates.js";

/** What the context is made from: the server's options that are not about HTTP. */
export type ContextOptions = Pick<
  ServerOptions,
  | "graphs"
  | "checkpointer"
  | "queue"
  | "leaseMs"
  | "store"
  | "storeIndex"
  | "storeTtl"
  | "audit"
  | "auditPermission"
  | "graphDefaults"
  | "assistantStore"
  | "webhooks"
  | "configurableHeaders"
> & {
  /**
   * Whether the inbox's change feed listens to the database (a server's pages need the other
   * processes' changes; a worker shows no pages, so it only publishes its own).
   */
  watchThreads: boolean;
  /** Where a failure to queue a webhook goes (it never fails the run). */
  onWebhookError: (error: unknown) => void;
  /** Where errors nobody awaits go (a cron that could not fire). */
  report: (error: unknown) => void;
};

/**
 * The hosted graphs, assistants, runs, store, audit log and crons of one process, so a
 * worker starts a cron's run through the same path as a server (nothing started yet:
 * the caller starts `runs.work`, `crons` and `storeSweep` as it needs).
 *
 * @example
 * const context = createServerContext({ graphs, checkpointer, watchThreads: false, onWebhookError: () => {}, report: console.error });
 * context.crons.start();
 */
export function createServerContext(options: ContextOptions): ServerContext {
  const store =
    options.store ??
    storeFor(options.checkpointer, {
      ...(options.storeIndex && { index: options.storeIndex }),
      ...(options.storeTtl && { ttl: options.storeTtl }),
    });
  const hosted = new HostedGraphs(options.graphs, options.checkpointer, store);
  const audit = options.audit ?? auditLogFor(options.checkpointer);
  const runs = createRuns({
    graphs: Object.fromEntries(hosted.ids.map((id) => [id, hosted.get(id)])),
    audit,
    // Embedded (PGlite), webhooks wait in the database, so a restart does not lose them.
    queue:
      options.queue ?? new InProcessRunQueue({ outbox: deliveryOutboxFor(options.checkpointer) }),
    ...(options.leaseMs !== undefined && { leaseMs: options.leaseMs }),
    ...(options.webhooks && { webhooks: options.webhooks }),
    onWebhookError: options.onWebhookError,
    graphForRun: hosted.forRun,
  });
  const context: ServerContext = {
    hosted,
    assistants: new Assistants(
      hosted,
      options.assistantStore ?? storeFor(options.checkpointer, { tables: "assistants" }),
      options.graphDefaults,
    ),
    checkpointer: options.checkpointer,
    store,
    runs,
    events: options.watchThreads
      ? new InboxEvents(options.checkpointer, options.report)
      : new InboxEvents(),
    stateUpdates: new ThreadStateUpdates(),
    newThreads: new NewThreads(),
    audit,
    auditPermission: options.auditPermission ?? "admin",
    crons: new Crons(cronStoreFor(options.checkpointer), () => context, options.report),
    // Your own store is yours to sweep: storeTtl configures the default one only.
    storeSweep: options.store ? undefined : storeSweep(store, options.storeTtl, options.report),
    configurableHeaders: options.configurableHeaders ?? {},
  };
  return context;
}
