/**
 * Model-based tests of the task lifecycle chart (machines/task.machine.ts).
 *
 * The node runs in a promise actor, which answers asynchronously, so a pure
 * traversal never sees it finish by itself. The traversal therefore sends the
 * actor's answer explicitly, as the event the real actor would send:
 * `xstate.done.actor.runTask` (output `{ interrupted }`) or
 * `xstate.error.actor.runTask`. Which answer comes follows the stand-in node's
 * context (`pauses`, `fails`), so every path found can also be replayed on a
 * real actor, which is checked at the end.
 */
import { getShortestPaths, getSimplePaths, type StatePath } from "@xstate/graph";
import { describe, expect, it } from "vitest";
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
import { taskMachine } from "./task.machine.js";

type Input = NonNullable<InputFrom<typeof taskMachine>>;
type Snap = SnapshotFrom<typeof taskMachine>;
type Path = StatePath<Snap, AnyEventObject>;

const DONE = "xstate.done.actor.runTask";
const ERROR = "xstate.error.actor.runTask";
const RESUME = { type: "RESUME", answers: { q: "yes" } } as const;

/** What the running stand-in node answers, given its context. */
function actorAnswer(s: Snap): AnyEventObject[] {
  if (!s.matches("running")) return [];
  if (s.context.fails) return [{ type: ERROR, error: "task failed" }];
  return [{ type: DONE, output: { interrupted: s.context.pauses > 0 ? 1 : 0 } }];
}

/** Everything that can happen to a node: its actor answers, or the driver sends RESUME. */
const events = (s: Snap) => (s.status === "active" ? [...actorAnswer(s), RESUME] : []) as never[];

/** The stand-in node's configurations; together they exercise every branch. */
const scenarios: Record<string, Input> = {
  "a triggered node": {},
  "a node that pauses once": { pauses: 1 },
  "a node that throws": { fails: true },
  "a node whose tasks finished before the run paused": { runnable: 0, finished: 1 },
  "a node nobody triggered": { runnable: 0 },
};

const traversals = new Map<Input, Path[]>();
/** The shortest path to every state the chart reaches from `input` (computed once per input). */
function shortestPaths(input: Input): Path[] {
  let paths = traversals.get(input);
  if (!paths) {
    paths = getShortestPaths(taskMachine, { input, events }) as unknown as Path[];
    traversals.set(input, paths);
  }
  return paths;
}

/**
 * Ids of every state node active at some microstep of the traversal, transient
 * states included. A shortest path's prefix is the shortest path to an earlier
 * state, so the initial microsteps plus each path's last step cover every step.
 */
function statesEntered(input: Input, paths: Path[]): Set<string> {
  const snapshots = getInitialMicrosteps(taskMachine, input).map(([s]) => s);
  for (const { steps } of paths) {
    if (steps.length < 2) continue;
    const micro = getMicrosteps(taskMachine, steps.at(-2)!.state, steps.at(-1)!.event as never);
    snapshots.push(...micro.map(([s]) => s));
  }
  const ids = new Set<string>();
  for (const s of snapshots) {
    for (const [key, node] of Object.entries(taskMachine.root.states)) {
      if (s.matches(key as never)) ids.add(node.id);
    }
  }
  return ids;
}

/** The state values after each event of `sequence`, from the chart's initial state. */
function walk(input: Input, sequence: AnyEventObject[]): unknown[] {
  let [state] = initialTransition(taskMachine, input);
  return sequence.map((event) => {
    [state] = transition(taskMachine, state, event as never);
    return state.value;
  });
}

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
        { event, state: transition(taskMachine, path.state, event as never)[0] },
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
 * context after every step.
 */
async function replay(input: Input, path: Path): Promise<void> {
  const received: AnyEventObject[] = [];
  const actor = createActor(taskMachine, {
    input,
    inspect: (e) => {
      if (e.type === "@xstate.event" && e.actorRef === actor) received.push(e.event);
    },
  });
  actor.start();
  for (const [i, { event, state }] of path.steps.entries()) {
    if (i > 0 && (event.type === DONE || event.type === ERROR)) {
      await settle(actor);
      expect(received.at(-1)?.type).toBe(event.type);
      if (event.type === DONE) expect(received.at(-1)?.output).toEqual(event.output);
    } else if (i > 0) {
      actor.send(event as never);
    }
    const snap = actor.getSnapshot();
    expect({ value: snap.value, context: snap.context, status: snap.status }).toEqual({
      value: state.value,
      context: state.context,
      status: state.status,
    });
  }
  actor.stop();
}

describe("task lifecycle chart", () => {
  it("every lifecycle state is reachable", () => {
    const reached = new Set<string>();
    for (const input of Object.values(scenarios)) {
      for (const id of statesEntered(input, shortestPaths(input))) reached.add(id);
    }
    const all = Object.values(taskMachine.root.states).map((node) => node.id);
    expect(all).toEqual([
      "task.idle",
      "task.running",
      "task.interrupted",
      "task.done",
      "task.skipped",
    ]);
    expect([...reached].sort()).toEqual([...all].sort());
  });

  it("idle only decides: a node rests in running, interrupted, done or skipped", () => {
    const resting = Object.fromEntries(
      Object.entries(scenarios).map(([name, input]) => [
        name,
        [...new Set(shortestPaths(input).map((p) => p.state.value))],
      ]),
    );
    expect(resting).toEqual({
      "a triggered node": ["running", "done"],
      "a node that pauses once": ["running", "interrupted", "done"],
      // The failure is reported to the run loop (TASK_FAILED), which leaves `stepping`.
      "a node that throws": ["running"],
      "a node whose tasks finished before the run paused": ["done"],
      "a node nobody triggered": ["skipped"],
    });
  });

  it("a triggered node runs and finishes", () => {
    const [start] = initialTransition(taskMachine, {});
    expect(start.value).toBe("running");
    expect(walk({}, [{ type: DONE, output: { interrupted: 0 } }])).toEqual(["done"]);
  });

  it("a paused task waits in interrupted and resumes into running", () => {
    const sequence = [
      { type: DONE, output: { interrupted: 1 } },
      RESUME,
      { type: DONE, output: { interrupted: 0 } },
    ];
    expect(walk({ pauses: 1 }, sequence)).toEqual(["interrupted", "running", "done"]);
  });

  it("a failing task raises TASK_FAILED with the error for the run loop", () => {
    const [running] = initialTransition(taskMachine, { fails: true });
    const micro = getMicrosteps(taskMachine, running, { type: ERROR, error: "boom" } as never);
    const raised = micro
      .flatMap(([, actions]) => actions)
      .filter((a) => a.type === "xstate.raise")
      .map((a) => (a.params as { event: unknown }).event);
    expect(raised).toEqual([{ type: "TASK_FAILED", error: "boom" }]);
    expect(micro.at(-1)![0].value).toBe("running");
  });

  it("RESUME is ignored unless the task is interrupted", () => {
    const [running] = initialTransition(taskMachine, {});
    expect(running.can(RESUME)).toBe(false);
    expect(walk({}, [RESUME])).toEqual(["running"]);
  });

  it("a late answer from a stopped actor does not move an interrupted task", () => {
    const sequence = [
      { type: DONE, output: { interrupted: 1 } },
      { type: DONE, output: { interrupted: 0 } },
    ];
    expect(walk({ pauses: 1 }, sequence)).toEqual(["interrupted", "interrupted"]);
  });

  it("done and skipped are final", () => {
    const [done] = initialTransition(taskMachine, { runnable: 0, finished: 1 });
    const [skipped] = initialTransition(taskMachine, { runnable: 0 });
    expect([done.status, skipped.status]).toEqual(["done", "done"]);
    expect(done.can(RESUME)).toBe(false);
  });

  it("every transition the traversal takes agrees with a real run", async () => {
    for (const input of Object.values(scenarios)) {
      for (const path of extendedPaths(input)) await replay(input, path);
    }
  });

  it("every simple path of a node that pauses twice agrees with a real run", async () => {
    const input = { pauses: 2 };
    const paths = getSimplePaths(taskMachine, { input, events }) as unknown as Path[];
    const ends = paths.map((p) => p.steps.map((s) => s.state.value).join(" > "));
    expect(ends).toContain("running > interrupted > running > interrupted > running > done");
    for (const path of paths) await replay(input, path);
  });
});
