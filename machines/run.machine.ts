import { assign, raise, sendTo, setup } from "xstate";
import {
  lifecycleStandIn,
  standInTasks,
  type TaskRunnerAnswer,
  taskLifecycle,
  taskRunnerStandIn,
} from "./task.machine.js";

/** The standalone chart's stand-in context (one node, `task`, that may run as several tasks). */
interface RunChartContext {
  /** Tasks waiting at the barrier. */
  pending: number;
  /** How many tasks a run started by INPUT has in its first step (several: a fan-out). */
  width: number;
  /** Tasks of the next step that finished before a crash: the restart recovers their writes. */
  recovered: number;
  /** Steps left before the recursion limit. */
  stepsLeft: number;
  breakpoint: boolean;
  /** Stand-in task behaviour (see the task chart). */
  pauses: number;
  fails: boolean;
  interrupted: number;
  resuming: number;
}

/**
 * The run loop every compiled graph follows: Pregel-style super-steps.
 *
 * `idle` waits for the first `INPUT`. At `barrier` a step's writes have merged
 * and the next step's tasks are known; the driver writes a checkpoint there (no
 * task is running, so the snapshot is complete) and sends `STEP`. `stepping`
 * dispatches: a step with one task enters that node's own state (`RUN.<node>`;
 * in this chart the node is `task`), a step with several enters `__fanout__`,
 * which asks for all of them at once. Both follow the task lifecycle: they ask
 * the run's one task runner (the `tasks` actor, invoked for the whole run) to
 * run their tasks; when all are done the step goes straight to the barrier,
 * while a task left waiting on `interrupt()` keeps the run paused in
 * `interrupted` until `RESUME` re-runs the answered tasks. A task that throws
 * (`TASKS.ERROR`) fails the run. `breakpoint` is a static
 * interruptBefore/After stop. `done` and `failed` end the run.
 *
 * Only the states a step actually uses are active, so a step costs the same in
 * a graph of five nodes or five hundred.
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
      | { type: "RUN.task" }
      | { type: "FANOUT" }
      | { type: "SETTLED" }
      | TaskRunnerAnswer,
  },
  actors: { taskRunner: taskRunnerStandIn },
  guards: {
    anyTaskInterrupted: lifecycleStandIn.anyTaskInterrupted,
    resumeAnswersTask: lifecycleStandIn.resumeAnswersTask,
    finished: ({ context }) => context.pending === 0,
    overRecursionLimit: ({ context }) => context.stepsLeft <= 0,
    atBreakpoint: ({ context }) => context.breakpoint,
    hasAsNode: ({ event }) => event.type === "UPDATE" && event.asNode !== undefined,
  },
  actions: {
    runTasks: sendTo("tasks", ({ context }) => lifecycleStandIn.request({ context })),
    recordTaskResults: assign((args) => lifecycleStandIn.recordTaskResults(args)),
    applyAnswers: assign((args) => lifecycleStandIn.applyAnswers(args)),
    dispatchTasks: raise(({ context }) =>
      context.pending === 0
        ? { type: "SETTLED" as const }
        : context.pending === 1
          ? { type: "RUN.task" as const }
          : { type: "FANOUT" as const },
    ),
    // A new run or an update as a node replaces the tasks, paused ones included.
    applyInput: assign(({ context }) => ({ pending: context.width, interrupted: 0, resuming: 0 })),
    applyUpdate: () => {},
    applyUpdateAsNode: assign({ pending: 1, interrupted: 0, resuming: 0 }),
    // Recovered tasks are done already: only the others run.
    startStep: assign(({ context }) => ({
      stepsLeft: context.stepsLeft - 1,
      pending: Math.max(0, context.pending - context.recovered),
      width: Math.max(0, context.pending - context.recovered),
      recovered: 0,
    })),
    // The step's results are merged (a runner's answer included): nothing waits any more.
    mergeWrites: assign({ pending: 0, interrupted: 0, resuming: 0 }),
    recordBreakpoint: () => {},
    clearBreakpoint: assign({ breakpoint: false }),
    recordFailure: () => {},
    recordRecursionError: () => {},
  },
}).createMachine({
  id: "run",
  context: ({ input }) => ({
    pending: 0,
    recovered: 0,
    stepsLeft: 25,
    breakpoint: false,
    ...standInTasks,
    ...input,
  }),
  invoke: { id: "tasks", src: "taskRunner" },
  initial: "idle",
  on: {
    INPUT: { target: ".barrier", actions: "applyInput" },
    UPDATE: [
      { guard: "hasAsNode", target: ".barrier", actions: "applyUpdateAsNode" },
      { actions: "applyUpdate" },
    ],
    "TASKS.ERROR": { target: ".failed", actions: "recordFailure" },
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
      initial: "__dispatch__",
      entry: "dispatchTasks",
      states: {
        __dispatch__: {
          on: {
            "RUN.task": "task",
            FANOUT: "__fanout__",
            SETTLED: { target: "#run.barrier", actions: "mergeWrites" },
          },
        },
        task: taskLifecycle({ target: "#run.barrier", actions: ["mergeWrites"] }),
        __fanout__: taskLifecycle({ target: "#run.barrier", actions: ["mergeWrites"] }),
      },
    },
    breakpoint: {
      on: { RESUME: { target: "barrier", actions: "clearBreakpoint" } },
    },
    done: { type: "final" },
    failed: { type: "final" },
  },
});
