// A step that interrupt() paused, as stores keep it: pending writes against the step's barrier.
import type { Checkpoint, InterruptRecord, PendingWrite } from "./checkpointer.js";

/**
 * A step an `interrupt()` paused writes no checkpoint of its own (as in LangGraph): each
 * paused task stores a pending write under this pseudo-channel against the checkpoint the
 * step started from, beside its finished siblings' writes. That checkpoint stays the
 * thread's latest, and reads as paused while such a task has not finished.
 */
export const INTERRUPT = "__interrupt__";

/** The pseudo-channel under which a finished task's pending write keeps its routes. */
export const ROUTE = "__route__";

/**
 * What a paused task's pending write keeps: how far it got (to restore it paused) and the
 * interrupts it waits on (for views and the thread's record).
 *
 * @example
 * const paused: PausedTask = { taskId: "3:review:0", interrupts: [{ id, value: "ok?" }], resumes: [],
 *   waitsOn: [{ id, value: "ok?", node: "review", ns: "", step: 3, taskId: "3:review:0", timing: "during" }] };
 */
export interface PausedTask {
  taskId: string;
  /** Every `interrupt()` the task reached, in call order (the last is the one it waits on). */
  interrupts: Array<{ id: string; value: unknown }>;
  /** The answers it had, the k-th answering the k-th interrupt. */
  resumes: unknown[];
  /** Interrupts pending inside a graph the task called (a subgraph), with their namespaces. */
  nested?: InterruptRecord[];
  /** Answers for that graph's interrupts given so far. */
  nestedAnswers?: Record<string, unknown>;
  /** The interrupts it waits on. */
  waitsOn: InterruptRecord[];
}

/** How many answers a paused task had: each later pause of the task has more. */
const answersOf = (t: PausedTask) =>
  t.resumes.length + (t.nestedAnswers ? Object.keys(t.nestedAnswers).length : 0);

/**
 * A paused task's pending write. Keyed `taskId#answers`, not by the task alone, so each
 * pause of a task is a row of its own: a task's finished writes do not replace it, and
 * rolling back the run that answered it leaves the pause it answered.
 */
export function pauseWrite(node: string, paused: PausedTask): PendingWrite {
  return {
    taskId: `${paused.taskId}#${answersOf(paused)}`,
    node,
    writes: [[INTERRUPT, paused]],
  };
}

/** Whether `write` is a paused task's (see `pauseWrite`). */
export const isPauseWrite = (write: PendingWrite) => write.writes[0]?.[0] === INTERRUPT;

/** The paused tasks among `writes`, by task id: each at its latest pause (the most answers). */
export function pausedTasksIn(writes: readonly PendingWrite[]): Map<string, PausedTask> {
  const out = new Map<string, PausedTask>();
  for (const w of writes) {
    if (!isPauseWrite(w)) continue;
    const paused = w.writes[0]![1] as PausedTask;
    const before = out.get(paused.taskId);
    if (!before || answersOf(paused) > answersOf(before)) out.set(paused.taskId, paused);
  }
  return out;
}

/** Ids of the tasks among `writes` that finished (their routes are stored). */
export function finishedTasksIn(writes: readonly PendingWrite[]): Set<string> {
  const out = new Set<string>();
  for (const w of writes) if (w.writes.some(([k]) => k === ROUTE)) out.add(w.taskId);
  return out;
}

/**
 * The interrupts a checkpoint waits on, given its pending writes: those of its step's paused
 * tasks that have not finished since; or, with none, its own (a static breakpoint, or a
 * pause checkpoint of a thread written before pauses were pending writes).
 */
export function waitingInterrupts(
  checkpoint: Checkpoint,
  writes: readonly PendingWrite[],
): InterruptRecord[] {
  const paused = pausedTasksIn(writes);
  if (paused.size === 0) return checkpoint.interrupts;
  const finished = finishedTasksIn(writes);
  const out: InterruptRecord[] = [];
  for (const [taskId, t] of paused) if (!finished.has(taskId)) out.push(...t.waitsOn);
  return out.length > 0 ? out : checkpoint.interrupts;
}
