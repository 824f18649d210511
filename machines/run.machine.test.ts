/**
 * Model-based tests of the run loop chart (machines/run.machine.ts).
 *
 * The traversal sends what the driver sends (INPUT, UPDATE, STEP, RESUME) plus
 * the answer the run's task runner (`tasks`, invoked at the root) would send
 * while a lifecycle state — the lone task's or `__fanout__` — is `running`:
 * `TASKS.DONE` (its output one `{ status }` per task it ran) or `TASKS.ERROR`.
 * Each answer follows the request `running` sent (`count`, `pauses`, `fail`,
 * from the stand-in context). The barrier's decisions (`RUN.task`, FANOUT,
 * SETTLED, FINISH, BREAKPOINT, RECURSION_LIMIT) are not sent: the chart raises
 * them itself. So every path found is one a real actor can take, which is
 * checked at the end. Most scenarios are held at each barrier, as a driver with
 * durability "sync" holds them, so that every barrier shows as a step of its
 * own; the others step on by themselves.
 */
import { describe, expect, it, vi } from "vitest";
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
  passesThrough,
  pauses,
  RESUME,
  replay,
  replayExtendedPaths,
  same,
  sent,
  shortestPathsOf,
  simplePaths,
  standInAnswers,
  stateNodes,
  statesEntered,
  type TaskStatus,
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
/** The decisions the chart raises for itself, at the barrier only. */
const DECISIONS = [
  { type: "RUN.task" },
  { type: "FANOUT" },
  { type: "SETTLED" },
  { type: "FINISH" },
  { type: "BREAKPOINT" },
  { type: "RECURSION_LIMIT" },
] as const;

/**
 * Everything that can happen next. A finished actor takes no more events (a
 * pure transition would still apply the root's INPUT to a `done` snapshot).
 * Every driver event is offered everywhere, so the events a state must ignore
 * are checked as well. (The driver itself waits while a state is `running`;
 * a run left by INPUT or UPDATE as a node meanwhile leaves its request
 * unanswered in a replay: the runner holds it until a newer RUN replaces it.)
 */
const events = (s: Snap): AnyEventObject[] =>
  s.status !== "active" ? [] : [...standInAnswers(s), INPUT, UPDATE, UPDATE_AS_NODE, STEP, RESUME];

/**
 * The stand-in graph's configurations; together they exercise every branch.
 * A small recursion budget keeps the state space small (INPUT can restart a
 * run from anywhere, and each step spends one).
 */
const scenarios: Record<string, Input> = {
  "a one-task step": { holds: true, stepsLeft: 1 },
  "a task that pauses once": { holds: true, stepsLeft: 1, pauses: 1 },
  "a task that throws": { holds: true, stepsLeft: 1, fails: true },
  "a static breakpoint": { holds: true, stepsLeft: 1, breakpoint: true },
  "a fan-out": { holds: true, stepsLeft: 1, width: 2 },
  "a fan-out where one task pauses": { holds: true, stepsLeft: 1, width: 2, pauses: 1 },
  "a fan-out where every task pauses": { holds: true, stepsLeft: 1, width: 2, pauses: 2 },
  "a fan-out whose tasks throw": { holds: true, stepsLeft: 1, width: 2, fails: true },
  "a restart whose tasks all finished before the crash": {
    holds: true,
    stepsLeft: 1,
    width: 2,
    recovered: 2,
  },
  "a restart with one task of a fan-out left": {
    holds: true,
    stepsLeft: 1,
    width: 2,
    recovered: 1,
  },
  "an exhausted recursion budget": { holds: true, stepsLeft: 0 },
  "a one-task step, not held": { stepsLeft: 1 },
  "a fan-out where one task pauses, not held": { stepsLeft: 1, width: 2, pauses: 1 },
  "a static breakpoint, not held": { stepsLeft: 1, breakpoint: true },
  "a restart whose tasks all finished, not held": { stepsLeft: 1, width: 2, recovered: 2 },
};

/**
 * The shortest path to every state the chart reaches from `input` (computed
 * once per input). State and context tell snapshots apart: the request a
 * running state has sent follows from its context.
 */
const shortestPaths = shortestPathsOf(runMachine, { events });

/** Every snapshot the traversal from `input` passes through, transient microsteps included. */
const passed = (input: Input) => microsteps(runMachine, input, shortestPaths(input), events);

/** The snapshots after each event of `sequence`, from the chart's initial state (held, unless told). */
function snapshots(input: Input, sequence: AnyEventObject[]): Snap[] {
  let [state] = initialTransition(runMachine, { holds: true, ...input });
  return sequence.map((event) => {
    [state] = transition(runMachine, state, event as never);
    return state;
  });
}

/** The state values after each event of `sequence`. */
const walk = (input: Input, sequence: AnyEventObject[]) =>
  snapshots(input, sequence).map((s) => s.value);

/** What the last event of `sequence` sends to other actors. */
function sends(input: Input, sequence: AnyEventObject[]) {
  const before = snapshots(input, sequence.slice(0, -1)).at(-1);
  const from = before ?? initialTransition(runMachine, { holds: true, ...input })[0];
  return sent(transition(runMachine, from, sequence.at(-1)! as never)[1]);
}

/** The request the stand-in runner gets for `count` tasks, `pauses` of which pause. */
const run = (count: number, pauses = 0, fail = false) => [
  "tasks",
  { type: "RUN", count, pauses, fail },
];

/** The snapshot at `barrier` after INPUT. */
const atBarrier = (input: Input = {}) => snapshots(input, [INPUT])[0]!;

/** The chart, its stand-in runner held at a gate until a replay lets it answer. */
const held = gated(runMachine);

describe("run loop chart", () => {
  it("the barrier checkpoints, then decides the step: the node's lifecycle, __fanout__, or a stop", () => {
    const barrier = runMachine.getStateNodeById("run.barrier");
    const name = (a: unknown) => (typeof a === "string" ? a : (a as { type: string }).type);
    expect(barrier.entry.map(name)).toEqual(["checkpoint", "dispatchUnlessHeld"]);
    expect(
      Object.fromEntries(
        Object.entries(barrier.on).map(([type, [t]]) => [
          type,
          [t!.target?.map((s) => s.id) ?? null, t!.actions.map(name)],
        ]),
      ),
    ).toEqual({
      STEP: [null, ["dispatch"]],
      BREAKPOINT: [["run.breakpoint"], ["recordBreakpoint"]],
      FINISH: [["run.done"], []],
      RECURSION_LIMIT: [["run.failed"], ["recordRecursionError"]],
      SETTLED: [["run.barrier"], ["mergeWrites"]],
      "RUN.task": [["run.stepping.task"], []],
      FANOUT: [["run.stepping.__fanout__"], []],
    });
    const stepping = runMachine.getStateNodeById("run.stepping");
    expect(stepping.type).toBe("compound");
    expect(Object.keys(stepping.states)).toEqual(["task", "__fanout__"]);
    expect(Object.keys(stepping.on)).toEqual([]);
    // The lone node and the fan-out are both instances of the task lifecycle,
    // without its final `done`: finished work goes straight to the barrier.
    const lifecycleStates = Object.keys(taskMachine.root.states).filter((k) => k !== "done");
    for (const id of ["run.stepping.task", "run.stepping.__fanout__"]) {
      const lifecycle = runMachine.getStateNodeById(id);
      expect(Object.keys(lifecycle.states)).toEqual(lifecycleStates);
      expect(lifecycle.initial.target.map((t) => t.key)).toEqual(["running"]);
      const running = lifecycle.states.running!;
      expect([running.tags, running.entry, running.invoke]).toEqual([
        ["running"],
        ["runTasks"],
        [],
      ]);
      expect(
        running.on["TASKS.DONE"]!.map((t) => [t.guard, t.target!.map((s) => s.id), t.actions]),
      ).toEqual([
        ["anyTaskInterrupted", [`${id}.interrupted`], ["recordTaskResults"]],
        [undefined, ["run.barrier"], ["mergeWrites"]],
      ]);
    }
  });

  it("invokes one task runner for the whole run, and fails the run when it reports an error", () => {
    expect(runMachine.root.invoke.map((i) => [i.id, i.src])).toEqual([["tasks", "taskRunner"]]);
    const runTasks = runMachine.implementations.actions.runTasks as unknown as {
      type: string;
      to: string;
    };
    expect([runTasks.type, runTasks.to]).toEqual(["xstate.sendTo", "tasks"]);
    const failing = runMachine.root.on["TASKS.ERROR"]!;
    expect(failing.map((t) => [t.target!.map((s) => s.id), t.actions])).toEqual([
      [["run.failed"], ["recordFailure"]],
    ]);
  });

  it("every run loop and lifecycle state is reachable", () => {
    const reached = new Set<string>();
    for (const input of Object.values(scenarios)) {
      for (const id of statesEntered(runMachine, passed(input))) reached.add(id);
    }
    const all = stateNodes(runMachine).map((n) => n.id);
    expect(all).toHaveLength(12);
    expect([...reached].sort()).toEqual([...all].sort());
  });

  it("only the states a step uses are active; the runner is the one child, and works only while a state is running", () => {
    const wrong: unknown[] = [];
    let solo = 0;
    let fanout = 0;
    for (const input of Object.values(scenarios)) {
      const distinct = new Map(
        passed(input).map((s) => [JSON.stringify([s.value, s.status, children(s)]), s]),
      );
      for (const s of distinct.values()) {
        const running =
          s.matches("stepping.task.running" as never) ||
          s.matches("stepping.__fanout__.running" as never);
        // Always the one runner (a final snapshot still lists it, stopped).
        let ok = children(s).join() === "tasks" && s.hasTag("running") === running;
        if (!s.matches("stepping")) {
          // Between steps nothing runs.
          ok &&= !running;
        } else if (s.matches({ stepping: "task" })) {
          solo++;
          ok &&= !s.matches({ stepping: "__fanout__" });
        } else if (s.matches({ stepping: "__fanout__" })) {
          // A fan-out: the lone node's state is not active; one request runs all the tasks.
          fanout++;
          ok &&= !s.matches({ stepping: "task" });
        } else {
          ok = false; // stepping is only ever entered into a lifecycle
        }
        if (!ok) wrong.push([s.value, s.status, children(s), s.hasTag("running")]);
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
      "TASKS.DONE",
      "STEP",
    ]);
    // INPUT restarts the run from anywhere; a merged step spent the budget.
    expect(sequence("a one-task step", "failed")).toContainEqual([
      "INPUT",
      "STEP",
      "TASKS.DONE",
      "INPUT",
      "STEP",
    ]);
    // Not held, the run steps on from each barrier by itself.
    expect(sequence("a one-task step, not held", "done")).toContainEqual(["INPUT", "TASKS.DONE"]);
    expect(sequence("a static breakpoint, not held", "breakpoint")).toContainEqual(["INPUT"]);
    expect(sequence("a restart whose tasks all finished, not held", "done")).toContainEqual([
      "INPUT",
    ]);
    expect(sequence("an exhausted recursion budget", "failed")).toContainEqual(["INPUT", "STEP"]);
    expect(
      sequence("a task that pauses once", { stepping: { task: "interrupted" } }),
    ).toContainEqual(["INPUT", "STEP", "TASKS.DONE"]);
    expect(sequence("a static breakpoint", "breakpoint")).toContainEqual(["INPUT", "STEP"]);
    expect(sequence("a fan-out", { stepping: { __fanout__: "running" } })).toContainEqual([
      "INPUT",
      "STEP",
    ]);
    expect(sequence("a fan-out", "done")).toContainEqual(["INPUT", "STEP", "TASKS.DONE", "STEP"]);
    expect(
      sequence("a fan-out where one task pauses", { stepping: { __fanout__: "interrupted" } }),
    ).toContainEqual(["INPUT", "STEP", "TASKS.DONE"]);
    expect(sequence("a fan-out where one task pauses", "done")).toContainEqual([
      "INPUT",
      "STEP",
      "TASKS.DONE",
      "RESUME",
      "TASKS.DONE",
      "STEP",
    ]);
    expect(sequence("a fan-out whose tasks throw", "failed")).toContainEqual([
      "INPUT",
      "STEP",
      "TASKS.ERROR",
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
      "barrier",
      { stepping: { task: "running" } },
    ]);
    const [running, stepping] = transition(runMachine, atBarrier(), STEP);
    expect([children(running), running.hasTag("running"), sent(stepping)]).toEqual([
      ["tasks"],
      true,
      [run(1)],
    ]);
    // Finished work goes straight to the barrier: the lifecycle has no `done` to rest in.
    expect(passesThrough(runMachine, running, finishes)).toEqual(["barrier"]);
  });

  it("a run the driver does not hold steps on from every barrier by itself, checkpointing each", () => {
    const free = { holds: false };
    expect(walk(free, [INPUT, finishes])).toEqual([{ stepping: { task: "running" } }, "done"]);
    const idle = initialTransition(runMachine, free)[0];
    expect(passesThrough(runMachine, idle, INPUT)).toEqual([
      "barrier",
      { stepping: { task: "running" } },
    ]);
    const [running, started] = transition(runMachine, idle, INPUT);
    expect(started.map((a) => a.type).filter((t) => t === "checkpoint")).toHaveLength(1);
    expect(sent(started)).toEqual([run(1)]);
    const [, finished] = transition(runMachine, running, finishes as never);
    // Merged, the barrier is checkpointed and the run finishes (its runner stopped).
    expect(finished.map((a) => a.type)).toEqual(["checkpoint", "xstate.raise", "xstate.stopChild"]);
    // Held, the same run rests at each barrier until STEP.
    expect(walk({}, [INPUT, finishes])).toEqual(["barrier", "barrier"]);
  });

  it("a paused task holds the run in stepping until RESUME runs it again", () => {
    const sequence = [INPUT, STEP, pauses, RESUME, finishes, STEP];
    const seen = snapshots({ pauses: 1 }, sequence);
    expect(seen.map((s) => s.value)).toEqual([
      "barrier",
      { stepping: { task: "running" } },
      { stepping: { task: "interrupted" } },
      { stepping: { task: "running" } },
      "barrier",
      "done",
    ]);
    expect([seen[2]!.hasTag("running"), sends({ pauses: 1 }, sequence.slice(0, 3))]).toEqual([
      false,
      [],
    ]);
    expect(seen[2]!.context).toMatchObject({ interrupted: 1, resuming: 0 });
    expect(sends({ pauses: 1 }, sequence.slice(0, 4))).toEqual([run(1)]);
  });

  it("a fan-out step asks the runner for all its tasks at once and merges when they finish", () => {
    const sequence = [INPUT, STEP, answer("done", "done"), STEP];
    const [barrier, fanout, merged, end] = snapshots({ width: 2 }, sequence);
    expect(barrier!.context.pending).toBe(2);
    expect(passesThrough(runMachine, barrier!, STEP)).toEqual([
      "barrier",
      { stepping: { __fanout__: "running" } },
    ]);
    expect([
      fanout!.value,
      fanout!.hasTag("running"),
      fanout!.matches({ stepping: "task" }),
    ]).toEqual([{ stepping: { __fanout__: "running" } }, true, false]);
    expect(sends({ width: 2 }, sequence.slice(0, 2))).toEqual([run(2)]);
    expect(passesThrough(runMachine, fanout!, answer("done", "done"))).toEqual(["barrier"]);
    expect([merged!.value, merged!.hasTag("running"), merged!.context.pending]).toEqual([
      "barrier",
      false,
      0,
    ]);
    expect(end!.value).toBe("done");
  });

  it("a fan-out where one task pauses waits in __fanout__.interrupted, not running; RESUME re-runs only that task", () => {
    const input = { width: 2, pauses: 1 };
    const sequence = [INPUT, STEP, answer("interrupted", "done"), RESUME, finishes];
    const [, , paused, again, merged] = snapshots(input, sequence);
    expect(sends(input, sequence.slice(0, 2))).toEqual([run(2, 1)]);
    expect([paused!.value, paused!.hasTag("running")]).toEqual([
      { stepping: { __fanout__: "interrupted" } },
      false,
    ]);
    expect(paused!.context).toMatchObject({ interrupted: 1, resuming: 0, pauses: 0 });
    expect([again!.value, again!.hasTag("running")]).toEqual([
      { stepping: { __fanout__: "running" } },
      true,
    ]);
    expect(sends(input, sequence.slice(0, 4))).toEqual([run(1)]);
    expect([merged!.value, merged!.hasTag("running"), merged!.context]).toEqual([
      "barrier",
      false,
      expect.objectContaining({ pending: 0, interrupted: 0, resuming: 0 }),
    ]);
  });

  it("a fan-out where every task pauses re-runs them all on RESUME", () => {
    const input = { width: 2, pauses: 2 };
    const sequence = [
      INPUT,
      STEP,
      answer("interrupted", "interrupted"),
      RESUME,
      answer("done", "done"),
    ];
    const seen = snapshots(input, sequence);
    expect(
      seen.map((s, i) => [
        s.value,
        s.hasTag("running"),
        sends(input, sequence.slice(0, i + 1)).map(([, e]) => e.count),
      ]),
    ).toEqual([
      ["barrier", false, []],
      [{ stepping: { __fanout__: "running" } }, true, [2]],
      [{ stepping: { __fanout__: "interrupted" } }, false, []],
      [{ stepping: { __fanout__: "running" } }, true, [2]],
      ["barrier", false, []],
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
    for (const width of [1, 2]) {
      const input = { width, fails: true };
      expect(sends(input, [INPUT, STEP])).toEqual([run(width, 0, true)]);
      const from = snapshots(input, [INPUT, STEP]).at(-1)!;
      expect(standInAnswers(from)).toEqual([fails]);
      // The root takes the runner's error straight to failed, recording it and stopping the runner.
      const error = { ...fails, error: "boom" } as never;
      expect(passesThrough(runMachine, from, error)).toEqual(["failed"]);
      const [failed, actions] = transition(runMachine, from, error);
      expect([failed.value, failed.status, failed.hasTag("running")]).toEqual([
        "failed",
        "done",
        false,
      ]);
      expect(actions.map((a) => a.type)).toEqual(["recordFailure", "xstate.stopChild"]);
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
    expect(passesThrough(runMachine, barrier, STEP)).toEqual(["barrier"]);
    const [merged, settling] = transition(runMachine, barrier, STEP);
    expect([merged.context.pending, merged.context.recovered, sent(settling)]).toEqual([0, 0, []]);
    expect(transition(runMachine, merged, STEP)[0].value).toBe("done");
    // One of two recovered: the other task runs alone, in the node's state.
    const partial = atBarrier({ width: 2, recovered: 1 });
    expect(passesThrough(runMachine, partial, STEP)).toEqual([
      "barrier",
      { stepping: { task: "running" } },
    ]);
    expect(sent(transition(runMachine, partial, STEP)[1])).toEqual([run(1)]);
    // One of three recovered: the other two still fan out.
    const [fanout, fanning] = transition(runMachine, atBarrier({ width: 3, recovered: 1 }), STEP);
    expect([fanout.value, sent(fanning)]).toEqual([
      { stepping: { __fanout__: "running" } },
      [run(2)],
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
    expect([updated.value, updated.hasTag("running")]).toEqual(["barrier", false]);
    expect(updated.context).toMatchObject({ pending: 1, interrupted: 0, resuming: 0 });
    expect(passesThrough(runMachine, updated, STEP).at(-1)).toEqual({
      stepping: { task: "running" },
    });
    expect(sent(transition(runMachine, updated, STEP)[1])).toEqual([run(1)]);
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
      const [after, actions] = transition(runMachine, before, RESUME);
      expect([view(after), sent(actions)]).toEqual([view(before), []]);
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
      const [after, actions] = transition(runMachine, s, STEP);
      expect([view(after), sent(actions)]).toEqual([view(s), []]);
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

  it("takes the barrier's decisions (RUN.task, FANOUT, SETTLED, FINISH, BREAKPOINT, RECURSION_LIMIT) at the barrier only", () => {
    let checked = 0;
    for (const input of Object.values(scenarios)) {
      for (const { state } of shortestPaths(input)) {
        if (state.status !== "active" || state.matches("barrier")) continue;
        for (const event of DECISIONS) {
          expect(state.can(event as never)).toBe(false);
          same(view(transition(runMachine, state, event as never)[0]), view(state));
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(100);
  });

  it("ignores a late answer once the step's tasks are interrupted, and between steps", () => {
    for (const [input, sequence] of [
      [{ pauses: 1 }, [INPUT, STEP, pauses]],
      [{ width: 2, pauses: 1 }, [INPUT, STEP, answer("interrupted", "done")]],
      [{}, [INPUT]],
      [{ breakpoint: true }, [INPUT, STEP]],
    ] as const) {
      const s = snapshots(input, [...sequence]).at(-1)!;
      expect(s.hasTag("running")).toBe(false);
      expect(view(transition(runMachine, s, finishes as never)[0])).toEqual(view(s));
    }
  });

  it("done and failed are final: the actor takes no more events, and its runner is stopped", async () => {
    const { machine, gate } = gated(runMachine);
    // Held at each barrier, as a "sync" driver holds a run, so each STEP below has a barrier to
    // leave. (Not held, the barrier steps on by itself and the run is final before a STEP arrives.)
    const done = createActor(machine, { input: { holds: true } }).start();
    done.send(INPUT);
    done.send(STEP);
    expect(gate.held).toEqual({ type: "RUN", count: 1, pauses: 0, fail: false });
    gate.open();
    await until(() => done.getSnapshot().matches("barrier"));
    expect(done.getSnapshot().value).toBe("barrier");
    done.send(STEP);
    const failed = createActor(machine, { input: { stepsLeft: 0, holds: true } }).start();
    failed.send(INPUT);
    failed.send(STEP);
    // XState warns about each event a final actor receives: asserted here, not printed.
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    for (const actor of [done, failed]) {
      actor.send(INPUT);
      actor.send(STEP);
    }
    expect(
      warn.mock.calls.map(([text]) => String(text).match(/^Event "(\w+)".*final state/)?.[1]),
    ).toEqual(["INPUT", "STEP", "INPUT", "STEP"]);
    warn.mockRestore();
    expect(
      [done, failed].map((a) => {
        const s = a.getSnapshot();
        return [s.value, s.status, s.children.tasks!.getSnapshot().status];
      }),
    ).toEqual([
      ["done", "done", "stopped"],
      ["failed", "done", "stopped"],
    ]);
  });

  it("every transition the traversal takes agrees with a real run", async () => {
    const inputs = Object.values(scenarios);
    const replayed = await replayExtendedPaths(runMachine, inputs, shortestPaths, events);
    expect(replayed).toBeGreaterThan(400);
  });

  it("every simple path through a fan-out whose tasks pause agrees with a real run", async () => {
    // The driver's events for one run it does not hold, and the runner's answers.
    const oneRun = (s: Snap): AnyEventObject[] =>
      s.status !== "active"
        ? []
        : s.matches("idle")
          ? [INPUT]
          : [...standInAnswers(s), STEP, RESUME];
    const toDone: Record<string, string[][]> = {};
    for (const input of [
      { width: 2, pauses: 1 },
      { width: 2, pauses: 3 },
    ]) {
      const paths = simplePaths(runMachine, input, { events: oneRun });
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
    // The runner's outcomes as letters: d(one) and i(nterrupted), one per task it ran.
    expect(toDone).toEqual({
      1: [["INPUT", "id", "RESUME", "d"]],
      3: [["INPUT", "ii", "RESUME", "id", "RESUME", "d"]],
    });
  });
});
