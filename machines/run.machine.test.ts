/**
 * Model-based tests of the run loop chart (machines/run.machine.ts).
 *
 * The traversal sends what the driver sends (INPUT, UPDATE, STEP, RESUME) plus,
 * while the node region is running, the answer its promise actor would send
 * (`xstate.done.actor.runTask` / `xstate.error.actor.runTask`), chosen by the
 * stand-in node's context (`pauses`, `fails`). TASK_FAILED is not sent: only
 * the failing task raises it. So every path found is one a real actor can
 * take, which is checked at the end.
 */
import { getShortestPaths, type StatePath } from "@xstate/graph";
import { describe, expect, it, vi } from "vitest";
import {
  type AnyEventObject,
  createActor,
  getInitialMicrosteps,
  getMicrosteps,
  type InputFrom,
  initialTransition,
  type SnapshotFrom,
  transition,
} from "xstate";
import { runMachine } from "./run.machine.js";
import { taskMachine } from "./task.machine.js";

type Input = NonNullable<InputFrom<typeof runMachine>>;
type Snap = SnapshotFrom<typeof runMachine>;
type Path = StatePath<Snap, AnyEventObject>;

const DONE = "xstate.done.actor.runTask";
const ERROR = "xstate.error.actor.runTask";
const INPUT = { type: "INPUT" } as const;
const STEP = { type: "STEP" } as const;
const RESUME = { type: "RESUME", answers: { q: "yes" } } as const;
const UPDATE = { type: "UPDATE" } as const;
const UPDATE_AS_NODE = { type: "UPDATE", asNode: "task" } as const;
const finishes = { type: DONE, output: { interrupted: 0 } };
const pauses = { type: DONE, output: { interrupted: 1 } };

/** What the running stand-in node answers, given its context. */
function actorAnswer(s: Snap): AnyEventObject[] {
  if (!s.matches("stepping.task.running" as never)) return [];
  if (s.context.fails) return [{ type: ERROR, error: "task failed" }];
  return [s.context.pauses > 0 ? pauses : finishes];
}

/**
 * Everything that can happen next. A finished actor takes no more events (a
 * pure transition would still apply the root's INPUT to a `done` snapshot).
 */
const events = (s: Snap) =>
  (s.status === "active"
    ? [...actorAnswer(s), INPUT, UPDATE, UPDATE_AS_NODE, STEP, RESUME]
    : []) as never[];

/**
 * The stand-in graph's configurations; together they exercise every branch.
 * A small recursion budget keeps the state space small (INPUT can restart a
 * run from anywhere, and each step spends one).
 */
const scenarios: Record<string, Input> = {
  "a one-node run": { stepsLeft: 1 },
  "a node that pauses once": { stepsLeft: 1, pauses: 1 },
  "a node that throws": { stepsLeft: 1, fails: true },
  "a static breakpoint": { stepsLeft: 1, breakpoint: true },
  "a step that does not trigger the node": { stepsLeft: 1, runnable: 0 },
  "a step whose task finished before the run paused": { stepsLeft: 1, runnable: 0, finished: 1 },
  "an exhausted recursion budget": { stepsLeft: 0 },
};

const traversals = new Map<Input, Path[]>();
/** The shortest path to every state the chart reaches from `input` (computed once per input). */
function shortestPaths(input: Input): Path[] {
  let paths = traversals.get(input);
  if (!paths) {
    paths = getShortestPaths(runMachine, { input, events }) as unknown as Path[];
    traversals.set(input, paths);
  }
  return paths;
}

/** Every state node of the chart, with the dotted path `snapshot.matches` takes. */
const stateNodes: Array<{ id: string; path: string }> = [];
const visit = (node: { states: Record<string, { id: string; path: string[] }> }) => {
  for (const child of Object.values(node.states)) {
    stateNodes.push({ id: child.id, path: child.path.join(".") });
    visit(child as never);
  }
};
visit(runMachine.root);

/**
 * Ids of every state node active at some microstep of the traversal, transient
 * states included. A shortest path's prefix is the shortest path to an earlier
 * state, so the initial microsteps plus each path's last step cover every step.
 */
function statesEntered(input: Input, paths: Path[]): Set<string> {
  const snapshots = getInitialMicrosteps(runMachine, input).map(([s]) => s);
  for (const { steps } of paths) {
    if (steps.length < 2) continue;
    const micro = getMicrosteps(runMachine, steps.at(-2)!.state, steps.at(-1)!.event as never);
    snapshots.push(...micro.map(([s]) => s));
  }
  const ids = new Set<string>();
  for (const s of snapshots) {
    for (const node of stateNodes) if (s.matches(node.path as never)) ids.add(node.id);
  }
  return ids;
}

/** The state values after each event of `sequence`, from the chart's initial state. */
function walk(input: Input, sequence: AnyEventObject[]): unknown[] {
  let [state] = initialTransition(runMachine, input);
  return sequence.map((event) => {
    [state] = transition(runMachine, state, event as never);
    return state.value;
  });
}

/** The snapshot at `barrier` after INPUT. */
const atBarrier = (input: Input = {}) => {
  const [idle] = initialTransition(runMachine, input);
  return getMicrosteps(runMachine, idle, INPUT).at(-1)![0];
};

/**
 * Each shortest path, extended by every event the traversal offers at its end
 * (so self-loops, the events a state ignores, are checked as well).
 */
function extendedPaths(input: Input): Path[] {
  return shortestPaths(input).flatMap((path) =>
    (events(path.state) as AnyEventObject[]).map((event) => ({
      ...path,
      steps: [
        ...path.steps,
        { event, state: transition(runMachine, path.state, event as never)[0] },
      ],
    })),
  );
}

/** Let the running promise actor answer: flush microtasks until the actor moves (bounded). */
async function settle(actor: { getSnapshot(): unknown }): Promise<void> {
  const before = actor.getSnapshot();
  for (let i = 0; i < 20 && actor.getSnapshot() === before; i++) await Promise.resolve();
}

/**
 * Run `path` on a real actor: send the driver's events, let the real promise
 * actor answer in place of the traversal's actor events, and compare state and
 * context after every step (the context records what the actor answered).
 */
async function replay(input: Input, path: Path): Promise<void> {
  const view = (s: Snap) => ({ value: s.value, context: s.context, status: s.status });
  const actor = createActor(runMachine, { input }).start();
  const real = [];
  for (const [i, { event }] of path.steps.entries()) {
    if (i > 0 && (event.type === DONE || event.type === ERROR)) await settle(actor);
    else if (i > 0) actor.send(event as never);
    real.push(view(actor.getSnapshot()));
  }
  actor.stop();
  expect(real).toEqual(path.steps.map((step) => view(step.state)));
}

describe("run loop chart", () => {
  it("has one node region that follows the task lifecycle", () => {
    const region = runMachine.getStateNodeById("run.stepping.task");
    expect(Object.keys(region.states)).toEqual(Object.keys(taskMachine.root.states));
    expect(region.initial.target.map((t) => t.key)).toEqual(["idle"]);
  });

  it("every run loop and lifecycle state is reachable", () => {
    const reached = new Set<string>();
    for (const input of Object.values(scenarios)) {
      for (const id of statesEntered(input, shortestPaths(input))) reached.add(id);
    }
    const all = stateNodes.map((n) => n.id);
    expect(all).toHaveLength(12);
    expect([...reached].sort()).toEqual([...all].sort());
  });

  it("a run steps until no tasks are left: INPUT, STEP, task done, barrier, STEP, done", () => {
    expect(walk({}, [INPUT, STEP, finishes, STEP])).toEqual([
      "barrier",
      { stepping: { task: "running" } },
      "barrier",
      "done",
    ]);
  });

  it("a paused task holds the run in stepping until RESUME runs it again", () => {
    expect(walk({ pauses: 1 }, [INPUT, STEP, pauses, RESUME, finishes, STEP])).toEqual([
      "barrier",
      { stepping: { task: "running" } },
      { stepping: { task: "interrupted" } },
      { stepping: { task: "running" } },
      "barrier",
      "done",
    ]);
  });

  it("a static breakpoint stops before the step and RESUME returns to the barrier", () => {
    expect(walk({ breakpoint: true }, [INPUT, STEP, RESUME, STEP])).toEqual([
      "barrier",
      "breakpoint",
      "barrier",
      { stepping: { task: "running" } },
    ]);
  });

  it("a failing task fails the run", () => {
    const error = { type: ERROR, error: "task failed" };
    expect(walk({ fails: true }, [INPUT, STEP, error])).toEqual([
      "barrier",
      { stepping: { task: "running" } },
      "failed",
    ]);
  });

  it("the recursion limit fails the run at the barrier", () => {
    expect(walk({ stepsLeft: 1 }, [INPUT, STEP, finishes, INPUT, STEP])).toEqual([
      "barrier",
      { stepping: { task: "running" } },
      "barrier",
      "barrier",
      "failed",
    ]);
  });

  it("a node that is not triggered is skipped and the step still completes", () => {
    const stepped = getMicrosteps(runMachine, atBarrier({ runnable: 0 }), STEP);
    const values = stepped.map(([s]) => JSON.stringify(s.value));
    expect(values.filter((v, i) => v !== values[i - 1]).map((v) => JSON.parse(v))).toEqual([
      { stepping: { task: "idle" } },
      { stepping: { task: "skipped" } },
      "barrier",
    ]);
  });

  it("updateState as a node schedules that node's task", () => {
    expect(walk({}, [UPDATE_AS_NODE, STEP])).toEqual([
      "barrier",
      { stepping: { task: "running" } },
    ]);
    expect(walk({}, [UPDATE])).toEqual(["idle"]);
  });

  it("RESUME at the barrier does not change state", () => {
    const barrier = atBarrier();
    expect(barrier.can(RESUME)).toBe(false);
    expect(walk({}, [INPUT, RESUME])).toEqual(["barrier", "barrier"]);
  });

  it("STEP while stepping does nothing, nor before the first INPUT", () => {
    const stepping = getMicrosteps(runMachine, atBarrier(), STEP).at(-1)![0];
    expect(stepping.value).toEqual({ stepping: { task: "running" } });
    expect(stepping.can(STEP)).toBe(false);
    expect(walk({}, [INPUT, STEP, STEP])).toEqual([
      "barrier",
      { stepping: { task: "running" } },
      { stepping: { task: "running" } },
    ]);
    expect(walk({}, [STEP])).toEqual(["idle"]);
  });

  it("done and failed are final: the actor takes no more events", async () => {
    const done = createActor(runMachine, { input: {} }).start();
    done.send(INPUT);
    done.send(STEP);
    await settle(done);
    done.send(STEP);
    const failed = createActor(runMachine, { input: { stepsLeft: 0 } }).start();
    failed.send(INPUT);
    failed.send(STEP);
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    for (const actor of [done, failed]) actor.send(INPUT);
    expect(warn).toHaveBeenCalledTimes(2);
    expect(String(warn.mock.calls[0]![0])).toMatch(/already reached its final state/);
    warn.mockRestore();
    expect([done, failed].map((a) => [a.getSnapshot().value, a.getSnapshot().status])).toEqual([
      ["done", "done"],
      ["failed", "done"],
    ]);
  });

  it("every transition the traversal takes agrees with a real run", async () => {
    let replayed = 0;
    for (const input of Object.values(scenarios)) {
      for (const path of extendedPaths(input)) {
        await replay(input, path);
        replayed++;
      }
    }
    expect(replayed).toBeGreaterThan(100);
  });
});
