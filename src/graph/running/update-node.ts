// The node an update without `asNode` is written as, inferred as LangGraph infers it.
import type { Checkpointer } from "../../checkpoint/index.js";
import { waitingInterrupts } from "../../checkpoint/paused-tasks.js";
import { InvalidUpdateError } from "../../errors/index.js";
import { START } from "../definition/constants.js";

/**
 * The node that ran last on the run at `fromId` (the latest checkpoint without it) in
 * namespace `ns`, as LangGraph's `versions_seen` tells it: going back through parents, the
 * first `loop` checkpoint that completed a step names them, they are what its parent had
 * next (updates and inputs are not runs; a pause mid-step completed none). `START` when only
 * the input has been taken, or nothing. Two nodes that ran last in one step make it
 * ambiguous: an `InvalidUpdateError` asking for `asNode`, before anything is written.
 * `undefined` when the run is paused there (an interrupt, a breakpoint): the update is
 * written in place, so the pause and the review waiting on it stay (LangGraph would
 * schedule the paused node afresh and drop its interrupt).
 *
 * @example
 * const asNode = await lastRanNode(checkpointer, "t1", "", undefined); // e.g. "write"
 */
export async function lastRanNode(
  checkpointer: Checkpointer,
  threadId: string,
  ns: string,
  fromId: string | undefined,
): Promise<string | undefined> {
  let at =
    fromId === undefined
      ? await checkpointer.getLatest(threadId, ns)
      : await checkpointer.get(threadId, ns, fromId);
  // Paused at the latest checkpoint: by its step's paused tasks (pending writes), or a
  // checkpoint that is the pause (a breakpoint; a thread paused before pauses were writes).
  // A named checkpoint is updated as stored, its step's pause left behind (see updateState).
  if (
    at &&
    ((fromId === undefined && waitingInterrupts(at.checkpoint, at.pendingWrites).length > 0) ||
      at.checkpoint.interrupts.length > 0 ||
      at.checkpoint.metadata.stepOrigin !== undefined)
  )
    return undefined;
  while (at) {
    const { metadata, parentId } = at.checkpoint;
    const parent = parentId === null ? undefined : await checkpointer.get(threadId, ns, parentId);
    if (parent && metadata.source === "loop" && metadata.step > parent.checkpoint.metadata.step) {
      const ran = [...new Set(parent.checkpoint.next)];
      if (ran.length === 1) return ran[0]!;
      if (ran.length > 1) {
        throw new InvalidUpdateError(
          `Ambiguous update: nodes ${ran.map((n) => `"${n}"`).join(" and ")} ran last, in one step, so which one it comes from cannot be told. Name it: updateState(config, values, "${ran[0]}"). The thread is unchanged.`,
        );
      }
    }
    at = parent;
  }
  return START;
}
