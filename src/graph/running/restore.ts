// Restoring a run from its checkpoints: the barrier it rests at, and whether a pause came from it.
import type { Checkpointer, CheckpointTuple } from "../../checkpoint/checkpointer.js";
import { waitingInterrupts } from "../../checkpoint/paused-tasks.js";
import { stepOriginOfTuple } from "../../runtime/recover-step.js";
import type { GraphContext } from "../../runtime/task.js";

/** A snapshot resting at its barrier with only the tasks that finished (their writes kept). */
export function withOnlyFinishedTasks(snapshot: { value: unknown; context: GraphContext }) {
  const tasks = snapshot.context.tasks.filter((t) => t.status === "done");
  return {
    ...snapshot,
    value: "barrier",
    context: { ...snapshot.context, tasks, breakpoint: null },
  };
}

/**
 * Whether `paused` is the pause of the step that started from `barrier`: the step's origin
 * is the barrier itself, or the copy of it that continuing from it wrote first (which
 * holds the pause as pending writes, or is followed by a pause checkpoint).
 */
export async function pausedFrom(
  checkpointer: Checkpointer,
  paused: CheckpointTuple,
  barrier: CheckpointTuple,
): Promise<boolean> {
  const p = paused.checkpoint;
  const b = barrier.checkpoint;
  if (p.id === b.id) return false;
  if (waitingInterrupts(p, paused.pendingWrites).length === 0) return false;
  if (waitingInterrupts(b, barrier.pendingWrites).length > 0) return false;
  const origin = stepOriginOfTuple(paused);
  if (origin === b.id) return true;
  const copy = origin === p.id ? p : (await checkpointer.get(p.threadId, "", origin))?.checkpoint;
  return copy?.parentId === b.id && copy.metadata.step === b.metadata.step;
}
