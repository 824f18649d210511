import type {
  Checkpoint,
  Checkpointer,
  CheckpointMetadata,
  InterruptRecord,
} from "../checkpoint/checkpointer.js";
import { contextOf, stepOriginOf } from "../runtime/snapshot-format.js";
import type { RunConfig, State } from "./types.js";

/** A task as `getState` shows it. */
export interface TaskView {
  id: string;
  name: string;
  status: "pending" | "done" | "interrupted";
  /** What the task waits on: its own interrupt, or those of the subgraph it called. */
  interrupts: InterruptRecord[];
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

/** Turn a stored checkpoint into the `getState` view; with a checkpointer, nest subgraph runs too. */
export async function viewCheckpoint<S extends State>(
  checkpoint: Checkpoint,
  subgraphs: Checkpointer | undefined,
): Promise<StateSnapshot<S>> {
  const context = contextOf(checkpoint);
  const tasks: TaskView[] = [];
  for (const t of context.tasks) {
    const view: TaskView = {
      id: t.id,
      name: t.node,
      status: t.status,
      interrupts: t.nested ?? checkpoint.interrupts.filter((i) => i.taskId === t.id),
    };
    if (subgraphs) {
      const ns = `${checkpoint.ns ? `${checkpoint.ns}|` : ""}${t.node}:${t.id}`;
      const child = await subgraphs.getLatest(checkpoint.threadId, ns);
      // Only the run this step started belongs here (not one from another branch).
      if (child && child.checkpoint.metadata.parentStep === stepOriginOf(checkpoint)) {
        view.state = await viewCheckpoint(child.checkpoint, subgraphs);
      }
    }
    tasks.push(view);
  }
  return {
    values: checkpoint.values as S,
    next: checkpoint.next,
    interrupts: checkpoint.interrupts,
    tasks,
    config: configOf(checkpoint, checkpoint.id),
    parentConfig: checkpoint.parentId ? configOf(checkpoint, checkpoint.parentId) : undefined,
    metadata: checkpoint.metadata,
    createdAt: checkpoint.createdAt,
  };
}
