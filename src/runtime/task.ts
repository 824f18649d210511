import type { InterruptRecord } from "../checkpoint/checkpointer.js";

/**
 * What the machine's context holds about the tasks of a super-step. All of it
 * is plain JSON: it is part of the persisted snapshot, which is the checkpoint.
 */

/** Why a task exists: a triggered node, a `Send`, the run's input, or `updateState`. */
export type TaskKind = "node" | "send" | "input" | "update";

/** A task to schedule in the next step (what routing produces). */
export interface TaskSeed {
  node: string;
  kind: TaskKind;
  /** The `Send` argument, input or update payload; absent for plain node tasks. */
  arg?: unknown;
  /** An update task's `Command` goto: the nodes it sends control to, as the node's Command would. */
  goto?: string[];
}

/** An interrupt a task has reached, in call order. */
export interface ReachedInterrupt {
  id: string;
  value: unknown;
}

export interface TaskRecord extends TaskSeed {
  /** Deterministic within a thread: `step:node:ordinal`. */
  id: string;
  status: "pending" | "done" | "interrupted";
  /** `[channel, value]` pairs the task wrote, once done. */
  writes: Array<[string, unknown]> | null;
  /** Where the task routes, once done. */
  next: TaskSeed[] | null;
  /** Every `interrupt()` the task reached (the last is pending while interrupted). */
  interrupts: ReachedInterrupt[];
  /** Resume values, the k-th answering the k-th interrupt. */
  resumes: unknown[];
  /** Interrupts pending inside a graph this task called (a subgraph), with their namespaces. */
  nested?: InterruptRecord[];
  /** Answers for those nested interrupts, handed to the subgraph when the task re-runs. */
  nestedAnswers?: Record<string, unknown>;
}

/** What a node actor reports for each task it ran. */
export interface TaskOutcome {
  id: string;
  status: "done" | "interrupted";
  writes: Array<[string, unknown]> | null;
  next: TaskSeed[] | null;
  interrupts: ReachedInterrupt[];
  nested?: InterruptRecord[];
}

/** The graph machine's context. */
export interface GraphContext {
  /** Channel values: the graph state. */
  values: Record<string, unknown>;
  /** Super-steps completed in this thread. */
  step: number;
  /** At a barrier: the next step's tasks; while stepping: this step's tasks. */
  tasks: TaskRecord[];
  /** Join edge key -> sources that have finished since the join last fired. */
  joins: Record<string, string[]>;
  /** Nodes that ran in the last completed step (for interruptAfter). */
  lastRan: string[];
  /**
   * The tasks the barrier just merged, for its checkpoint's `metadata.writes`; never
   * persisted (a restored barrier has merged nothing since).
   */
  merged?: TaskRecord[] | undefined;
  /** Steps taken by the current call (for recursionLimit); never persisted, so 0 on restore. */
  runSteps: number;
  /** The static breakpoint the run stopped at, if any. */
  breakpoint: { node: string; timing: "before" | "after" } | null;
  /** Breakpoint timings already passed at this barrier (cleared when a step merges). */
  passed: Array<"before" | "after">;
  /**
   * Every write the run's nodes made, in order; kept only for subgraph runs so
   * the parent can replay exactly those writes through its own reducers.
   */
  journal?: Array<[string, unknown]>;
  /** Set only in the `failed` state; never persisted. */
  error?: unknown;
  /**
   * The interrupts a paused run waits on (id, value, node…), set while it rests paused, for
   * the user of the graph's actor (`snapshot.context.interrupts`); not stored in checkpoints,
   * which keep them as interrupt records.
   */
  interrupts?: InterruptRecord[] | undefined;
  /**
   * The input writes of a run its user started with `createActor(graph.machine, { input })`,
   * until the machine's first step applies them.
   */
  start?: Record<string, unknown> | undefined;
  /** How this call runs; set when the actor is made, never persisted (see `RunOptions`). */
  run: RunOptions;
}

/**
 * What one call (`invoke`, `resume`, `stream`, `updateState`) asks of the run.
 * It lives in the context, so the chart decides with it even in a pure
 * `transition()`, but it is not the thread's state: checkpoints leave it out.
 */
export interface RunOptions {
  recursionLimit: number;
  interruptBefore: readonly string[];
  interruptAfter: readonly string[];
  /** The driver holds the run at each barrier until it sends `STEP` (updateState). */
  holds: boolean;
  /**
   * Durability "sync": each step's tasks start once every queued write is stored (the run
   * need not rest at its barriers for that).
   */
  waitsForWrites?: boolean;
}

/**
 * The barrier an update as a node (or as several, `bulkUpdateState`) opens: its writes are
 * not merged yet, so it is neither checkpointed nor held. An update's tasks are made
 * together, so the first says it.
 */
export const opensUpdate = (context: GraphContext) => context.tasks[0]?.kind === "update";

/** A call's defaults: 25 steps, no breakpoints, never held. */
export const DEFAULT_RUN: RunOptions = {
  recursionLimit: 25,
  interruptBefore: [],
  interruptAfter: [],
  holds: false,
};
