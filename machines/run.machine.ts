import { assign, enqueueActions, raise, sendTo, setup } from "xstate";
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
  /** Tasks of the next step that finished before a crash: restored as done, they do not run again. */
  recovered: number;
  /** Steps left before the recursion limit. */
  stepsLeft: number;
  breakpoint: boolean;
  /** The driver holds the run at every barrier (durability "sync", updateState) until it sends STEP. */
  holds: boolean;
  /** Stand-in task behaviour (see the task chart). */
  pauses: number;
  fails: boolean;
  interrupted: number;
  resuming: number;
}

/** What a run does when it reaches the barrier; `compileGraph` decides with the real context. */
type BarrierDecision =
  | { type: "BREAKPOINT" }
  | { type: "FINISH" }
  | { type: "RECURSION_LIMIT" }
  | { type: "SETTLED" }
  | { type: "RUN.task" }
  | { type: "FANOUT" };

function decide(context: RunChartContext): BarrierDecision {
  // A breakpoint first: interruptAfter on the last node must stop before `done`.
  if (context.breakpoint) return { type: "BREAKPOINT" };
  if (context.pending === 0) return { type: "FINISH" };
  if (context.stepsLeft <= 0) return { type: "RECURSION_LIMIT" };
  const runs = context.pending - context.recovered;
  return { type: runs === 0 ? "SETTLED" : runs === 1 ? "RUN.task" : "FANOUT" };
}

/**
 * The run loop every compiled graph follows: Pregel-style super-steps.
 *
 * `idle` waits for the first `INPUT`. At `barrier` a step's writes have merged
 * and the next step's tasks are known. Entering it, the run checkpoints (no
 * task is running, so the snapshot is complete) and decides what comes next,
 * raising it as an event: `RUN.<node>` enters that node's own state when the
 * step has one task (in this chart the node is `task`), `FANOUT` enters
 * `__fanout__`, which asks for all of a step's tasks at once, `SETTLED` merges a
 * step whose tasks all finished before a crash, `FINISH` ends a run with nothing
 * left to do, and `BREAKPOINT` and `RECURSION_LIMIT` stop it. When the driver
 * holds the run at the barrier, nothing is raised until it sends `STEP`.
 * Both lifecycles ask the run's one task runner (the `tasks` actor, invoked for
 * the whole run) to run their tasks; when all are done the step goes straight
 * back to the barrier, while a task left waiting on `interrupt()` keeps the run
 * paused in `interrupted` until `RESUME` re-runs the answered tasks. A task that
 * throws (`TASKS.ERROR`) fails the run. `breakpoint` is a static
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
      | BarrierDecision
      | TaskRunnerAnswer,
  },
  actors: { taskRunner: taskRunnerStandIn },
  guards: {
    anyTaskInterrupted: lifecycleStandIn.anyTaskInterrupted,
    resumeAnswersTask: lifecycleStandIn.resumeAnswersTask,
    hasAsNode: ({ event }) => event.type === "UPDATE" && event.asNode !== undefined,
  },
  actions: {
    runTasks: sendTo("tasks", ({ context }) => lifecycleStandIn.request({ context })),
    recordTaskResults: assign((args) => lifecycleStandIn.recordTaskResults(args)),
    applyAnswers: assign((args) => lifecycleStandIn.applyAnswers(args)),
    checkpoint: () => {},
    dispatch: raise(({ context }) => decide(context)),
    dispatchUnlessHeld: enqueueActions(({ context, enqueue }) => {
      if (!context.holds) enqueue.raise(decide(context));
    }),
    // A new run or an update as a node replaces the tasks, paused ones included. (In the
    // stand-in, the first step's `recovered` tasks stand for a barrier restored after a crash.)
    applyInput: assign(({ context }) => ({ pending: context.width, interrupted: 0, resuming: 0 })),
    applyUpdate: () => {},
    applyUpdateAsNode: assign({ pending: 1, recovered: 0, interrupted: 0, resuming: 0 }),
    // The step's results are merged (a runner's answer included): nothing waits any more,
    // and the step counts toward the recursion limit.
    mergeWrites: assign(({ context }) => ({
      pending: 0,
      recovered: 0,
      interrupted: 0,
      resuming: 0,
      stepsLeft: context.stepsLeft - 1,
    })),
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
    holds: false,
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
      entry: ["checkpoint", "dispatchUnlessHeld"],
      on: {
        STEP: { actions: "dispatch" },
        BREAKPOINT: { target: "breakpoint", actions: "recordBreakpoint" },
        FINISH: "done",
        RECURSION_LIMIT: { target: "failed", actions: "recordRecursionError" },
        SETTLED: { target: "barrier", reenter: true, actions: "mergeWrites" },
        "RUN.task": "stepping.task",
        FANOUT: "stepping.__fanout__",
      },
    },
    stepping: {
      // Always entered by a barrier's RUN.<node> or FANOUT; XState wants a default anyway.
      initial: "__fanout__",
      states: {
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
