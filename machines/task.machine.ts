import { assign, fromPromise, raise, setup } from "xstate";

/**
 * The standalone chart's stand-in context: how the stand-in node behaves when
 * it runs, so that every branch can be reached by a real run too.
 */
interface TaskChartContext {
  /** How many more times the stand-in node pauses (calls `interrupt()`) before it finishes. */
  pauses: number;
  /** The stand-in node throws when it runs. */
  fails: boolean;
  /** Whether the last run paused. */
  interrupted: boolean;
}

/** The standalone charts' stand-in node: pauses or fails when asked to. */
export const runTaskStandIn = fromPromise<
  Array<{ status: "done" | "interrupted" }>,
  { interrupt: boolean; fail: boolean }
>(async ({ input }) => {
  if (input.fail) throw new Error("task failed");
  return [{ status: input.interrupt ? "interrupted" : "done" }];
});

/**
 * The lifecycle of a graph node that runs alone in its super-step.
 *
 * `running` invokes the node. `interrupted` is an explicit waiting state: a
 * paused run holds no in-flight actor there, so its persisted snapshot is
 * complete. `RESUME` with an answer for it runs the node again from its start.
 * `done` is final: the run loop then merges the node's writes.
 *
 * `compileGraph` instantiates these states once per graph node, as a child of
 * the run loop's `stepping` state, swapping `runTask` for the node's own actor
 * and binding every guard and action to the node's name. (Tasks of a step with
 * several tasks run as spawned actors of the run loop's `__fanout__` state.)
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
    anyTaskInterrupted: ({ event }) =>
      ((event as { output?: Array<{ status: string }> }).output ?? []).some(
        (o) => o.status === "interrupted",
      ),
    resumeAnswersTask: ({ context }) => context.interrupted,
  },
  actions: {
    recordTaskResults: assign(({ context, event }) => {
      const output = (event as { output?: Array<{ status: string }> }).output ?? [];
      const interrupted = output.some((o) => o.status === "interrupted");
      return { interrupted, pauses: interrupted ? context.pauses - 1 : context.pauses };
    }),
    applyAnswers: assign({ interrupted: false }),
    reportFailure: raise(({ event }) => ({
      type: "TASK_FAILED" as const,
      error: (event as { error?: unknown }).error,
    })),
  },
}).createMachine({
  id: "task",
  context: ({ input }) => ({ pauses: 0, fails: false, interrupted: false, ...input }),
  initial: "running",
  states: {
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
  },
});

/** The lifecycle's states, for `compileGraph` to instantiate per node. */
export const taskLifecycle = {
  initial: taskMachine.config.initial,
  states: taskMachine.config.states,
};

/** The state names of a node's lifecycle, as they appear in snapshots. */
export type TaskLifecycleState = "running" | "interrupted" | "done";
