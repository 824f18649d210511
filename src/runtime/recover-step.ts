// A step restored from its barrier checkpoint: its pending writes back into its tasks.
import type { CheckpointTuple, PendingWrite } from "../checkpoint/checkpointer.js";
import { isPauseWrite, pausedTasksIn, ROUTE } from "../checkpoint/paused-tasks.js";
import { stepOriginOf } from "./snapshot-format.js";
import type { GraphContext, TaskRecord, TaskSeed } from "./task.js";

/**
 * Pending writes stored as a step's tasks finished or paused, back into those tasks: a
 * finished one is done (a restart does not run it again), a paused one is paused where it
 * last stopped, with the answers it had. A task that finished after a pause is done.
 */
export function recoverTasks(tasks: TaskRecord[], writes: readonly PendingWrite[]): TaskRecord[] {
  const finished = new Map<string, PendingWrite>();
  for (const w of writes) if (w.writes.some(([k]) => k === ROUTE)) finished.set(w.taskId, w);
  const paused = pausedTasksIn(writes);
  if (finished.size === 0 && paused.size === 0) return tasks;
  return tasks.map((t) => {
    if (t.status !== "pending") return t;
    const w = finished.get(t.id);
    if (w) {
      const route = w.writes.find(([k]) => k === ROUTE)!;
      return {
        ...t,
        status: "done" as const,
        writes: w.writes.filter(([k]) => k !== ROUTE),
        next: route[1] as TaskSeed[],
      };
    }
    const p = paused.get(t.id);
    if (!p) return t;
    const task: TaskRecord = {
      ...t,
      status: "interrupted",
      interrupts: p.interrupts,
      resumes: p.resumes,
    };
    if (p.nested) task.nested = p.nested;
    if (p.nestedAnswers) task.nestedAnswers = p.nestedAnswers;
    return task;
  });
}

/**
 * A barrier's stored snapshot (`"barrier"`, or a static breakpoint's) with its step's
 * pending writes back in its tasks. A step one of whose tasks waits on an `interrupt()`
 * rests paused in that task's node state, or in the fan-out's when more than one task is
 * unfinished (as the barrier would have started it), past any breakpoint it was continued
 * from. Other snapshots, and a barrier without writes, come back as they are.
 */
export function recoverStep<S extends { value: unknown; context: GraphContext }>(
  snapshot: S,
  writes: readonly PendingWrite[],
): S {
  const { value, context } = snapshot;
  if ((value !== "barrier" && value !== "breakpoint") || writes.length === 0) return snapshot;
  const tasks = recoverTasks(context.tasks, writes);
  const unfinished = tasks.filter((t) => t.status !== "done");
  if (!unfinished.some((t) => t.status === "interrupted")) {
    return { ...snapshot, context: { ...context, tasks } };
  }
  const at = context.breakpoint;
  const passed = at ? [...context.passed, at.timing] : context.passed;
  const node = unfinished.length === 1 ? unfinished[0]!.node : "__fanout__";
  return {
    ...snapshot,
    value: { stepping: { [node]: "interrupted" } },
    context: { ...context, tasks, breakpoint: null, passed },
  };
}

/**
 * Id of the barrier checkpoint whose step a run restored from `tuple` goes on with. A
 * step's pause is stored against the checkpoint it started from, which is that barrier,
 * also when it is a static breakpoint's checkpoint continued from (whose own step origin
 * is the step before).
 */
export function stepOriginOfTuple(tuple: CheckpointTuple): string {
  return tuple.pendingWrites.some(isPauseWrite)
    ? tuple.checkpoint.id
    : stepOriginOf(tuple.checkpoint);
}
