import { assign, raise, setup } from "xstate";
import { runTaskStandIn, taskLifecycle } from "./task.machine.js";

/**
 * The standalone chart's stand-in context (a one-node graph). Its input sets
 * any of it, so every branch can be reached, by a real run too: e.g.
 * `{ breakpoint: true }`, `{ runnable: 0 }` (the node is not triggered),
 * `{ pauses: 1 }`, `{ fails: true }`, `{ stepsLeft: 0 }`.
 */
interface RunChartContext {
  /** Tasks waiting at the barrier. */
  pending: number;
  /** Steps left before the recursion limit. */
  stepsLeft: number;
  breakpoint: boolean;
  runnable: number;
  interrupted: number;
  finished: number;
  /** How many more times the stand-in node pauses before it finishes. */
  pauses: number;
  /** The stand-in node throws when it runs. */
  fails: boolean;
}

/**
 * The run loop every compiled graph follows: Pregel-style super-steps.
 *
 * `idle` waits for the first `INPUT`. At `barrier` a step's writes have merged
 * and the next step's tasks are known; the driver writes a checkpoint there (no
 * child actor is running, so the snapshot is complete) and sends `STEP`.
 * `stepping` runs the triggered nodes concurrently, one region per node, each
 * following the task lifecycle; when every region is final the writes merge and
 * the loop is back at `barrier`. A region left `interrupted` keeps the run
 * paused inside `stepping`. `breakpoint` is a static interruptBefore/After
 * stop. `done` and `failed` end the run.
 *
 * This standalone chart has one node region, `task`; `compileGraph` builds the
 * same loop with one region per graph node and its own guards and actions.
 */
export const runMachine = setup({
  types: {
    context: {} as RunChartContext,
    input: {} as Partial<RunChartContext> | undefined,
    events: {} as
      | { type: "INPUT" }
      | { type: "UPDATE"; asNode?: string }
      | { type: "STEP" }
      | { type: "RESUME"; answers: Record<string, unknown> }
      | { type: "TASK_FAILED"; error: unknown },
  },
  actors: { runTask: runTaskStandIn },
  guards: {
    hasRunnableTasks: ({ context }) => context.runnable > 0,
    hasFinishedTasks: ({ context }) => context.finished > 0,
    anyTaskInterrupted: ({ event }) =>
      ((event as { output?: { interrupted: number } }).output?.interrupted ?? 0) > 0,
    resumeAnswersTask: ({ context }) => context.interrupted > 0,
    finished: ({ context }) => context.pending === 0,
    overRecursionLimit: ({ context }) => context.stepsLeft <= 0,
    atBreakpoint: ({ context }) => context.breakpoint,
    hasAsNode: ({ event }) => event.type === "UPDATE" && event.asNode !== undefined,
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
    applyInput: assign({ pending: 1 }),
    applyUpdate: () => {},
    applyUpdateAsNode: assign({ pending: 1, runnable: 1 }),
    startStep: assign({ stepsLeft: ({ context }) => context.stepsLeft - 1 }),
    mergeWrites: assign({ pending: ({ context }) => (context.interrupted > 0 ? 1 : 0) }),
    recordBreakpoint: () => {},
    clearBreakpoint: assign({ breakpoint: false }),
    recordFailure: () => {},
    recordRecursionError: () => {},
  },
}).createMachine({
  id: "run",
  context: ({ input }) => ({
    pending: 0,
    stepsLeft: 25,
    breakpoint: false,
    runnable: 1,
    interrupted: 0,
    finished: 0,
    pauses: 0,
    fails: false,
    ...input,
  }),
  initial: "idle",
  on: {
    INPUT: { target: ".barrier", actions: "applyInput" },
    UPDATE: [
      { guard: "hasAsNode", target: ".barrier", actions: "applyUpdateAsNode" },
      { actions: "applyUpdate" },
    ],
    TASK_FAILED: { target: ".failed", actions: "recordFailure" },
  },
  states: {
    idle: {},
    barrier: {
      on: {
        STEP: [
          // A breakpoint first: interruptAfter on the last node must stop before `done`.
          { guard: "atBreakpoint", target: "breakpoint", actions: "recordBreakpoint" },
          { guard: "finished", target: "done" },
          { guard: "overRecursionLimit", target: "failed", actions: "recordRecursionError" },
          { target: "stepping", actions: "startStep" },
        ],
      },
    },
    stepping: {
      type: "parallel",
      onDone: { target: "barrier", actions: "mergeWrites" },
      states: {
        task: taskLifecycle as never,
      },
    },
    breakpoint: {
      on: { RESUME: { target: "barrier", actions: "clearBreakpoint" } },
    },
    done: { type: "final" },
    failed: { type: "final" },
  },
});
