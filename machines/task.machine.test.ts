/**
 * Model-based tests of the task lifecycle chart (machines/task.machine.ts).
 *
 * The step's tasks (one for a node alone, several for a fan-out) run in one
 * promise actor, which answers asynchronously, so a pure traversal never sees
 * it finish by itself. The traversal therefore sends the actor's answer
 * explicitly, as the event the real actor would send:
 * `xstate.done.actor.runTask` (output: one `{ status }` per task it ran) or
 * `xstate.error.actor.runTask`. Which answer comes follows the input the chart
 * gave the actor (`count`, `pauses`, `fail`, from the stand-in context), so
 * every path found can also be replayed on a real actor, which is checked at
 * the end.
 */
import { getShortestPaths, getSimplePaths, type StatePath } from "@xstate/graph";
import { describe, expect, it } from "vitest";
import {
  type AnyEventObject,
  createActor,
  fromPromise,
  getInitialMicrosteps,
  getMicrosteps,
  type InputFrom,
  initialTransition,
  type SnapshotFrom,
  transition,
} from "xstate";
import { runTaskStandIn, taskMachine } from "./task.machine.js";

type Input = NonNullable<InputFrom<typeof taskMachine>>;
type Snap = SnapshotFrom<typeof taskMachine>;
type Path = StatePath<Snap, AnyEventObject>;
type TaskInput = { count: number; pauses: number; fail: boolean };
type Status = "done" | "interrupted";

const DONE = "xstate.done.actor.runTask";
const ERROR = "xstate.error.actor.runTask";
const RESUME = { type: "RESUME", answers: { q: "yes" } } as const;
/** The actor's answer: one outcome per task it ran, in order. */
const answer = (...statuses: Status[]) => ({
  type: DONE,
  actorId: "runTask",
  output: statuses.map((status) => ({ status })),
});
const finishes = answer("done");
const pauses = answer("interrupted");
const throws = { type: ERROR, actorId: "runTask", error: "task failed" };

/** What the running stand-in tasks answer: they follow the input the chart gave their actor. */
function actorAnswer(s: Snap): AnyEventObject[] {
  const child = s.children.runTask;
  if (!child) return [];
  const { count, pauses, fail } = child.getSnapshot().input as TaskInput;
  if (fail) return [throws];
  return [
    answer(...Array.from({ length: count }, (_, i) => (i < pauses ? "interrupted" : "done"))),
  ];
}

/** Everything that can happen to a step's work: its actor answers, or the driver sends RESUME. */
const events = (s: Snap) => (s.status === "active" ? [...actorAnswer(s), RESUME] : []) as never[];

/** The stand-in tasks' configurations; together they exercise every branch. */
const scenarios: Record<string, Input> = {
  "a node that finishes": {},
  "a node that pauses once": { pauses: 1 },
  "a node that throws": { fails: true },
  "a fan-out whose tasks finish": { width: 2 },
  "a fan-out where one task pauses": { width: 2, pauses: 1 },
  "a fan-out where both tasks pause": { width: 2, pauses: 2 },
  "a fan-out whose tasks throw": { width: 2, fails: true },
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
 * states included: the initial microsteps, and those of every event offered in
 * every state reached.
 */
function statesEntered(input: Input, paths: Path[]): Set<string> {
  const snapshots = getInitialMicrosteps(taskMachine, input).map(([s]) => s);
  for (const { state } of paths) {
    for (const event of events(state) as AnyEventObject[]) {
      snapshots.push(...getMicrosteps(taskMachine, state, event as never).map(([s]) => s));
    }
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

/** Flush the event loop until `done()` holds (bounded). */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 50 && !done(); i++) await new Promise((r) => setImmediate(r));
}

/**
 * The stand-in tasks' actor, held until the replay lets it answer: then it
 * runs the real stand-in with the input the chart gave it.
 */
function gated(gates: Map<string, () => void>) {
  const standIn = (runTaskStandIn as unknown as { config: (args: unknown) => Promise<unknown> })
    .config;
  return fromPromise<unknown, TaskInput>(async (args) => {
    await new Promise<void>((open) => gates.set(args.self.id, open));
    return standIn(args);
  });
}

/** The state, context, status and children of a snapshot. */
const view = (s: Snap) => ({
  value: s.value,
  context: s.context,
  status: s.status,
  children: Object.keys(s.children).sort(),
});

/** `expect(actual).toEqual(expected)`, with a quick check first (replays compare a lot). */
function same(actual: unknown, expected: unknown): void {
  if (JSON.stringify(actual) !== JSON.stringify(expected)) expect(actual).toEqual(expected);
}

/**
 * Run `path` on a real actor: send the driver's events, let the real stand-in
 * actor answer in place of the traversal's actor events (checking it answers
 * the same), and compare state, context and children after every step.
 */
async function replay(input: Input, path: Path): Promise<void> {
  const gates = new Map<string, () => void>();
  const received: AnyEventObject[] = [];
  const actor = createActor(taskMachine.provide({ actors: { runTask: gated(gates) as never } }), {
    input,
    inspect: (e) => {
      if (e.type === "@xstate.event" && e.actorRef === actor) received.push(e.event);
    },
  });
  actor.start();
  const real = [view(actor.getSnapshot())];
  for (const { event } of path.steps.slice(1)) {
    if (event.type === DONE || event.type === ERROR) {
      const before = received.length;
      if (!gates.has("runTask")) expect.fail("no running actor runTask");
      gates.get("runTask")!();
      gates.delete("runTask");
      await until(() => received.length > before);
      const answer = received.at(-1)!;
      same([answer.type, answer.actorId], [event.type, "runTask"]);
      if (event.type === DONE) same(answer.output, event.output);
    } else {
      actor.send(event as never);
    }
    real.push(view(actor.getSnapshot()));
  }
  actor.stop();
  same(
    real,
    path.steps.map((step) => view(step.state)),
  );
}

describe("task lifecycle chart", () => {
  it("every lifecycle state is reachable", () => {
    const reached = new Set<string>();
    for (const input of Object.values(scenarios)) {
      for (const id of statesEntered(input, shortestPaths(input))) reached.add(id);
    }
    const all = Object.values(taskMachine.root.states).map((node) => node.id);
    expect(all).toEqual(["task.running", "task.interrupted", "task.done"]);
    expect([...reached].sort()).toEqual([...all].sort());
  });

  it("a step's work rests in running, interrupted or done, depending on what its tasks do", () => {
    const resting = Object.fromEntries(
      Object.entries(scenarios).map(([name, input]) => [
        name,
        [...new Set(shortestPaths(input).map((p) => p.state.value))],
      ]),
    );
    expect(resting).toEqual({
      "a node that finishes": ["running", "done"],
      "a node that pauses once": ["running", "interrupted", "done"],
      // The failure is reported to the run loop (TASK_FAILED), which leaves `stepping`.
      "a node that throws": ["running"],
      "a fan-out whose tasks finish": ["running", "done"],
      "a fan-out where one task pauses": ["running", "interrupted", "done"],
      "a fan-out where both tasks pause": ["running", "interrupted", "done"],
      "a fan-out whose tasks throw": ["running"],
    });
  });

  it("the shortest event sequences: finish, pause and resume, fail", () => {
    const sequences = (input: Input) =>
      shortestPaths(input).map((p) => [p.state.value, p.steps.slice(1).map((s) => s.event.type)]);
    for (const input of [{}, { width: 2 }]) {
      expect(sequences(input)).toEqual([
        ["running", []],
        ["done", [DONE]],
      ]);
    }
    for (const input of [{ pauses: 1 }, { width: 2, pauses: 1 }, { width: 2, pauses: 2 }]) {
      expect(sequences(input)).toEqual([
        ["running", []],
        ["interrupted", [DONE]],
        ["running", [DONE, "RESUME"]],
        ["done", [DONE, "RESUME", DONE]],
      ]);
    }
    expect(sequences({ fails: true })).toEqual([["running", []]]);
    expect(sequences({ width: 2, fails: true })).toEqual([["running", []]]);
  });

  it("starts running, with one actor invoked for all the step's tasks", () => {
    const [start] = initialTransition(taskMachine, {});
    expect(start.value).toBe("running");
    expect(Object.keys(start.children)).toEqual(["runTask"]);
    expect(start.children.runTask!.getSnapshot().input).toEqual({
      count: 1,
      pauses: 0,
      fail: false,
    });
    expect(walk({}, [finishes])).toEqual(["done"]);
    const [fanout] = initialTransition(taskMachine, { width: 3 });
    expect(Object.keys(fanout.children)).toEqual(["runTask"]);
    expect(fanout.children.runTask!.getSnapshot().input).toEqual({
      count: 3,
      pauses: 0,
      fail: false,
    });
    expect(walk({ width: 3 }, [answer("done", "done", "done")])).toEqual(["done"]);
  });

  it("a paused task waits in interrupted, with no actor, and resumes into running", () => {
    expect(walk({ pauses: 1 }, [pauses, RESUME, finishes])).toEqual([
      "interrupted",
      "running",
      "done",
    ]);
    const [running] = initialTransition(taskMachine, { pauses: 1 });
    const [paused] = transition(taskMachine, running, pauses as never);
    expect(Object.keys(paused.children)).toEqual([]);
    expect(paused.context).toEqual({
      width: 1,
      pauses: 0,
      fails: false,
      interrupted: 1,
      resuming: 0,
    });
    const [again] = transition(taskMachine, paused, RESUME);
    expect([again.context.interrupted, again.context.resuming]).toEqual([0, 1]);
    expect(again.children.runTask!.getSnapshot().input).toEqual({
      count: 1,
      pauses: 0,
      fail: false,
    });
  });

  it("one of several tasks pauses: the work waits in interrupted, and RESUME re-runs only that task", () => {
    const [running] = initialTransition(taskMachine, { width: 2, pauses: 1 });
    expect(running.children.runTask!.getSnapshot().input).toEqual({
      count: 2,
      pauses: 1,
      fail: false,
    });
    const [paused] = transition(taskMachine, running, answer("interrupted", "done") as never);
    expect([paused.value, Object.keys(paused.children)]).toEqual(["interrupted", []]);
    expect(paused.context).toMatchObject({ interrupted: 1, resuming: 0, pauses: 0 });
    const [again] = transition(taskMachine, paused, RESUME);
    expect([again.value, Object.keys(again.children)]).toEqual(["running", ["runTask"]]);
    expect(again.children.runTask!.getSnapshot().input).toEqual({
      count: 1,
      pauses: 0,
      fail: false,
    });
    const [done] = transition(taskMachine, again, finishes as never);
    expect([done.value, done.status, done.context.resuming]).toEqual(["done", "done", 0]);
  });

  it("every task pauses: RESUME re-runs them all, and a task may pause again", () => {
    expect(
      walk({ width: 2, pauses: 3 }, [
        answer("interrupted", "interrupted"),
        RESUME,
        answer("interrupted", "done"),
        RESUME,
        finishes,
      ]),
    ).toEqual(["interrupted", "running", "interrupted", "running", "done"]);
    const [running] = initialTransition(taskMachine, { width: 2, pauses: 3 });
    const [paused] = transition(
      taskMachine,
      running,
      answer("interrupted", "interrupted") as never,
    );
    expect(paused.context).toMatchObject({ interrupted: 2, pauses: 1 });
    const [again] = transition(taskMachine, paused, RESUME);
    expect(again.children.runTask!.getSnapshot().input).toEqual({
      count: 2,
      pauses: 1,
      fail: false,
    });
  });

  it("a failing task raises TASK_FAILED with the error for the run loop", () => {
    for (const width of [1, 2]) {
      const [running] = initialTransition(taskMachine, { width, fails: true });
      const micro = getMicrosteps(taskMachine, running, { ...throws, error: "boom" } as never);
      const raised = micro
        .flatMap(([, actions]) => actions)
        .filter((a) => a.type === "xstate.raise")
        .map((a) => (a.params as { event: unknown }).event);
      expect(raised).toEqual([{ type: "TASK_FAILED", error: "boom" }]);
      expect(micro.at(-1)![0].value).toBe("running");
    }
  });

  it("RESUME is ignored unless a task is interrupted", () => {
    for (const input of [{}, { width: 2 }]) {
      const [running] = initialTransition(taskMachine, input);
      expect(running.can(RESUME)).toBe(false);
      expect(walk(input, [RESUME])).toEqual(["running"]);
    }
  });

  it("a late answer from a stopped actor does not move an interrupted task", () => {
    expect(walk({ pauses: 1 }, [pauses, finishes])).toEqual(["interrupted", "interrupted"]);
    expect(walk({ width: 2, pauses: 1 }, [answer("interrupted", "done"), finishes])).toEqual([
      "interrupted",
      "interrupted",
    ]);
  });

  it("done is final", () => {
    const [done] = transition(
      taskMachine,
      initialTransition(taskMachine, {})[0],
      finishes as never,
    );
    expect([done.value, done.status]).toEqual(["done", "done"]);
    expect(done.can(RESUME)).toBe(false);
  });

  it("every transition the traversal takes agrees with a real run", async () => {
    let replayed = 0;
    for (const input of Object.values(scenarios)) {
      for (const path of extendedPaths(input)) {
        await replay(input, path);
        replayed++;
      }
    }
    expect(replayed).toBe(23);
  });

  it("every simple path of tasks that pause more than once agrees with a real run", async () => {
    for (const input of [{ pauses: 2 }, { width: 2, pauses: 3 }]) {
      const paths = getSimplePaths(taskMachine, { input, events }) as unknown as Path[];
      const ends = paths.map((p) => p.steps.map((s) => s.state.value).join(" > "));
      expect(ends).toContain("running > interrupted > running > interrupted > running > done");
      for (const path of paths) await replay(input, path);
    }
  });
});
