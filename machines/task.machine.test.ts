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
import { describe, expect, it } from "vitest";
import {
  type AnyEventObject,
  getMicrosteps,
  type InputFrom,
  initialTransition,
  type SnapshotFrom,
  transition,
} from "xstate";
import {
  answer,
  fails,
  finishes,
  gated,
  microsteps,
  pauses,
  RESUME,
  replay,
  replayExtendedPaths,
  shortestPathsOf,
  simplePaths,
  statesEntered,
  TASK_DONE,
  taskAnswers,
} from "./chart-replay.js";
import { taskMachine } from "./task.machine.js";

type Input = NonNullable<InputFrom<typeof taskMachine>>;
type Snap = SnapshotFrom<typeof taskMachine>;

/** Everything that can happen to a step's work: its actor answers, or the driver sends RESUME. */
const events = (s: Snap): AnyEventObject[] =>
  s.status === "active" ? [...taskAnswers(s), RESUME] : [];

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

/** The shortest path to every state the chart reaches from `input` (computed once per input). */
const shortestPaths = shortestPathsOf(taskMachine, { events });

/** The state values after each event of `sequence`, from the chart's initial state. */
function walk(input: Input, sequence: AnyEventObject[]): unknown[] {
  let [state] = initialTransition(taskMachine, input);
  return sequence.map((event) => {
    [state] = transition(taskMachine, state, event as never);
    return state.value;
  });
}

/** The chart, its stand-in task actor held until a replay lets it answer. */
const held = gated(taskMachine);

describe("task lifecycle chart", () => {
  it("every lifecycle state is reachable", () => {
    const reached = new Set<string>();
    for (const input of Object.values(scenarios)) {
      const passed = microsteps(taskMachine, input, shortestPaths(input), events);
      for (const id of statesEntered(taskMachine, passed)) reached.add(id);
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
        ["done", [TASK_DONE]],
      ]);
    }
    for (const input of [{ pauses: 1 }, { width: 2, pauses: 1 }, { width: 2, pauses: 2 }]) {
      expect(sequences(input)).toEqual([
        ["running", []],
        ["interrupted", [TASK_DONE]],
        ["running", [TASK_DONE, "RESUME"]],
        ["done", [TASK_DONE, "RESUME", TASK_DONE]],
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
      const micro = getMicrosteps(taskMachine, running, { ...fails, error: "boom" } as never);
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
    const inputs = Object.values(scenarios);
    const replayed = await replayExtendedPaths(taskMachine, inputs, shortestPaths, events);
    expect(replayed).toBe(23);
  });

  it("every simple path of tasks that pause more than once agrees with a real run", async () => {
    for (const input of [{ pauses: 2 }, { width: 2, pauses: 3 }]) {
      const paths = simplePaths(taskMachine, input, { events });
      const ends = paths.map((p) => p.steps.map((s) => s.state.value).join(" > "));
      expect(ends).toContain("running > interrupted > running > interrupted > running > done");
      for (const path of paths) await replay(held, input, path);
    }
  });
});
