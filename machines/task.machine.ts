import { assign, fromCallback, sendTo, setup } from "xstate";

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

/** Stand-in tasks that run alone, finish and never fail: the charts' default. */
export const standInTasks: TaskChartContext = {
  width: 1,
  pauses: 0,
  fails: false,
  interrupted: 0,
  resuming: 0,
};

/** What the standalone charts ask their stand-in task runner to run. */
export interface StandInRequest {
  type: "RUN";
  count: number;
  pauses: number;
  fail: boolean;
}

/** How a task runner answers a `RUN`: one outcome per task it ran, or the first failure. */
export type TaskRunnerAnswer =
  | { type: "TASKS.DONE"; output: Array<{ status: "done" | "interrupted" }> }
  | { type: "TASKS.ERROR"; error: unknown };

/** The stand-in runner's answer to `request`: `count` outcomes, the first `pauses` interrupted. */
export function standInAnswer(request: StandInRequest): TaskRunnerAnswer {
  if (request.fail) return { type: "TASKS.ERROR", error: "task failed" };
  return {
    type: "TASKS.DONE",
    output: Array.from({ length: request.count }, (_, i) => ({
      status: i < request.pauses ? ("interrupted" as const) : ("done" as const),
    })),
  };
}

/**
 * The standalone charts' stand-in task runner: it answers every `RUN` a moment
 * later (as real tasks do), following the request.
 */
export const taskRunnerStandIn = fromCallback<StandInRequest>(({ receive, sendBack }) => {
  receive((request) => {
    Promise.resolve(standInAnswer(request)).then(sendBack);
  });
});

/** How many of a `TASKS.DONE` answer's outcomes are interrupted. */
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
  /**
   * What the stand-in runner is asked to run: the answered tasks again, or all of
   * them — in a run loop, those at the barrier less the ones recovered.
   */
  request: ({
    context,
  }: {
    context: TaskChartContext & { pending?: number; recovered?: number };
  }): StandInRequest => ({
    type: "RUN",
    count:
      context.resuming ||
      (context.pending === undefined ? context.width : context.pending - (context.recovered ?? 0)),
    pauses: context.pauses,
    fail: context.fails,
  }),
};

/**
 * The lifecycle of a step's work: a graph node that runs alone in its
 * super-step, or (as the run loop's `__fanout__`) all tasks of a step that has
 * several.
 *
 * Entering `running` sends `RUN` to the machine's task runner (the `tasks`
 * actor, invoked once for the whole run), which answers with `TASKS.DONE` (one
 * outcome per task) or `TASKS.ERROR`. An error is the run loop's to handle: it
 * ends the run. `interrupted` is an explicit waiting state: a paused run has
 * no task in flight, so its persisted snapshot is complete. `RESUME` with an
 * answer for it runs the node again from its start. `done` is final here; in a
 * run loop finished work goes straight to the barrier (see `taskLifecycle`).
 *
 * `compileGraph` instantiates the lifecycle once per graph node, as a child of
 * the run loop's `stepping` state, binding every guard and action to the
 * node's name; and once more as `__fanout__`, whose request covers every task
 * of a multi-task step.
 */
export const taskMachine = setup({
  types: {
    context: {} as TaskChartContext,
    input: {} as Partial<TaskChartContext> | undefined,
    events: {} as TaskRunnerAnswer | { type: "RESUME"; answers: Record<string, unknown> },
  },
  actors: { taskRunner: taskRunnerStandIn },
  guards: {
    anyTaskInterrupted: lifecycleStandIn.anyTaskInterrupted,
    resumeAnswersTask: lifecycleStandIn.resumeAnswersTask,
  },
  actions: {
    runTasks: sendTo("tasks", ({ context }) => lifecycleStandIn.request({ context })),
    recordTaskResults: assign((args) => lifecycleStandIn.recordTaskResults(args)),
    applyAnswers: assign((args) => lifecycleStandIn.applyAnswers(args)),
  },
}).createMachine({
  id: "task",
  context: ({ input }) => ({ ...standInTasks, ...input }),
  invoke: { id: "tasks", src: "taskRunner" },
  initial: "running",
  states: {
    running: {
      tags: ["running"],
      entry: "runTasks",
      on: {
        "TASKS.DONE": [
          { guard: "anyTaskInterrupted", target: "interrupted", actions: "recordTaskResults" },
          { target: "done", actions: "recordTaskResults" },
        ],
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

/**
 * The lifecycle's states for a run loop, where finished work does not rest in
 * `done` but goes straight on to `finish.target` (the barrier), one microstep
 * sooner, with `finish.actions` — which take the results from the runner's
 * answer themselves (the run loop's merge), so the context is copied once.
 */
export function taskLifecycle(finish: { target: string; actions: string[] }): object {
  const { running, interrupted } = taskMachine.config.states!;
  const [pauses] = running!.on!["TASKS.DONE"] as unknown[];
  return {
    initial: "running",
    states: {
      running: {
        ...running,
        on: { "TASKS.DONE": [pauses, { target: finish.target, actions: finish.actions }] },
      },
      interrupted,
    },
  };
}
