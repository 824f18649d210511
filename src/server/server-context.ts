import type { AuditLog } from "../audit/index.js";
import type { Checkpointer, ThreadRecord, ThreadStatus } from "../checkpoint/index.js";
import type { Runs } from "../runs/index.js";
import type { Store } from "../store/index.js";
import type { Assistants } from "./assistants.js";
import type { ConfigurableHeaders } from "./configurable-headers.js";
import type { Crons } from "./crons/crons.js";
import { RequestError } from "./errors.js";
import type { HostedGraphs } from "./hosted-graphs.js";
import type { InboxEvents } from "./inbox-events.js";
import type { NewThreads } from "./new-threads.js";
import type { ThreadStateUpdates } from "./thread-state-updates.js";
import type { Ticker } from "./ticker.js";

/**
 * What every route works with: the hosted graphs and their assistants, the store (whose thread index is the
 * only list of threads), the runs in progress and the inbox's change feed.
 */
export interface ServerContext {
  hosted: HostedGraphs;
  /** The assistants runs name: one per hosted graph, and those clients created. */
  assistants: Assistants;
  checkpointer: Checkpointer;
  /** The long-term store (`/store`). */
  store: Store;
  runs: Runs;
  events: InboxEvents;
  /** Updates of a thread's state outside a run, for the thread streams joined here. */
  stateUpdates: ThreadStateUpdates;
  newThreads: NewThreads;
  /** Where every decision is recorded (the record of truth for who decided what). */
  audit: AuditLog;
  /** Which request headers reach a run's nodes in `config.configurable`. */
  configurableHeaders: ConfigurableHeaders;
  /** Runs on a schedule (`/runs/crons`), fired by a tick in every server and worker. */
  crons: Crons;
  /** Deletes the store's expired items on the config's `store.ttl.sweep_interval_minutes`, if set. */
  storeSweep: Ticker | undefined;
  /** The permission an auth handler's user needs to read the audit log over HTTP. */
  auditPermission: string;
}

/** A thread as the routes see it: its record, its graph id, and its status right now. */
export interface ThreadView {
  record: ThreadRecord;
  graphId: string | undefined;
  status: ThreadStatus;
  /** True for a thread made with POST /threads that no run has written yet (stored or not). */
  unwritten: boolean;
}

/** The thread, or a 404 that says how to make one. */
export async function findThread(ctx: ServerContext, threadId: string): Promise<ThreadView> {
  const stored = await ctx.checkpointer.getThread(threadId);
  const fresh = stored ? undefined : ctx.newThreads.get(threadId);
  const record = stored ?? fresh;
  if (!record) {
    throw new RequestError(
      404,
      "THREAD_NOT_FOUND",
      `No thread "${threadId}". Create it with POST /threads, or start a run with if_not_exists: "create".`,
    );
  }
  return viewOf(ctx, record, stored === undefined);
}

/** The view of a thread record already read (e.g. from a search page). */
export async function viewOf(
  ctx: ServerContext,
  record: ThreadRecord,
  unwritten = false,
): Promise<ThreadView> {
  const metaGraph = record.metadata.graph_id;
  const graphId =
    ctx.hosted.idOf(record.graph) ??
    (typeof metaGraph === "string" && ctx.hosted.has(metaGraph) ? metaGraph : undefined);
  // Running threads read "busy" from the store's claim; a queued run makes them busy too.
  const busy = record.status === "busy" || (await ctx.runs.activeOn(record.threadId)) !== undefined;
  // A thread the store recorded at POST /threads has no checkpoint until its first run.
  const empty = unwritten || record.latestCheckpointId === "";
  return { record, graphId, status: busy ? "busy" : record.status, unwritten: empty };
}
