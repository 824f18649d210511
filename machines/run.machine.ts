import { assign, enqueueActions, raise, setup } from "xstate";
import { runTaskStandIn, taskLifecycle } from "./task.machine.js";

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
  /** Stand-in node behaviour (see the task chart). */
  pauses: number;
  fails: boolean;
  interrupted: boolean;
  /** Fan-out bookkeeping: spawned tasks still running, and tasks waiting on an answer. */
  running: number;
  waiting: number;
}

type Outcomes = { output?: Array<{ status: string }> };
const paused = (event: unknown) =>
  ((event as Outcomes).output ?? []).some((o) => o.status === "interrupted");

/**
 * The run loop every compiled graph follows: Pregel-style super-steps.
 *
 * `idle` waits for the first `INPUT`. At `barrier` a step's writes have merged
 * and the next step's tasks are known; the driver writes a checkpoint there (no
 * child actor is running, so the snapshot is complete) and sends `STEP`.
 * `stepping` dispatches: a step with one task enters that node's own state
 * (`RUN.<node>`; in this chart the node is `task`) and follows the task
 * lifecycle; a step with several tasks enters `__fanout__`, which spawns one actor
 * per task and merges when all have finished. A task left waiting on
 * `interrupt()` keeps the run paused inside `stepping`. `breakpoint` is a static
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
      | { type: "TASK_FAILED"; error: unknown },
  },
  actors: { runTask: runTaskStandIn },
  guards: {
    anyTaskInterrupted: ({ event }) => paused(event),
    resumeAnswersTask: ({ context }) => context.interrupted || context.waiting > 0,
    finished: ({ context }) => context.pending === 0,
    overRecursionLimit: ({ context }) => context.stepsLeft <= 0,
    atBreakpoint: ({ context }) => context.breakpoint,
    hasAsNode: ({ event }) => event.type === "UPDATE" && event.asNode !== undefined,
    allTasksSettled: ({ context, event }) =>
      context.running === 1 && context.waiting === 0 && !paused(event),
  },
  actions: {
    recordTaskResults: enqueueActions(({ context, event, enqueue }) => {
      const interrupted = paused(event);
      const actorId = (event as { actorId?: string }).actorId;
      if (actorId?.startsWith("t")) {
        enqueue.stopChild(actorId);
        enqueue.assign({
          running: context.running - 1,
          waiting: context.waiting + (interrupted ? 1 : 0),
          pauses: interrupted ? context.pauses - 1 : context.pauses,
        });
      } else {
        enqueue.assign({ interrupted, pauses: interrupted ? context.pauses - 1 : context.pauses });
      }
    }),
    applyAnswers: assign(({ context }) => ({
      interrupted: false,
      running: context.running + context.waiting,
      waiting: 0,
    })),
    reportFailure: raise(({ event }) => ({
      type: "TASK_FAILED" as const,
      error: (event as { error?: unknown }).error,
    })),
    dispatchTasks: raise(({ context }) =>
      context.pending === 0
        ? { type: "SETTLED" as const }
        : context.pending === 1
          ? { type: "RUN.task" as const }
          : { type: "FANOUT" as const },
    ),
    spawnTasks: enqueueActions(({ context, enqueue }) => {
      const count = context.running > 0 ? context.running : context.pending;
      // The first `pauses` tasks pause, the others finish (or all fail).
      for (let i = 0; i < count; i++) {
        enqueue.spawnChild("runTask", {
          id: `t${i}`,
          input: { interrupt: i < context.pauses, fail: context.fails },
        });
      }
      enqueue.assign({ running: count });
    }),
    // A new run or an update as a node replaces the tasks, paused ones included.
    applyInput: assign(({ context }) => ({
      pending: context.width,
      interrupted: false,
      running: 0,
      waiting: 0,
    })),
    applyUpdate: () => {},
    applyUpdateAsNode: assign({ pending: 1, interrupted: false, running: 0, waiting: 0 }),
    // Recovered tasks are done already: only the others run.
    startStep: assign(({ context }) => ({
      stepsLeft: context.stepsLeft - 1,
      pending: Math.max(0, context.pending - context.recovered),
      recovered: 0,
    })),
    mergeWrites: assign({ pending: 0, running: 0, waiting: 0 }),
    recordBreakpoint: () => {},
    clearBreakpoint: assign({ breakpoint: false }),
    recordFailure: () => {},
    recordRecursionError: () => {},
  },
}).createMachine({
  id: "run",
  context: ({ input }) => ({
    pending: 0,
    width: 1,
    recovered: 0,
    stepsLeft: 25,
    breakpoint: false,
    pauses: 0,
    fails: false,
    interrupted: false,
    running: 0,
    waiting: 0,
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
      initial: "__dispatch__",
      entry: "dispatchTasks",
      on: {
        "RUN.task": ".task",
        FANOUT: ".__fanout__",
        SETTLED: { target: "barrier", actions: "mergeWrites" },
      },
      states: {
        __dispatch__: {},
        task: {
          ...(taskLifecycle as object),
          onDone: { target: "#run.barrier", actions: "mergeWrites" },
        },
        __fanout__: {
          entry: "spawnTasks",
          on: {
            "xstate.done.actor.*": [
              {
                guard: "allTasksSettled",
                target: "#run.barrier",
                actions: ["recordTaskResults", "mergeWrites"],
              },
              { actions: "recordTaskResults" },
            ],
            "xstate.error.actor.*": { actions: "reportFailure" },
            RESUME: { guard: "resumeAnswersTask", actions: ["applyAnswers", "spawnTasks"] },
          },
        },
      },
    },
    breakpoint: {
      on: { RESUME: { target: "barrier", actions: "clearBreakpoint" } },
    },
    done: { type: "final" },
    failed: { type: "final" },
  },
});
