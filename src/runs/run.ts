/**
 * Where a run stands: waiting to start, working, or how it ended. `interrupted` means the
 * graph paused for a person (the thread waits for a resume); `cancelled` means it was
 * stopped through `cancel`.
 *
 * @example
 * const done: RunStatus[] = ["success", "error", "interrupted", "cancelled"];
 */
export type RunStatus = "pending" | "running" | "success" | "error" | "interrupted" | "cancelled";

/** The statuses a run never leaves. */
export const FINAL_RUN_STATUSES: ReadonlySet<RunStatus> = new Set([
  "success",
  "error",
  "interrupted",
  "cancelled",
]);

/**
 * One run: a piece of work driving a graph on one thread.
 *
 * @example
 * const run: RunRecord = { runId: "r1", threadId: "t1", graphId: "ops", status: "running",
 *   createdAt: "2026-01-01T00:00:00.000Z", updatedAt: "2026-01-01T00:00:00.000Z",
 *   error: null, metadata: {} };
 */
export interface RunRecord {
  runId: string;
  threadId: string;
  /** The graph (assistant) the run drives. */
  graphId: string;
  status: RunStatus;
  /** ISO-8601. */
  createdAt: string;
  /** ISO-8601: the last status change. */
  updatedAt: string;
  /** Why the run failed, while `status` is `error`. */
  error: { name: string; message: string } | null;
  metadata: Record<string, unknown>;
}

/**
 * Something a run reported while it worked (e.g. a stream chunk), kept so a client that
 * joins late sees it too. `seq` counts from 1 per run.
 *
 * @example
 * const event: RunEvent = { seq: 1, event: "values", data: { n: 1 } };
 */
export interface RunEvent {
  seq: number;
  event: string;
  data: unknown;
}

/**
 * The work of a run: it gets a signal that aborts on `cancel` and a way to report events,
 * and says how the graph ended (`"success"` or `"interrupted"`); a throw is an `error`.
 *
 * @example
 * const work: RunWork = async ({ signal, emit }) => {
 *   const r = await graph.invoke(input, { config, signal });
 *   emit("values", r.state);
 *   return r.status === "done" ? "success" : "interrupted";
 * };
 */
export type RunWork = (run: {
  runId: string;
  signal: AbortSignal;
  emit(event: string, data: unknown): void;
}) => Promise<"success" | "interrupted">;
