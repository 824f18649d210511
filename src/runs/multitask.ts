import { ThreadBusyError } from "../errors/index.js";
import type { MultitaskStrategy, QueuedRun } from "./run.js";

/**
 * What admitting a new run to a thread means for the runs it already has (pending or
 * running, oldest first): nothing (`enqueue`, or an idle thread), or which to stop and how.
 * `reject` on a busy thread throws.
 *
 * @example
 * multitaskDecision("interrupt", active); // { stop: [{ runId: "r1", action: "interrupt" }] }
 */
export interface MultitaskDecision {
  stop: Array<{ runId: string; action: "interrupt" | "rollback" }>;
}

/**
 * Decide, without acting, how a new run enters a thread with `active` runs. Pending runs are
 * stopped too under `interrupt` and `rollback`, so the new run starts next, not after them.
 */
export function multitaskDecision(
  strategy: MultitaskStrategy,
  threadId: string,
  active: readonly Pick<QueuedRun, "runId" | "status">[],
): MultitaskDecision {
  if (active.length === 0 || strategy === "enqueue") return { stop: [] };
  if (strategy === "reject") throw new ThreadBusyError(threadId, null);
  return { stop: active.map((run) => ({ runId: run.runId, action: strategy })) };
}

/** The strategies, for validating input. */
export const MULTITASK_STRATEGIES: readonly MultitaskStrategy[] = [
  "reject",
  "enqueue",
  "interrupt",
  "rollback",
];
