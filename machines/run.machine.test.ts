/**
 * Model-based tests of the run loop chart (machines/run.machine.ts).
 *
 * The traversal sends what the driver sends (INPUT, UPDATE, STEP, RESUME) plus
 * the answer the running task actor would send: the invoked `runTask` of the
 * lone task's state or of `__fanout__` (`xstate.done.actor.runTask`, its output
 * one `{ status }` per task it ran, or `xstate.error.actor.runTask`). Each
 * answer follows the input the chart gave that actor (`count`, `pauses`,
 * `fail`, from the stand-in context). TASK_FAILED, `RUN.task`, FANOUT and
 * SETTLED are not sent: the chart raises them itself. So every path found is
 * one a real actor can take, which is checked at the end.
 */
import { describe, expect, it, vi } from "vitest";
import {
  type AnyEventObject,
  createActor,
  getMicrosteps,
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
  passesThrough,
  pauses,
  RESUME,
  replay,
  replayExtendedPaths,
  same,
  shortestPathsOf,
  simplePaths,
  stateNodes,
  statesEntered,
  TASK_DONE,
  TASK_ERROR,
  type TaskInput,
  type TaskStatus,
  taskAnswers,
  until,
  view,
} from "./chart-replay.js";
import { runMachine } from "./run.machine.js";
import { taskMachine } from "./task.machine.js";

type Input = NonNullable<InputFrom<typeof runMachine>>;
type Snap = SnapshotFrom<typeof runMachine>;

const INPUT = { type: "INPUT" } as const;
const STEP = { type: "STEP" } as const;
const UPDATE = { type: "UPDATE" } as const;
const UPDATE_AS_NODE = { type: "UPDATE", asNode: "task" } as const;
/** The events the chart raises for itself, in `stepping.__dispatch__` only. */
const DISPATCH = [{ type: "RUN.task" }, { type: "FANOUT" }, { type: "SETTLED" }] as const;

/**
 * Everything that can happen next. A finished actor takes no more events (a
 * pure transition would still apply the root's INPUT to a `done` snapshot).
 * Every driver event is offered everywhere: the one task actor of a step is
 * invoked, so leaving `stepping` (INPUT, UPDATE as a node) stops it, and the
 * events a state must ignore are checked as well.
 */
const events = (s: Snap): AnyEventObject[] =>
  s.status !== "active" ? [] : [...taskAnswers(s), INPUT, UPDATE, UPDATE_AS_NODE, STEP, RESUME];

/** Snapshots with the same state and context differ by the task actor they hold. */
const serializeState = (s: Snap) =>
  JSON.stringify({
    value: s.value,
    context: s.context,
    children: Object.keys(s.children)
      .sort()
      .map((id) => [id, s.children[id]!.getSnapshot().input]),
  });

/**
 * The stand-in graph's configurations; together they exercise every branch.
 * A small recursion budget keeps the state space small (INPUT can restart a
 * run from anywhere, and each step spends one).
 */
const scenarios: Record<string, Input> = {
  "a one-task step": { stepsLeft: 1 },
  "a task that pauses once": { stepsLeft: 1, pauses: 1 },
  "a task that throws": { stepsLeft: 1, fails: true },
  "a static breakpoint": { stepsLeft: 1, breakpoint: true },
  "a fan-out": { stepsLeft: 1, width: 2 },
  "a fan-out where one task pauses": { stepsLeft: 1, width: 2, pauses: 1 },
  "a fan-out where every task pauses": { stepsLeft: 1, width: 2, pauses: 2 },
  "a fan-out whose tasks throw": { stepsLeft: 1, width: 2, fails: true },
  "a restart whose tasks all finished before the crash": { stepsLeft: 1, width: 2, recovered: 2 },
  "a restart with one task of a fan-out left": { stepsLeft: 1, width: 2, recovered: 1 },
  "an exhausted recursion budget": { stepsLeft: 0 },
};

/** The shortest path to every state the chart reaches from `input` (computed once per input). */
const shortestPaths = shortestPathsOf(runMachine, { events, serializeState });

/** Every snapshot the traversal from `input` passes through, transient microsteps included. */
const passed = (input: Input) => microsteps(runMachine, input, shortestPaths(input), events);

/** The snapshots after each event of `sequence`, from the chart's initial state. */
function snapshots(input: Input, sequence: AnyEventObject[]): Snap[] {
  let [state] = initialTransition(runMachine, input);
  return sequence.map((event) => {
    [state] = transition(runMachine, state, event as never);
    return state;
  });
}

/** The state values after each event of `sequence`. */
const walk = (input: Input, sequence: AnyEventObject[]) =>
  snapshots(input, sequence).map((s) => s.value);

/** The snapshot at `barrier` after INPUT. */
const atBarrier = (input: Input = {}) => snapshots(input, [INPUT])[0]!;

/** The chart, its stand-in task actor held until a replay lets it answer. */
const held = gated(runMachine);

describe("run loop chart", () => {
  it("stepping holds one state at a time: __dispatch__, the node's lifecycle, or __fanout__", () => {
    const stepping = runMachine.getStateNodeById("run.stepping");
    expect(stepping.type).toBe("compound");
    expect(Object.keys(stepping.states)).toEqual(["__dispatch__", "task", "__fanout__"]);
    expect(stepping.initial.target.map((t) => t.key)).toEqual(["__dispatch__"]);
    // The dispatch events are taken in __dispatch__ only.
    expect(Object.keys(stepping.on)).toEqual([]);
    const dispatch = runMachine.getStateNodeById("run.stepping.__dispatch__");
    expect(Object.keys(dispatch.on)).toEqual(["RUN.task", "FANOUT", "SETTLED"]);
    expect(
      (["RUN.task", "FANOUT"] as const).map((type) =>
        dispatch.on[type]![0]!.target!.map((t) => t.id),
      ),
    ).toEqual([["run.stepping.task"], ["run.stepping.__fanout__"]]);
    expect(dispatch.on.SETTLED![0]!.target!.map((t) => t.id)).toEqual(["run.barrier"]);
    // The lone node and the fan-out are both instances of the task lifecycle.
    for (const id of ["run.stepping.task", "run.stepping.__fanout__"]) {
      const lifecycle = runMachine.getStateNodeById(id);
      expect(Object.keys(lifecycle.states)).toEqual(Object.keys(taskMachine.root.states));
      expect(lifecycle.initial.target.map((t) => t.key)).toEqual(["running"]);
      expect(lifecycle.states.running!.invoke.map((i) => [i.id, i.src])).toEqual([
        ["runTask", "runTask"],
      ]);
    }
  });

  it("every run loop and lifecycle state is reachable", () => {
    const reached = new Set<string>();
    for (const input of Object.values(scenarios)) {
      for (const id of statesEntered(runMachine, passed(input))) reached.add(id);
    }
    const all = stateNodes(runMachine).map((n) => n.id);
    expect(all).toHaveLength(15);
    expect([...reached].sort()).toEqual([...all].sort());
  });

  it("only the states a step uses are active, with at most one task actor", () => {
    const wrong: unknown[] = [];
    let solo = 0;
    let fanout = 0;
    for (const input of Object.values(scenarios)) {
      const distinct = new Map(
        passed(input).map((s) => [JSON.stringify([s.value, s.status, children(s)]), s]),
      );
      for (const s of distinct.values()) {
        const kids = children(s).join();
        const running =
          s.matches("stepping.task.running" as never) ||
          s.matches("stepping.__fanout__.running" as never);
        let ok: boolean;
        if (!s.matches("stepping")) {
          // Between steps no task actor is left over (the run is failed or done otherwise).
          ok = s.status !== "active" || kids === "";
        } else if (s.matches({ stepping: "task" })) {
          solo++;
          ok = !s.matches({ stepping: "__fanout__" }) && kids === (running ? "runTask" : "");
        } else if (s.matches({ stepping: "__fanout__" })) {
          // A fan-out: the lone node's state is not active; one actor runs all the tasks.
          fanout++;
          ok = !s.matches({ stepping: "task" }) && kids === (running ? "runTask" : "");
        } else {
          ok = s.matches({ stepping: "__dispatch__" }) && kids === "";
        }
        if (!ok) wrong.push([s.value, s.status, kids]);
      }
    }
    expect(wrong).toEqual([]);
    expect([solo > 0, fanout > 0]).toEqual([true, true]);
  });

  it("the shortest event sequences to the run's resting states", () => {
    /** The shortest event sequences to every state with this value. */
    const sequence = (scenario: string, value: unknown) =>
      shortestPaths(scenarios[scenario]!)
        .filter((p) => JSON.stringify(p.state.value) === JSON.stringify(value))
        .map((p) => p.steps.slice(1).map((s) => s.event.type));
    expect(sequence("a one-task step", "done")).toContainEqual([
      "INPUT",
      "STEP",
      TASK_DONE,
      "STEP",
    ]);
    // INPUT restarts the run from anywhere; the second step is over budget.
    expect(sequence("a one-task step", "failed")).toContainEqual([
      "INPUT",
      "STEP",
      "INPUT",
      "STEP",
    ]);
    expect(sequence("an exhausted recursion budget", "failed")).toContainEqual(["INPUT", "STEP"]);
    expect(
      sequence("a task that pauses once", { stepping: { task: "interrupted" } }),
    ).toContainEqual(["INPUT", "STEP", TASK_DONE]);
    expect(sequence("a static breakpoint", "breakpoint")).toContainEqual(["INPUT", "STEP"]);
    expect(sequence("a fan-out", { stepping: { __fanout__: "running" } })).toContainEqual([
      "INPUT",
      "STEP",
    ]);
    expect(sequence("a fan-out", "done")).toContainEqual(["INPUT", "STEP", TASK_DONE, "STEP"]);
    expect(
      sequence("a fan-out where one task pauses", { stepping: { __fanout__: "interrupted" } }),
    ).toContainEqual(["INPUT", "STEP", TASK_DONE]);
    expect(sequence("a fan-out where one task pauses", "done")).toContainEqual([
      "INPUT",
      "STEP",
      TASK_DONE,
      "RESUME",
      TASK_DONE,
      "STEP",
    ]);
    expect(sequence("a fan-out whose tasks throw", "failed")).toContainEqual([
      "INPUT",
      "STEP",
      TASK_ERROR,
    ]);
    expect(sequence("a restart whose tasks all finished before the crash", "done")).toContainEqual([
      "INPUT",
      "STEP",
      "STEP",
    ]);
  });

  it("a one-task step runs in the node's own state: INPUT, STEP, task done, barrier, STEP, done", () => {
    expect(walk({}, [INPUT, STEP, finishes, STEP])).toEqual([
      "barrier",
      { stepping: { task: "running" } },
      "barrier",
      "done",
    ]);
    expect(passesThrough(runMachine, atBarrier(), STEP)).toEqual([
      { stepping: "__dispatch__" },
      { stepping: { task: "running" } },
    ]);
    const [running] = snapshots({}, [INPUT, STEP]).slice(-1);
    expect(children(running!)).toEqual(["runTask"]);
    expect(running!.children.runTask!.getSnapshot().input).toEqual({
      count: 1,
      pauses: 0,
      fail: false,
    });
    const stepped = getMicrosteps(runMachine, running!, finishes as never).map(([s]) => s.value);
    expect(stepped).toEqual([{ stepping: { task: "done" } }, "barrier"]);
  });

  it("a paused task holds the run in stepping until RESUME runs it again", () => {
    const seen = snapshots({ pauses: 1 }, [INPUT, STEP, pauses, RESUME, finishes, STEP]);
    expect(seen.map((s) => s.value)).toEqual([
      "barrier",
      { stepping: { task: "running" } },
      { stepping: { task: "interrupted" } },
      { stepping: { task: "running" } },
      "barrier",
      "done",
    ]);
    expect(children(seen[2]!)).toEqual([]);
    expect(seen[2]!.context).toMatchObject({ interrupted: 1, resuming: 0 });
    expect(seen[3]!.children.runTask!.getSnapshot().input).toMatchObject({ count: 1 });
  });

  it("a fan-out step runs all its tasks in one actor and merges when it finishes", () => {
    const [barrier, fanout, merged, end] = snapshots({ width: 2 }, [
      INPUT,
      STEP,
      answer("done", "done"),
      STEP,
    ]);
    expect(barrier!.context.pending).toBe(2);
    expect(passesThrough(runMachine, barrier!, STEP)).toEqual([
      { stepping: "__dispatch__" },
      { stepping: { __fanout__: "running" } },
    ]);
    expect([fanout!.value, children(fanout!), fanout!.matches({ stepping: "task" })]).toEqual([
      { stepping: { __fanout__: "running" } },
      ["runTask"],
      false,
    ]);
    expect(fanout!.children.runTask!.getSnapshot().input).toEqual({
      count: 2,
      pauses: 0,
      fail: false,
    });
    expect(
      getMicrosteps(runMachine, fanout!, answer("done", "done") as never).map(([s]) => s.value),
    ).toEqual([{ stepping: { __fanout__: "done" } }, "barrier"]);
    expect([merged!.value, children(merged!), merged!.context.pending]).toEqual(["barrier", [], 0]);
    expect(end!.value).toBe("done");
  });

  it("a fan-out where one task pauses waits in __fanout__.interrupted with no actor; RESUME re-runs only that task", () => {
    const [, fanout, paused, again, merged] = snapshots({ width: 2, pauses: 1 }, [
      INPUT,
      STEP,
      answer("interrupted", "done"),
      RESUME,
      finishes,
    ]);
    expect(fanout!.children.runTask!.getSnapshot().input).toEqual({
      count: 2,
      pauses: 1,
      fail: false,
    });
    expect([paused!.value, children(paused!)]).toEqual([
      { stepping: { __fanout__: "interrupted" } },
      [],
    ]);
    expect(paused!.context).toMatchObject({ interrupted: 1, resuming: 0, pauses: 0 });
    expect([again!.value, children(again!)]).toEqual([
      { stepping: { __fanout__: "running" } },
      ["runTask"],
    ]);
    expect(again!.children.runTask!.getSnapshot().input).toEqual({
      count: 1,
      pauses: 0,
      fail: false,
    });
    expect([merged!.value, children(merged!), merged!.context]).toEqual([
      "barrier",
      [],
      expect.objectContaining({ pending: 0, interrupted: 0, resuming: 0 }),
    ]);
  });

  it("a fan-out where every task pauses re-runs them all on RESUME", () => {
    const seen = snapshots({ width: 2, pauses: 2 }, [
      INPUT,
      STEP,
      answer("interrupted", "interrupted"),
      RESUME,
      answer("done", "done"),
    ]);
    expect(
      seen.map((s) => [
        s.value,
        children(s),
        (s.children.runTask?.getSnapshot().input as TaskInput | undefined)?.count,
      ]),
    ).toEqual([
      ["barrier", [], undefined],
      [{ stepping: { __fanout__: "running" } }, ["runTask"], 2],
      [{ stepping: { __fanout__: "interrupted" } }, [], undefined],
      [{ stepping: { __fanout__: "running" } }, ["runTask"], 2],
      ["barrier", [], undefined],
    ]);
  });

  it("a static breakpoint stops before the step and RESUME returns to the barrier", () => {
    expect(walk({ breakpoint: true }, [INPUT, STEP, RESUME, STEP])).toEqual([
      "barrier",
      "breakpoint",
      "barrier",
      { stepping: { task: "running" } },
    ]);
    expect(walk({ breakpoint: true, width: 2 }, [INPUT, STEP, RESUME, STEP]).at(-1)).toEqual({
      stepping: { __fanout__: "running" },
    });
  });

  it("a failing task fails the run, alone or in a fan-out", () => {
    const micro = (input: Input, last: AnyEventObject) => {
      const from = snapshots(input, [INPUT, STEP]).at(-1)!;
      return getMicrosteps(runMachine, from, last as never).map(([s]) => s.value);
    };
    // The error raises TASK_FAILED, which the root takes in the next microstep.
    expect(micro({ fails: true }, fails)).toEqual([{ stepping: { task: "running" } }, "failed"]);
    expect(micro({ width: 2, fails: true }, fails)).toEqual([
      { stepping: { __fanout__: "running" } },
      "failed",
    ]);
    for (const width of [1, 2]) {
      const [failed] = snapshots({ width, fails: true }, [INPUT, STEP, fails]).slice(-1);
      expect([failed!.value, failed!.status, children(failed!)]).toEqual(["failed", "done", []]);
      const raised = getMicrosteps(
        runMachine,
        snapshots({ width, fails: true }, [INPUT, STEP]).at(-1)!,
        { ...fails, error: "boom" } as never,
      )
        .flatMap(([, actions]) => actions)
        .filter((a) => a.type === "xstate.raise")
        .map((a) => (a.params as { event: unknown }).event);
      expect(raised).toEqual([{ type: "TASK_FAILED", error: "boom" }]);
    }
  });

  it("the recursion limit fails the run at the barrier", () => {
    expect(walk({ stepsLeft: 1 }, [INPUT, STEP, finishes, INPUT, STEP])).toEqual([
      "barrier",
      { stepping: { task: "running" } },
      "barrier",
      "barrier",
      "failed",
    ]);
    expect(walk({ stepsLeft: 0 }, [INPUT, STEP])).toEqual(["barrier", "failed"]);
    expect(walk({ stepsLeft: 0, width: 2 }, [INPUT, STEP])).toEqual(["barrier", "failed"]);
  });

  it("a step whose tasks all finished before a crash settles at once (SETTLED)", () => {
    const barrier = atBarrier({ width: 2, recovered: 2 });
    expect(passesThrough(runMachine, barrier, STEP)).toEqual([
      { stepping: "__dispatch__" },
      "barrier",
    ]);
    const [merged] = transition(runMachine, barrier, STEP);
    expect([merged.context.pending, merged.context.recovered, children(merged)]).toEqual([
      0,
      0,
      [],
    ]);
    expect(transition(runMachine, merged, STEP)[0].value).toBe("done");
    // One of two recovered: the other task runs alone, in the node's state.
    const partial = atBarrier({ width: 2, recovered: 1 });
    expect(passesThrough(runMachine, partial, STEP)).toEqual([
      { stepping: "__dispatch__" },
      { stepping: { task: "running" } },
    ]);
    const [running] = transition(runMachine, partial, STEP);
    expect(running.children.runTask!.getSnapshot().input).toMatchObject({ count: 1 });
    // One of three recovered: the other two still fan out.
    const [fanout] = transition(runMachine, atBarrier({ width: 3, recovered: 1 }), STEP);
    expect([fanout.value, fanout.children.runTask!.getSnapshot().input]).toEqual([
      { stepping: { __fanout__: "running" } },
      { count: 2, pauses: 0, fail: false },
    ]);
  });

  it("updateState as a node schedules that node's task; a plain update changes no state", () => {
    expect(walk({}, [UPDATE_AS_NODE, STEP])).toEqual([
      "barrier",
      { stepping: { task: "running" } },
    ]);
    expect(walk({}, [UPDATE])).toEqual(["idle"]);
    expect(walk({}, [INPUT, UPDATE])).toEqual(["barrier", "barrier"]);
    // On a paused fan-out it replaces the tasks: one task, no stale interrupted count.
    const paused = snapshots({ width: 2, pauses: 2 }, [
      INPUT,
      STEP,
      answer("interrupted", "interrupted"),
    ]).at(-1)!;
    expect(paused.value).toEqual({ stepping: { __fanout__: "interrupted" } });
    expect(view(transition(runMachine, paused, UPDATE)[0])).toEqual(view(paused));
    const [updated] = transition(runMachine, paused, UPDATE_AS_NODE);
    expect([updated.value, children(updated)]).toEqual(["barrier", []]);
    expect(updated.context).toMatchObject({ pending: 1, interrupted: 0, resuming: 0 });
    expect(passesThrough(runMachine, updated, STEP).at(-1)).toEqual({
      stepping: { task: "running" },
    });
    expect(transition(runMachine, updated, STEP)[0].children.runTask!.getSnapshot().input).toEqual({
      count: 1,
      pauses: 0,
      fail: false,
    });
  });

  it("ignores RESUME unless a task waits for an answer", () => {
    const cases: Array<[Input, AnyEventObject[]]> = [
      [{}, []], // idle
      [{}, [INPUT]], // barrier
      [{}, [INPUT, STEP]], // a lone task running
      [{ width: 2 }, [INPUT, STEP]], // a fan-out running
      // A fan-out re-running its answered task: nothing waits any more.
      [{ width: 2, pauses: 1 }, [INPUT, STEP, answer("interrupted", "done"), RESUME]],
      [{ pauses: 1 }, [INPUT, STEP, pauses, RESUME]],
    ];
    for (const [input, sequence] of cases) {
      const before = snapshots(input, sequence).at(-1) ?? initialTransition(runMachine, input)[0];
      expect(before.can(RESUME)).toBe(false);
      const [after] = transition(runMachine, before, RESUME);
      expect(view(after)).toEqual(view(before));
    }
  });

  it("ignores STEP while stepping and before the first INPUT", () => {
    const cases: Array<[Input, AnyEventObject[]]> = [
      [{}, [INPUT, STEP]], // a lone task running
      [{ pauses: 1 }, [INPUT, STEP, pauses]], // ... and interrupted
      [{ width: 2 }, [INPUT, STEP]], // a fan-out running
      [{ width: 2, pauses: 1 }, [INPUT, STEP, answer("interrupted", "done")]], // ... and interrupted
      [{ width: 2, pauses: 1 }, [INPUT, STEP, answer("interrupted", "done"), RESUME]], // re-running
    ];
    const values = cases.map(([input, sequence]) => {
      const s = snapshots(input, sequence).at(-1)!;
      expect(s.can(STEP)).toBe(false);
      expect(view(transition(runMachine, s, STEP)[0])).toEqual(view(s));
      return s.value;
    });
    expect(values).toEqual([
      { stepping: { task: "running" } },
      { stepping: { task: "interrupted" } },
      { stepping: { __fanout__: "running" } },
      { stepping: { __fanout__: "interrupted" } },
      { stepping: { __fanout__: "running" } },
    ]);
    expect(walk({}, [STEP])).toEqual(["idle"]);
  });

  it("ignores RUN.task, FANOUT and SETTLED outside __dispatch__", () => {
    let checked = 0;
    for (const input of Object.values(scenarios)) {
      for (const { state } of shortestPaths(input)) {
        if (state.status !== "active") continue;
        // __dispatch__ is transient: a step never rests there.
        expect(state.matches({ stepping: "__dispatch__" })).toBe(false);
        for (const event of DISPATCH) {
          expect(state.can(event as never)).toBe(false);
          same(view(transition(runMachine, state, event as never)[0]), view(state));
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(50);
  });

  it("ignores a late answer once the step's tasks are interrupted", () => {
    for (const [input, paused] of [
      [{ pauses: 1 }, pauses],
      [{ width: 2, pauses: 1 }, answer("interrupted", "done")],
    ] as const) {
      const s = snapshots(input, [INPUT, STEP, paused]).at(-1)!;
      expect(view(transition(runMachine, s, finishes as never)[0])).toEqual(view(s));
    }
  });

  it("done and failed are final: the actor takes no more events", async () => {
    const { machine, gates } = gated(runMachine);
    const done = createActor(machine, { input: {} }).start();
    done.send(INPUT);
    done.send(STEP);
    gates.get("runTask")!();
    await until(() => done.getSnapshot().matches("barrier"));
    done.send(STEP);
    const failed = createActor(machine, { input: { stepsLeft: 0 } }).start();
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
    const inputs = Object.values(scenarios);
    const replayed = await replayExtendedPaths(runMachine, inputs, shortestPaths, events);
    expect(replayed).toBeGreaterThan(400);
  });

  it("every simple path through a fan-out whose tasks pause agrees with a real run", async () => {
    // The driver's events for one run, and the task actor's answers.
    const oneRun = (s: Snap): AnyEventObject[] =>
      s.status !== "active" ? [] : s.matches("idle") ? [INPUT] : [...taskAnswers(s), STEP, RESUME];
    const toDone: Record<string, string[][]> = {};
    for (const input of [
      { width: 2, pauses: 1 },
      { width: 2, pauses: 3 },
    ]) {
      const paths = simplePaths(runMachine, input, { events: oneRun, serializeState });
      toDone[input.pauses] = paths
        .filter((p) => p.state.value === "done")
        .map((p) =>
          p.steps.slice(1).map((s) => {
            const out = s.event.output as Array<{ status: TaskStatus }> | undefined;
            return out ? out.map((o) => o.status[0]).join("") : s.event.type;
          }),
        );
      for (const path of paths) await replay(held, input, path);
    }
    // The actor's outcomes as letters: d(one) and i(nterrupted), one per task it ran.
    expect(toDone).toEqual({
      1: [["INPUT", "STEP", "id", "RESUME", "d", "STEP"]],
      3: [["INPUT", "STEP", "ii", "RESUME", "id", "RESUME", "d", "STEP"]],
    });
  });
});
