/**
 * Bare XState charts shaped like a compiled chain's, piece by piece: what `chart-shape.ts`
 * adds one at a time on top of S0's machine, and what `s0-bisect.ts` carries on from its
 * fullest form to the compiled graph. Nothing of stateweaver runs in them.
 */
import {
  type AnyStateMachine,
  assign,
  enqueueActions,
  fromCallback,
  raise,
  sendTo,
  setup,
} from "xstate";

export interface ChartShape {
  /** Steps moved by a raised `TASKS.DONE` rather than by `always`. */
  raise?: boolean;
  reenter?: boolean;
  /** The compiled step's guarded list: paused, the next node, else the barrier. */
  guards?: boolean;
  /** Two actions per step (merge, checkpoint), as compiled. */
  twoActions?: boolean;
  /** The invoked task runner. */
  invoke?: boolean;
  /** The compiled graph's context fields beside `n`. */
  graphContext?: boolean;
  /** Each step a `RUN` sent to the invoked runner and answered with `TASKS.DONE` (needs `invoke`). */
  roundTrip?: boolean;
  /**
   * Start in `idle` as the compiled chart does: the root's entry raises INPUT, which enters
   * the barrier, whose entry raises the first step's event, and the input's own step (`s`)
   * runs before n0.
   */
  inputPhase?: boolean;
  /** The input phase raises with `raise`, not with `enqueueActions` as compiled. */
  plainRaise?: boolean;
}

/** Everything `ChartShape` has up to the round trip: chart-shape.ts's last row. */
export const FULL_SHAPE: ChartShape = {
  raise: true,
  reenter: true,
  guards: true,
  twoActions: true,
  invoke: true,
  graphContext: true,
};

/** A chain of `steps` nodes each adding 1 to `n`, in a chart shaped as `shape` says. */
export function chartLike(shape: ChartShape, steps = 10): AnyStateMachine {
  const workflow: Record<string, object> = {};
  const names = Array.from({ length: steps }, (_, i) => `n${i}`);
  if (shape.inputPhase) names.unshift("s");
  for (const [i, name] of names.entries()) {
    const target = i + 1 < names.length ? `#m.workflow.${names[i + 1]}` : "#m.done";
    const finish = {
      target,
      actions: shape.twoActions ? ["merge", "checkpoint"] : ["merge"],
      ...(shape.reenter && { reenter: true }),
      ...(shape.guards && { guard: { type: "goesTo", params: { to: names[i + 1] ?? "end" } } }),
    };
    const on = shape.guards
      ? [{ guard: "paused", target: "#m.done" }, finish, { target: "#m.runtime.barrier" }]
      : [finish];
    workflow[name] = {
      initial: "running",
      states: {
        running: shape.raise
          ? { tags: ["running"], entry: "run", on: { "TASKS.DONE": on } }
          : { tags: ["running"], always: on },
        interrupted: { on: { RESUME: "running" } },
      },
    };
  }
  const runner = fromCallback<{ type: "RUN" }>(({ receive, sendBack }) => {
    receive(() => sendBack({ type: "TASKS.DONE" }));
    return () => {};
  });
  const context = shape.graphContext
    ? {
        n: 0,
        run: { recursionLimit: 25, interruptBefore: [], interruptAfter: [], holds: false },
        values: {},
        step: 0,
        tasks: [],
        joins: {},
        lastRan: [],
        runSteps: 0,
        breakpoint: null,
        passed: [],
      }
    : { n: 0 };
  return setup({
    actors: { taskRunner: runner },
    guards: { paused: () => false, goesTo: () => true },
    actions: {
      merge: assign(({ context }) => ({ n: (context as { n: number }).n + 1 })),
      checkpoint: () => {},
      startRun: shape.plainRaise
        ? raise({ type: "INPUT" })
        : enqueueActions(({ enqueue }) => enqueue.raise({ type: "INPUT" })),
      dispatch: shape.plainRaise
        ? raise({ type: "RUN.s" })
        : enqueueActions(({ enqueue }) => enqueue.raise({ type: "RUN.s" })),
      run: shape.roundTrip
        ? sendTo("tasks", { type: "RUN" })
        : enqueueActions(({ enqueue }) => enqueue.raise({ type: "TASKS.DONE" })),
    },
  }).createMachine({
    id: "m",
    context,
    ...(shape.invoke && { invoke: { id: "tasks", src: "taskRunner" } }),
    initial: shape.inputPhase ? "idle" : "workflow",
    ...(shape.inputPhase && { entry: "startRun", on: { INPUT: ".runtime.barrier" } }),
    states: {
      workflow: { initial: "n0", states: workflow },
      runtime: {
        initial: "barrier",
        states: {
          barrier: shape.inputPhase
            ? { entry: ["checkpoint", "dispatch"], on: { "RUN.s": "#m.workflow.s" } }
            : {},
          fanout: {},
          breakpoint: {},
        },
      },
      idle: {},
      done: { type: "final" },
      failed: { type: "final" },
    },
  } as never) as unknown as AnyStateMachine;
}
