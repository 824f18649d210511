/**
 * Model-based tests of the task lifecycle chart (machines/task.machine.ts).
 *
 * The step's tasks (one for a node alone, several for a fan-out) run in the
 * chart's one task runner (`tasks`, invoked at the root): entering `running`
 * sends it `RUN`, and it answers asynchronously, so a pure traversal never
 * sees it answer by itself. The traversal therefore sends the runner's answer
 * explicitly, as the event the real runner would send: `TASKS.DONE` (output:
 * one `{ status }` per task it ran) or `TASKS.ERROR`. Which answer comes
 * follows the request `running` sent (`count`, `pauses`, `fail`, from the
 * stand-in context), so every path found can also be replayed on a real
 * actor, which is checked at the end.
 */
import { describe, expect, it } from "vitest";
import {
  type AnyEventObject,
  createActor,
  type InputFrom,
  initialTransition,
  type SnapshotFrom,
  transition,
} from "xstate";
import {
  answer,
  children,
  fails,
  finishes,
  gated,
  microsteps,
  pauses,
  RESUME,
  replay,
  replayExtendedPaths,
  sent,
  shortestPathsOf,
  simplePaths,
  standInAnswers,
  statesEntered,
  until,
  view,
} from "./chart-replay.js";
import { taskMachine } from "./task.machine.js";

type Input = NonNullable<InputFrom<typeof taskMachine>>;
type Snap = SnapshotFrom<typeof taskMachine>;

/** Everything that can happen to a step's work: the runner answers, or the driver sends RESUME. */
const events = (s: Snap): AnyEventObject[] =>
  s.status === "active" ? [...standInAnswers(s), RESUME] : [];

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

/** The request the stand-in runner gets for `count` tasks, `pauses` of which pause. */
const run = (count: number, pauses = 0) => ["tasks", { type: "RUN", count, pauses, fail: false }];

/** The chart, its stand-in runner held at a gate until a replay lets it answer. */
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

  it("invokes one task runner for the whole lifecycle, and only running asks it for work", () => {
    expect(taskMachine.root.invoke.map((i) => [i.id, i.src])).toEqual([["tasks", "taskRunner"]]);
    const { running, interrupted, done } = taskMachine.root.states;
    expect([running!.tags, running!.entry]).toEqual([["running"], ["runTasks"]]);
    // runTasks sends the runner its request (the request itself is checked below).
    const runTasks = taskMachine.implementations.actions.runTasks as unknown as {
      type: string;
      to: string;
    };
    expect([runTasks.type, runTasks.to]).toEqual(["xstate.sendTo", "tasks"]);
    for (const state of [running!, interrupted!, done!]) expect(state.invoke).toEqual([]);
    expect([interrupted!.tags, done!.tags]).toEqual([[], []]);
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
      // The failure (TASKS.ERROR) is the run loop's to handle: it leaves `stepping`.
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
        ["done", ["TASKS.DONE"]],
      ]);
    }
    for (const input of [{ pauses: 1 }, { width: 2, pauses: 1 }, { width: 2, pauses: 2 }]) {
      expect(sequences(input)).toEqual([
        ["running", []],
        ["interrupted", ["TASKS.DONE"]],
        ["running", ["TASKS.DONE", "RESUME"]],
        ["done", ["TASKS.DONE", "RESUME", "TASKS.DONE"]],
      ]);
    }
    expect(sequences({ fails: true })).toEqual([["running", []]]);
    expect(sequences({ width: 2, fails: true })).toEqual([["running", []]]);
  });

  it("starts running, asking the runner to run all the step's tasks at once", () => {
    const [start, actions] = initialTransition(taskMachine, {});
    expect([start.value, start.hasTag("running"), children(start)]).toEqual([
      "running",
      true,
      ["tasks"],
    ]);
    expect(sent(actions)).toEqual([run(1)]);
    expect(walk({}, [finishes])).toEqual(["done"]);
    const [fanout, fanoutActions] = initialTransition(taskMachine, { width: 3 });
    expect(children(fanout)).toEqual(["tasks"]);
    expect(sent(fanoutActions)).toEqual([run(3)]);
    expect(walk({ width: 3 }, [answer("done", "done", "done")])).toEqual(["done"]);
  });

  it("a paused task waits in interrupted, asking nothing of the runner, and resumes into running", () => {
    expect(walk({ pauses: 1 }, [pauses, RESUME, finishes])).toEqual([
      "interrupted",
      "running",
      "done",
    ]);
    const [running] = initialTransition(taskMachine, { pauses: 1 });
    const [paused, pausing] = transition(taskMachine, running, pauses as never);
    expect([paused.hasTag("running"), sent(pausing)]).toEqual([false, []]);
    // The runner stays, idle: it is the lifecycle's, not the step's.
    expect(children(paused)).toEqual(["tasks"]);
    expect(paused.context).toEqual({
      width: 1,
      pauses: 0,
      fails: false,
      interrupted: 1,
      resuming: 0,
    });
    const [again, resuming] = transition(taskMachine, paused, RESUME);
    expect([again.context.interrupted, again.context.resuming]).toEqual([0, 1]);
    expect([again.hasTag("running"), sent(resuming)]).toEqual([true, [run(1)]]);
  });

  it("one of several tasks pauses: the work waits in interrupted, and RESUME re-runs only that task", () => {
    const [running, starting] = initialTransition(taskMachine, { width: 2, pauses: 1 });
    expect(sent(starting)).toEqual([run(2, 1)]);
    const [paused] = transition(taskMachine, running, answer("interrupted", "done") as never);
    expect([paused.value, paused.hasTag("running")]).toEqual(["interrupted", false]);
    expect(paused.context).toMatchObject({ interrupted: 1, resuming: 0, pauses: 0 });
    const [again, resuming] = transition(taskMachine, paused, RESUME);
    expect([again.value, again.hasTag("running"), sent(resuming)]).toEqual([
      "running",
      true,
      [run(1)],
    ]);
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
    const [, resuming] = transition(taskMachine, paused, RESUME);
    expect(sent(resuming)).toEqual([run(2, 1)]);
  });

  it("a failing runner leaves the work running: TASKS.ERROR is the run loop's to handle", () => {
    expect(Object.keys(taskMachine.root.on)).toEqual([]);
    for (const width of [1, 2]) {
      const [running, starting] = initialTransition(taskMachine, { width, fails: true });
      expect(sent(starting)).toEqual([
        ["tasks", { type: "RUN", count: width, pauses: 0, fail: true }],
      ]);
      expect(standInAnswers(running)).toEqual([fails]);
      expect(running.can(fails as never)).toBe(false);
      const [after, actions] = transition(taskMachine, running, {
        ...fails,
        error: "boom",
      } as never);
      expect([view(after), actions]).toEqual([view(running), []]);
    }
  });

  it("RESUME is ignored unless a task is interrupted", () => {
    for (const input of [{}, { width: 2 }]) {
      const [running] = initialTransition(taskMachine, input);
      expect(running.can(RESUME)).toBe(false);
      expect(walk(input, [RESUME])).toEqual(["running"]);
      expect(sent(transition(taskMachine, running, RESUME)[1])).toEqual([]);
    }
  });

  it("a late answer does not move an interrupted task", () => {
    expect(walk({ pauses: 1 }, [pauses, finishes])).toEqual(["interrupted", "interrupted"]);
    expect(walk({ width: 2, pauses: 1 }, [answer("interrupted", "done"), finishes])).toEqual([
      "interrupted",
      "interrupted",
    ]);
  });

  it("done is final, and the runner is stopped with the lifecycle", async () => {
    const [done] = transition(
      taskMachine,
      initialTransition(taskMachine, {})[0],
      finishes as never,
    );
    expect([done.value, done.status, done.hasTag("running")]).toEqual(["done", "done", false]);
    expect(done.can(RESUME)).toBe(false);
    // On a real actor: the runner is the same through a pause and a resume, then stopped.
    const actor = createActor(taskMachine, { input: { pauses: 1 } }).start();
    const runner = actor.getSnapshot().children.tasks;
    expect(runner).toBeDefined();
    await until(() => actor.getSnapshot().matches("interrupted"));
    expect(actor.getSnapshot().value).toBe("interrupted");
    actor.send(RESUME);
    expect(actor.getSnapshot().children.tasks).toBe(runner);
    await until(() => actor.getSnapshot().status === "done");
    expect([actor.getSnapshot().value, runner!.getSnapshot().status]).toEqual(["done", "stopped"]);
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
