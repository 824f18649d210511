// A thread's state at one checkpoint, as getState and getStateHistory show it.
import type {
  Checkpoint,
  Checkpointer,
  CheckpointMetadata,
  CheckpointTuple,
  InterruptRecord,
} from "../../checkpoint/checkpointer.js";
import { pausedTasksIn, waitingInterrupts } from "../../checkpoint/paused-tasks.js";
import { TASK_ERROR, type TaskErrorRecord } from "../../runtime/checkpoint-writer.js";
import { recoverTasks, stepOriginOfTuple } from "../../runtime/recover-step.js";
import { contextOf } from "../../runtime/snapshot-format.js";
import { valuesWithFinished } from "../compiling/barrier.js";
import type { Channels } from "../definition/channels.js";
import type { RunConfig, State } from "../definition/types.js";

/** A task as `getState` shows it. */
export interface TaskView {
  id: string;
  name: string;
  /**
   * `"pending"`: still to run; `"done"`: finished in a step that has not merged yet (its
   * writes are in `values` already); `"interrupted"`: waiting on `interrupts`;
   * `"failed"`: threw, with `error`.
   */
  status: "pending" | "done" | "interrupted" | "failed";
  /** What the task waits on: its own interrupt, or those of the subgraph it called. */
  interrupts: InterruptRecord[];
  /** A finished task's writes, by key (the last write of a key wins here). */
  result?: Record<string, unknown>;
  /** A failed task's error. */
  error?: TaskErrorRecord;
  /** With `getState(config, { subgraphs: true })`: the subgraph run this task started, if any. */
  state?: StateSnapshot;
}

/**
 * A thread's state at one checkpoint.
 *
 * @example
 * const { values, next, interrupts } = await graph.getState(config);
 */
export interface StateSnapshot<S extends State = State> {
  values: S;
  /** Nodes that run next (or are paused). */
  next: string[];
  interrupts: InterruptRecord[];
  tasks: TaskView[];
  config: RunConfig;
  parentConfig: RunConfig | undefined;
  metadata: CheckpointMetadata | undefined;
  createdAt: string | undefined;
}

const configOf = (c: Checkpoint, id: string): RunConfig => ({
  configurable: { thread_id: c.threadId, checkpoint_ns: c.ns, checkpoint_id: id },
});

/**
 * Turn a stored checkpoint into the `getState` view. A step that paused or failed part-way
 * shows what its finished tasks wrote (applied to `values`, as the barrier will), only the
 * unfinished tasks in `next`, and each task's status and what it waits on. With a
 * checkpointer, nest subgraph runs too.
 *
 * `applied: false` is the view of a checkpoint in a history (LangGraph applies pending
 * writes only to the latest): `values` and `next` without them, while the tasks still show
 * what they wrote and the interrupts they paused on, and `interrupts` every interrupt the
 * step paused on, answered since or not.
 */
export async function viewCheckpoint<S extends State>(
  tuple: CheckpointTuple,
  channels: Channels,
  subgraphs: Checkpointer | undefined,
  applied = true,
): Promise<StateSnapshot<S>> {
  const { checkpoint, pendingWrites } = tuple;
  const context = contextOf(checkpoint);
  const errors = new Map<string, TaskErrorRecord>();
  for (const w of pendingWrites) {
    const failed = w.writes.find(([key]) => key === TASK_ERROR);
    if (failed) errors.set(w.taskId, failed[1] as TaskErrorRecord);
  }
  const paused = pendingWrites.length > 0 ? pausedTasksIn(pendingWrites) : undefined;
  const tasks =
    pendingWrites.length > 0 ? recoverTasks(context.tasks, pendingWrites) : context.tasks;
  const views: TaskView[] = [];
  const next: string[] = [];
  const pausedOn: InterruptRecord[] = [];
  for (const t of tasks) {
    const error = t.status === "pending" ? errors.get(t.id) : undefined;
    const waitsOn = paused?.get(t.id)?.waitsOn;
    if (waitsOn) pausedOn.push(...waitsOn);
    const view: TaskView = {
      id: t.id,
      name: t.node,
      status: error ? "failed" : t.status,
      interrupts:
        t.status === "interrupted" || !applied
          ? (t.nested ?? waitsOn ?? checkpoint.interrupts.filter((i) => i.taskId === t.id))
          : [],
    };
    if (t.status === "done") view.result = Object.fromEntries(t.writes ?? []);
    if (t.status !== "done") next.push(t.node);
    if (error) view.error = error;
    if (subgraphs) {
      const ns = `${checkpoint.ns ? `${checkpoint.ns}|` : ""}${t.node}:${t.id}`;
      const child = await subgraphs.getLatest(checkpoint.threadId, ns);
      // Only the run this step started belongs here (not one from another branch).
      if (child && child.checkpoint.metadata.parentStep === stepOriginOfTuple(tuple)) {
        view.state = await viewCheckpoint(child, channels, subgraphs);
      }
    }
    views.push(view);
  }
  return {
    // A checkpoint's own paused tasks (a pause stored as a checkpoint) count in either view.
    values: valuesWithFinished(channels, applied ? { ...context, tasks } : context) as S,
    next: applied ? next : checkpoint.next,
    interrupts: applied
      ? waitingInterrupts(checkpoint, pendingWrites)
      : pausedOn.length > 0
        ? pausedOn
        : checkpoint.interrupts,
    tasks: views,
    config: configOf(checkpoint, checkpoint.id),
    parentConfig: checkpoint.parentId ? configOf(checkpoint, checkpoint.parentId) : undefined,
    metadata: checkpoint.metadata,
    createdAt: checkpoint.createdAt,
  };
}
