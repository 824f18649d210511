import { assign, fromPromise, raise, setup } from "xstate";

/**
 * The standalone chart's stand-in context: how the stand-in tasks behave when
 * they run, so that every branch can be reached by a real run too.
 */
interface TaskChartContext {
  /** How many tasks run together (1 for a node alone; more in a fan-out). */
  width: number;
  /** How many more of the tasks' runs pause (call `interrupt()`) before they finish. */
  pauses: number;
  /** The stand-in tasks throw when they run. */
  fails: boolean;
  /** How many tasks wait on an answer after the last run. */
  interrupted: number;
  /** How many answered tasks the next run re-runs (0: a first run runs all `width`). */
  resuming: number;
}

/**
 * The standalone charts' stand-in for running a step's tasks: `count` outcomes,
 * the first `pauses` of them interrupted; or a failure when asked to.
 */
export const runTaskStandIn = fromPromise<
  Array<{ status: "done" | "interrupted" }>,
  { count: number; pauses: number; fail: boolean }
>(async ({ input }) => {
  if (input.fail) throw new Error("task failed");
  return Array.from({ length: input.count }, (_, i) => ({
    status: i < input.pauses ? ("interrupted" as const) : ("done" as const),
  }));
});

/** How many of a done event's task outcomes are interrupted. */
export const interruptedIn = (event: unknown) =>
  ((event as { output?: Array<{ status: string }> }).output ?? []).filter(
    (o) => o.status === "interrupted",
  ).length;

/**
 * The stand-in logic of the lifecycle's guards and actions, shared by both
 * standalone charts (`compileGraph` supplies the real ones).
 */
export const lifecycleStandIn = {
  anyTaskInterrupted: ({ event }: { event: unknown }) => interruptedIn(event) > 0,
  resumeAnswersTask: ({ context }: { context: { interrupted: number } }) => context.interrupted > 0,
  /** How many tasks now wait, and how many pauses the stand-in has left. */
  recordTaskResults: ({ context, event }: { context: { pauses: number }; event: unknown }) => {
    const interrupted = interruptedIn(event);
    return { interrupted, resuming: 0, pauses: Math.max(0, context.pauses - interrupted) };
  },
  /** The waiting tasks are answered: the next run re-runs just them. */
  applyAnswers: ({ context }: { context: { interrupted: number } }) => ({
    resuming: context.interrupted,
    interrupted: 0,
  }),
  failure: ({ event }: { event: unknown }) => ({
    type: "TASK_FAILED" as const,
    error: (event as { error?: unknown }).error,
  }),
};

/**
 * The lifecycle of a step's work: a graph node that runs alone in its super-step,
 * or (as the run loop's `__fanout__`) all tasks of a step that has several.
 *
 * `running` invokes the node. `interrupted` is an explicit waiting state: a
 * paused run holds no in-flight actor there, so its persisted snapshot is
 * complete. `RESUME` with an answer for it runs the node again from its start.
 * `done` is final: the run loop then merges the node's writes.
 *
 * `compileGraph` instantiates these states once per graph node, as a child of
 * the run loop's `stepping` state, swapping `runTask` for the node's own actor
 * and binding every guard and action to the node's name; and once more as the
 * run loop's `__fanout__` state, whose actor runs all tasks of a multi-task step.
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
    anyTaskInterrupted: lifecycleStandIn.anyTaskInterrupted,
    resumeAnswersTask: lifecycleStandIn.resumeAnswersTask,
  },
  actions: {
    recordTaskResults: assign((args) => lifecycleStandIn.recordTaskResults(args)),
    applyAnswers: assign((args) => lifecycleStandIn.applyAnswers(args)),
    reportFailure: raise(lifecycleStandIn.failure),
  },
}).createMachine({
  id: "task",
  context: ({ input }) => ({
    width: 1,
    pauses: 0,
    fails: false,
    interrupted: 0,
    resuming: 0,
    ...input,
  }),
  initial: "running",
  states: {
    running: {
      invoke: {
        id: "runTask",
        src: "runTask",
        // A resumed run re-runs only the tasks that waited; a first run runs them all.
        input: ({ context }) => ({
          count: context.resuming || context.width,
          pauses: context.pauses,
          fail: context.fails,
        }),
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
  },
});

/** The lifecycle's states, for `compileGraph` to instantiate per node. */
export const taskLifecycle = {
  initial: taskMachine.config.initial,
  states: taskMachine.config.states,
};
