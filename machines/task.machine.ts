import { assign, fromPromise, raise, setup } from "xstate";

/**
 * The standalone chart's stand-in context: how many of the node's tasks can
 * run, wait for an answer, or finished already, and how the stand-in node
 * behaves when it runs (so every branch can be reached by a real run too).
 */
interface TaskChartContext {
  runnable: number;
  interrupted: number;
  finished: number;
  /** How many more times the stand-in node pauses (calls `interrupt()`) before it finishes. */
  pauses: number;
  /** The stand-in node throws when it runs. */
  fails: boolean;
}

/** The standalone charts' stand-in node: pauses or fails when asked to. */
export const runTaskStandIn = fromPromise<
  { interrupted: number },
  { interrupt: boolean; fail: boolean }
>(async ({ input }) => {
  if (input.fail) throw new Error("task failed");
  return { interrupted: input.interrupt ? 1 : 0 };
});

/**
 * The lifecycle of one graph node within a super-step.
 *
 * `idle` decides at step start: run the node's pending tasks, count it as
 * `done` when its tasks finished already, or `skip` it when it was not
 * triggered. `running` invokes the node. `interrupted` is an explicit waiting
 * state: a paused run holds no in-flight actor there, so its persisted snapshot
 * is complete. `RESUME` answers it and the node runs again from its start.
 *
 * `compileGraph` instantiates these states once per graph node (as a region of
 * the run loop's `stepping` state), swapping `runTask` for the node's actor and
 * binding every guard and action to the node's name.
 */
export const taskMachine = setup({
  types: {
    context: {} as TaskChartContext,
    input: {} as Partial<TaskChartContext> | undefined,
    events: {} as
      | { type: "RESUME"; answers: Record<string, unknown> }
      | { type: "TASK_FAILED"; error: unknown },
  },
  actors: {
    runTask: runTaskStandIn,
  },
  guards: {
    hasRunnableTasks: ({ context }) => context.runnable > 0,
    hasFinishedTasks: ({ context }) => context.finished > 0,
    anyTaskInterrupted: ({ event }) =>
      ((event as { output?: { interrupted: number } }).output?.interrupted ?? 0) > 0,
    resumeAnswersTask: ({ context }) => context.interrupted > 0,
  },
  actions: {
    recordTaskResults: assign(({ context, event }) => {
      const interrupted = (event as { output?: { interrupted: number } }).output?.interrupted ?? 0;
      return { interrupted, pauses: Math.max(0, context.pauses - interrupted) };
    }),
    applyAnswers: assign({ interrupted: 0 }),
    reportFailure: raise(({ event }) => ({
      type: "TASK_FAILED" as const,
      error: (event as { error?: unknown }).error,
    })),
  },
}).createMachine({
  id: "task",
  context: ({ input }) => ({
    runnable: 1,
    interrupted: 0,
    finished: 0,
    pauses: 0,
    fails: false,
    ...input,
  }),
  initial: "idle",
  states: {
    idle: {
      always: [
        { guard: "hasRunnableTasks", target: "running" },
        { guard: "hasFinishedTasks", target: "done" },
        { target: "skipped" },
      ],
    },
    running: {
      invoke: {
        id: "runTask",
        src: "runTask",
        input: ({ context }) => ({ interrupt: context.pauses > 0, fail: context.fails }),
        onDone: [
          { guard: "anyTaskInterrupted", target: "interrupted", actions: "recordTaskResults" },
          { target: "done", actions: "recordTaskResults" },
        ],
        onError: { actions: "reportFailure" },
      },
    },
    interrupted: {
      on: {
        RESUME: { guard: "resumeAnswersTask", target: "running", actions: "applyAnswers" },
      },
    },
    done: { type: "final" },
    skipped: { type: "final" },
  },
});

/** The lifecycle's states, for `compileGraph` to instantiate per node. */
export const taskLifecycle = {
  initial: taskMachine.config.initial,
  states: taskMachine.config.states,
};

/** The state names of a node's lifecycle, as they appear in snapshots. */
export type TaskLifecycleState = "idle" | "running" | "interrupted" | "done" | "skipped";
