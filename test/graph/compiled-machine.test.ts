/**
 * Model-based tests of a compiled graph's machine: the run loop whose
 * `stepping` state holds one task-lifecycle state per graph node (a step with
 * a single task runs there) plus `__fanout__` (another instance of the task
 * lifecycle: a step with several tasks runs them all at once), entered from the
 * barrier by the decision it raises (`RUN.<node>` or `FANOUT`). The machine invokes one task runner (`tasks`) for the whole run; a
 * lifecycle's `running` state sends it `RUN` with its node (none for the
 * fan-out) and the context.
 *
 * The traversal plays a driver that holds the run at each barrier (INPUT,
 * STEP, RESUME, UPDATE; the call's options are in the input) and the runner:
 * while a lifecycle state is `running` it answers with `TASKS.DONE`, carrying
 * one `TaskOutcome` per task it ran (or `TASKS.ERROR`). Those outcomes are
 * built here from the pending tasks the running state asks for, routing along
 * the example's static edges, so compile.ts's own guards and actions (task
 * bookkeeping, joins, breakpoints, recursion limit, partial resumes) decide
 * every step; a restart's recovered tasks are restored into a barrier's
 * snapshot, as `invoke` does. At the end every traversed transition is replayed on a
 * real actor whose real task runner runs the real nodes and must answer
 * exactly as the model did.
 */
import { getShortestPaths } from "@xstate/graph";
import { describe, expect, it } from "vitest";
import {
  type AnyActorRef,
  type AnyEventObject,
  type AnyStateMachine,
  initialTransition,
  type MachineSnapshot,
  matchesState,
  type StateValue,
  transition,
} from "xstate";
import {
  type ChartPath,
  children,
  microsteps,
  passesThrough as passesThroughValues,
  replayExtendedPaths,
  same,
  sent,
  stateNodes,
  statesEntered,
  view,
} from "../../machines/chart-replay.js";
import { runMachine } from "../../machines/run.machine.js";
import { taskMachine } from "../../machines/task.machine.js";
import { type GraphInput, RUN_INPUT } from "../../src/graph/compiling/compile.js";
import { END, Graph, interrupt, RecursionLimitError, START } from "../../src/index.js";
import { ROUTE } from "../../src/runtime/checkpoint-writer.js";
import { interruptId } from "../../src/runtime/interrupt.js";
import { recoverTasks } from "../../src/runtime/recover-step.js";
import { attachRunEnv, type RunEnv } from "../../src/runtime/run-env.js";
import { storedValue } from "../../src/runtime/snapshot-format.js";
import {
  DEFAULT_RUN,
  type GraphContext,
  type RunOptions,
  type TaskOutcome,
  type TaskRecord,
  type TaskSeed,
} from "../../src/runtime/task.js";

type Snap = MachineSnapshot<GraphContext, AnyEventObject, any, any, any, any, any, any>;
type Path = ChartPath<Snap>;
type Step = AnyEventObject | ((s: Snap) => AnyEventObject);

/*
 * States are named here as a checkpoint stores them (see storedValue): `"barrier"`,
 * `"breakpoint"`, and `{ stepping: { <node> | "__fanout__": … } }` for the executor's
 * `runtime.barrier`, `runtime.breakpoint`, `workflow.<node>` and `runtime.fanout`.
 */
const storedStateOf = (s: Snap) => storedValue(s.value) as StateValue;
const isAt = (s: Snap, value: StateValue) => matchesState(value, storedStateOf(s));
const passesThrough = (...args: Parameters<typeof passesThroughValues>) =>
  passesThroughValues(...args).map(storedValue);
/** The id of a lifecycle state: a node's (in `workflow`) or the fan-out's (in `runtime`). */
const lifecycleId = (machineId: string, node: string) =>
  node === "__fanout__" ? `${machineId}.runtime.fanout` : `${machineId}.workflow.${node}`;

/** A graph under test: its machine, and what the model of its runner needs to answer. */
interface Example {
  machine: AnyStateMachine;
  /** `__start__` and the graph's nodes: the node states under `stepping`. */
  nodes: string[];
  /** Static edges, as data: the stand-in answers route along them. */
  edges: Array<[string, string]>;
  /** Nodes that call `interrupt(payload)` (then write the answer). */
  asks: Record<string, string>;
  /** Nodes whose tasks the traversal also lets fail. */
  fails: string[];
  /** What the machine starts from: no values, and the call's options. */
  input: GraphInput;
}

/** A call whose driver holds the run at each barrier, as durability "sync" does. */
const HELD: RunOptions = { ...DEFAULT_RUN, holds: true };
/** The same example, run with other call options. */
const withRun = (g: Example, run: Partial<RunOptions>): Example => ({
  ...g,
  input: { [RUN_INPUT]: true, values: {}, run: { ...HELD, ...run } },
});
const STEP: AnyEventObject = { type: "STEP" };
const INPUT = { type: "INPUT", update: { topic: "statecharts" } };
const CONTINUE = { type: "RESUME", answers: {} };
const WRONG_ANSWER = { type: "RESUME", answers: { "not-an-interrupt": "yes" } };

/** Build a graph whose nodes write `by <node>`, or ask and write the answer. */
function example(
  name: string,
  nodes: string[],
  edges: Array<[string, string]>,
  joins: Array<[string[], string]>,
  options: Pick<Example, "asks" | "fails">,
): Example {
  const graph = new Graph({ name });
  for (const node of nodes) {
    const ask = options.asks[node];
    graph.addNode(node, () => ({ [node]: ask === undefined ? `by ${node}` : interrupt(ask) }));
  }
  for (const [from, to] of edges) graph.addEdge(from, to);
  for (const [from, to] of joins) graph.addEdge(from, to);
  const compiled = graph.compile();
  const input: GraphInput = { [RUN_INPUT]: true, values: {}, run: HELD };
  return { machine: compiled.machine, nodes: [START, ...nodes], edges, input, ...options };
}

/** START -> plan -> research + write in parallel -> join -> review -> approve (asks) -> END. */
const ex = example(
  "Example",
  ["plan", "research", "write", "review", "approve"],
  [
    [START, "plan"],
    ["plan", "research"],
    ["plan", "write"],
    ["review", "approve"],
    ["approve", END],
  ],
  [[["research", "write"], "review"]],
  { asks: { approve: "Publish?" }, fails: ["plan", "research"] },
);
const machine = ex.machine;
/** The example with a static breakpoint before review. */
const exBeforeReview = withRun(ex, { interruptBefore: ["review"] });

/** START -> ask + work in parallel -> END: a fan-out where one task pauses. */
const fork = example(
  "Fork",
  ["ask", "work"],
  [
    [START, "ask"],
    [START, "work"],
    ["ask", END],
    ["work", END],
  ],
  [],
  { asks: { ask: "Go?" }, fails: [] },
);

/** START -> ask + check + work in parallel -> END: a fan-out where two tasks pause. */
const poll = example(
  "Poll",
  ["ask", "check", "work"],
  [
    [START, "ask"],
    [START, "check"],
    [START, "work"],
    ["ask", END],
    ["check", END],
    ["work", END],
  ],
  [],
  { asks: { ask: "Go?", check: "Sure?" }, fails: ["work"] },
);

/** What the real runner reports for one task. */
function outcome(g: Example, task: TaskRecord): TaskOutcome {
  const ask = g.asks[task.node];
  if (task.kind === "node" && ask !== undefined && task.resumes.length === 0) {
    const reached = {
      id: interruptId({ ns: "", thread: undefined, stepOrigin: undefined }, task.id, 0),
      value: ask,
    };
    return { id: task.id, status: "interrupted", writes: null, next: null, interrupts: [reached] };
  }
  const writes: Array<[string, unknown]> =
    task.kind === "input"
      ? Object.entries((task.arg as { update: Record<string, unknown> }).update)
      : task.kind === "update"
        ? Object.entries(task.arg as Record<string, unknown>)
        : [[task.node, ask === undefined ? `by ${task.node}` : task.resumes[0]]];
  const from = task.kind === "input" ? START : task.node;
  const next: TaskSeed[] = g.edges
    .filter(([f, to]) => f === from && to !== END)
    .map(([, node]) => ({ node, kind: "node" }));
  return { id: task.id, status: "done", writes, next, interrupts: task.interrupts };
}

/** What a running lifecycle state asks the runner for: its node's pending tasks, or (no node) all. */
interface RunRequest {
  type: "RUN";
  node: string | undefined;
  context: GraphContext;
}

/** The lifecycle state (a graph node or `__fanout__`) that is running in `s`, if any. */
function runningLifecycle(s: Snap): string | undefined {
  if (s.status !== "active" || !s.hasTag("running")) return undefined;
  const [lifecycle] = Object.keys(
    (storedStateOf(s) as { stepping: Record<string, string> }).stepping,
  );
  return lifecycle;
}

/** The request the running state of `s` sent the runner (with the context it holds). */
function request(s: Snap): RunRequest | undefined {
  const lifecycle = runningLifecycle(s);
  if (lifecycle === undefined) return undefined;
  const node = lifecycle === "__fanout__" ? undefined : lifecycle;
  return { type: "RUN", node, context: s.context };
}

/** The tasks the runner runs for a request (as the real runner picks them). */
function tasksOf({ node, context }: RunRequest): TaskRecord[] {
  return context.tasks.filter(
    (t) => t.status === "pending" && (node === undefined || t.node === node),
  );
}

/** The tasks the runner runs in `s`: the running node's, or the fan-out's (none if nothing runs). */
const running = (s: Snap): TaskRecord[] => {
  const asked = request(s);
  return asked ? tasksOf(asked) : [];
};

/** The RUN requests a macrostep sends, as [to, type, node] (no node: every pending task). */
const requests = (actions: Parameters<typeof sent>[0]) =>
  sent(actions).map(([to, e]) => [to, e.type, (e as RunRequest).node]);

/**
 * What the runner answers while a state runs: one outcome per task it runs,
 * or (when one of them is a node in `fails`) an error.
 */
function answers(g: Example, s: Snap): AnyEventObject[] {
  const tasks = running(s);
  if (tasks.length === 0) return [];
  const done = { type: "TASKS.DONE", output: tasks.map((t) => outcome(g, t)) };
  const failing = tasks.find((t) => g.fails.includes(t.node));
  if (!failing) return [done];
  return [done, { type: "TASKS.ERROR", error: `${failing.node} failed` }];
}

/** The interrupt a paused task waits on. */
const pendingInterrupt = (t: TaskRecord) => t.interrupts.at(-1)!.id;

/** RESUME answering the pending interrupts of the waiting tasks of `nodes` (default: all). */
const resume =
  (...nodes: string[]) =>
  (s: Snap): AnyEventObject => {
    const answers: Record<string, unknown> = {};
    for (const t of s.context.tasks) {
      if (t.status === "interrupted" && (nodes.length === 0 || nodes.includes(t.node))) {
        answers[pendingInterrupt(t)] = "yes";
      }
    }
    return { type: "RESUME", answers };
  };
const resumeAll = resume();

/**
 * A restart after a crash in the step: the barrier restored with the saved
 * writes of the tasks that had finished, as `invoke` restores it. Made for a
 * barrier with several tasks, for each task alone and for all of them (only
 * tasks that finish can have finished).
 */
function restarts(g: Example, s: Snap): Snap[] {
  const { tasks } = s.context;
  if (tasks.length < 2 || tasks.some((t) => t.kind !== "node")) return [];
  const saved = tasks
    .map((t) => outcome(g, t))
    .filter((o) => o.status === "done")
    .map((o) => ({
      taskId: o.id,
      node: o.id.split(":")[1]!,
      writes: [...o.writes!, [ROUTE, o.next] as [string, unknown]],
    }));
  const sets = saved.map((write) => [write]);
  if (saved.length === tasks.length) sets.push(saved);
  // The barrier's own snapshot (its runner included), with the restored tasks.
  return sets.map((writes) => ({
    ...s,
    context: { ...s.context, tasks: recoverTasks(tasks, writes) },
  }));
}

/**
 * What can happen next. INPUT is offered only before the run starts: the
 * driver sends it at the start of every invoke, but from a later state it only
 * restarts the graph with a higher step count (an unbounded state space). The
 * driver acts only on a settled run (no state `running`): RESUME (with every
 * answer, and with each waiting task's answer alone) and `updateState` as a
 * node are offered when a task waits and none runs. STEP while stepping and
 * RESUME that answers nothing are offered everywhere in `stepping`, and a
 * RESUME answering a task still waiting while a resumed one runs: all must be
 * ignored. Without `updates`, no `updateState`: a plain run from the input.
 */
function events(g: Example, s: Snap, updates = true): AnyEventObject[] {
  if (s.status !== "active") return [];
  if (isAt(s, "idle")) return [INPUT];
  if (isAt(s, "barrier")) return [STEP];
  if (isAt(s, "breakpoint")) return [CONTINUE];
  const out = [...answers(g, s), STEP, WRONG_ANSWER];
  const waiting = s.context.tasks.filter((t) => t.status === "interrupted");
  if (waiting.length > 0 && s.hasTag("running")) out.push(resumeAll(s));
  if (waiting.length > 0 && !s.hasTag("running")) {
    out.push(resumeAll(s));
    if (waiting.length > 1) for (const t of waiting) out.push(resume(t.node)(s));
    if (updates) {
      for (const t of waiting) {
        out.push({ type: "UPDATE", update: { [t.node]: "edited" }, asNode: t.node });
      }
    }
  }
  return out;
}

/** The shortest paths (state and context tell snapshots apart: a request follows from them). */
const traverse = (g: Example, updates = true) =>
  getShortestPaths(g.machine, {
    input: g.input,
    events: ((s: Snap) => events(g, s, updates)) as never,
  }) as unknown as Path[];

const paths = traverse(ex);
const forkPaths = traverse(fork);
const pollPaths = traverse(poll);
const traversals = [
  [ex, paths],
  [exBeforeReview, traverse(exBeforeReview)],
  [fork, forkPaths],
  [poll, pollPaths],
] as const;
/** Without updateState: how the driver runs the example from its input. */
const plainPaths = traverse(ex, false);

/** The traversal from every barrier of `traversal` restored after a crash (see `restarts`). */
const traverseRestored = (g: Example, traversal: Path[]) =>
  traversal
    .flatMap((p) => (isAt(p.state, "barrier") ? restarts(g, p.state) : []))
    .flatMap(
      (fromState) =>
        getShortestPaths(g.machine, {
          fromState,
          events: ((s: Snap) => events(g, s)) as never,
        }) as unknown as Path[],
    );
/** Every traversal, restarts included (those cannot be replayed from the input). */
const explored = [
  ...traversals,
  [ex, traverseRestored(ex, paths)],
  [fork, traverseRestored(fork, forkPaths)],
  [poll, traverseRestored(poll, pollPaths)],
] as const;

/** Every snapshot the traversal passes through, transient microsteps included. */
const passed = (g: Example, traversal: Path[]) =>
  microsteps(g.machine, g.input, traversal, (s: Snap) => events(g, s));

/** The graph nodes whose lifecycle state is active. */
const activeNodes = (g: Example, s: Snap) => g.nodes.filter((n) => isAt(s, { stepping: n }));
/** The lifecycle state of `node` (a graph node or `__fanout__`), if active. */
const nodeState = (s: Snap, node: string): string | undefined =>
  isAt(s, { stepping: node })
    ? (storedStateOf(s) as { stepping: Record<string, string> }).stepping[node]
    : undefined;

/** The runner's answer of `type` while `node`'s state (`__fanout__`: the fan-out's) runs. */
const answerFor =
  (type: string, node: string, g: Example) =>
  (s: Snap): AnyEventObject => {
    const event = runningLifecycle(s) === node && answers(g, s).find((e) => e.type === type);
    if (!event) throw new Error(`no ${type} while ${node} runs`);
    return event;
  };
/** The runner's TASKS.DONE for `node`'s tasks (`__fanout__`: the fan-out's). */
const finish = (node: string, g: Example = ex) => answerFor("TASKS.DONE", node, g);
/** The runner's TASKS.DONE for the fan-out. */
const fanout = (g: Example = ex) => finish("__fanout__", g);
/** The runner's TASKS.ERROR for `node`'s tasks (`__fanout__`: the fan-out's). */
const failure = (node: string, g: Example = ex) => answerFor("TASKS.ERROR", node, g);

/** Apply events (or event builders) in order with the machine's pure transition. */
function walk(g: Example, ...sequence: Step[]): Snap[] {
  let s = initialTransition(g.machine, g.input)[0] as Snap;
  const seen: Snap[] = [];
  for (const e of sequence) {
    s = transition(g.machine, s, typeof e === "function" ? e(s) : e)[0] as Snap;
    seen.push(s);
  }
  return seen;
}
const last = (g: Example, ...sequence: Step[]) => walk(g, ...sequence).at(-1)!;

/** Up to the barrier before research and write. */
const toFanout: Step[] = [INPUT, STEP, finish(START), STEP, finish("plan")];
/** Up to the barrier before review: research and write in parallel. */
const toReview: Step[] = [...toFanout, STEP, fanout()];
/** Up to approve's pause. */
const toApprove: Step[] = [...toReview, STEP, finish("review"), STEP, finish("approve")];

/** A run environment like `invoke()`'s, with a (never used) checkpointer so nodes may interrupt. */
const env = (): RunEnv => ({
  config: {},
  context: undefined,
  signal: undefined,
  persistent: true,
  ns: "",
  emit: undefined,
  thread: undefined,
  stepOrigin: undefined,
});

/** Replays let the runner fail with the model's error (no node really throws), in an environment like `invoke()`'s. */
const replayOptions = {
  injectErrors: true,
  prepare: (actor: AnyActorRef) => attachRunEnv(actor, env()),
};

describe("a compiled graph's machine", () => {
  it("puts the workflow first, then the run loop's states: its own grouped in runtime", () => {
    expect(Object.keys(machine.root.states)).toEqual([
      "workflow",
      "runtime",
      "idle",
      "done",
      "failed",
    ]);
    const runtime = machine.getStateNodeById("Example.runtime");
    expect(Object.keys(runtime.states)).toEqual(["barrier", "fanout", "breakpoint"]);
    // Every state of the run loop's chart is there, `stepping` split between the two groups.
    const { stepping: _, ...loop } = runMachine.root.states;
    for (const key of Object.keys(loop)) {
      expect(machine.root.states[key] ?? runtime.states[key]).toBeDefined();
    }
  });

  it("invokes one task runner for the whole run, which the machine implements", () => {
    expect(machine.root.invoke.map((i) => [i.id, i.src])).toEqual([["tasks", "taskRunner"]]);
    expect(Object.keys(machine.implementations.actors)).toEqual(["taskRunner"]);
    const failing = machine.root.on["TASKS.ERROR"]!;
    expect(failing.map((t) => [t.target!.map((s) => s.id), t.actions])).toEqual([
      [["Example.failed"], ["recordFailure"]],
    ]);
  });

  it("has one task-lifecycle state per graph node in workflow, and fanout in runtime, each entered from the barrier", () => {
    const stepping = machine.getStateNodeById("Example.workflow");
    expect(stepping.type).toBe("compound");
    expect(Object.keys(stepping.states)).toEqual([
      START,
      "plan",
      "research",
      "write",
      "review",
      "approve",
    ]);
    expect(Object.keys(stepping.on)).toEqual([]);
    // The barrier takes the decisions it raises: one RUN.<node> per node, and the chart's others.
    const dispatch = machine.getStateNodeById("Example.runtime.barrier");
    expect(Object.keys(dispatch.on).sort()).toEqual(
      [
        "STEP",
        "BREAKPOINT",
        "FINISH",
        "RECURSION_LIMIT",
        "FANOUT",
        "SETTLED",
        ...ex.nodes.map((n) => `RUN.${n}`),
      ].sort(),
    );
    expect(dispatch.on.SETTLED![0]!.target!.map((t) => t.id)).toEqual(["Example.runtime.barrier"]);
    // Each lifecycle asks the runner for its node's tasks (the fan-out: for all of them),
    // and when they are done goes to the barrier, or (a node) straight along one of its
    // declared edges when the barrier would only send the run there.
    const lifecycles: Array<[string, unknown, string]> = [
      ["__fanout__", "runTasks", "FANOUT"],
      ...ex.nodes.map((node): [string, unknown, string] => [
        node,
        { type: "runTasks", params: { node } },
        `RUN.${node}`,
      ]),
    ];
    const lifecycleStates = Object.keys(taskMachine.root.states).filter((k) => k !== "done");
    for (const [name, runTasks, dispatchedBy] of lifecycles) {
      const state = machine.getStateNodeById(lifecycleId("Example", name));
      expect(Object.keys(state.states)).toEqual(lifecycleStates);
      expect(state.initial.target.map((t) => t.key)).toEqual(["running"]);
      const { running } = state.states;
      expect([running!.tags, running!.entry, running!.invoke]).toEqual([
        ["running"],
        [runTasks],
        [],
      ]);
      const finished = running!.on["TASKS.DONE"]!.map((t) => t.target!.map((s) => s.id));
      // Its edges, then its joins (research and write each join into review).
      const joined = ["research", "write"].includes(name) ? ["review"] : [];
      const along = [
        ...ex.edges.filter(([from]) => from === name).map(([, to]) => to),
        ...joined,
      ].map((to) => [to === END ? "Example.done" : `Example.workflow.${to}`]);
      expect(finished).toEqual([
        [`${state.id}.interrupted`],
        ...along,
        ["Example.runtime.barrier"],
      ]);
      const [target] = dispatch.on[dispatchedBy]![0]!.target!;
      expect(target).toBe(state);
    }
  });

  it("implements every guard and action the lifecycle charts name", () => {
    for (const chart of [runMachine, taskMachine]) {
      expect(Object.keys(machine.implementations.guards)).toEqual(
        expect.arrayContaining(Object.keys(chart.implementations.guards)),
      );
      expect(Object.keys(machine.implementations.actions)).toEqual(
        expect.arrayContaining(Object.keys(chart.implementations.actions)),
      );
    }
  });

  it("reaches every node's running state, which finishes straight at the barrier; only approve and the forks' tasks are ever interrupted", () => {
    const reached = statesEntered(
      machine,
      explored.filter(([g]) => g.machine === machine).flatMap(([g, t]) => passed(g, t)),
    );
    const all = stateNodes(machine).map((n) => n.id);
    const unreached = all.filter((id) => !reached.has(id));
    expect(unreached.sort()).toEqual(
      ["__fanout__", START, "plan", "research", "write", "review"]
        .map((node) => `${lifecycleId("Example", node)}.interrupted`)
        .sort(),
    );
    for (const node of ["__fanout__", ...ex.nodes]) {
      expect(reached).toContain(`${lifecycleId("Example", node)}.running`);
    }
    expect(reached).toContain("Example.workflow.approve.interrupted");
    // Every lifecycle's finished work passes through no other state on its way to the barrier.
    const finished = new Set<string>();
    for (const { state } of explored.filter(([g]) => g === ex).flatMap(([, t]) => t)) {
      for (const event of events(ex, state).filter((e) => e.type === "TASKS.DONE")) {
        const through = passesThrough(machine, state, event);
        if (through.at(-1) === "barrier") {
          expect(through).toEqual(["barrier"]);
          finished.add(runningLifecycle(state)!);
        }
      }
    }
    expect([...finished].sort()).toEqual(["__fanout__", ...ex.nodes].sort());
    // In the forks the fan-out pauses; in Fork, ask also pauses alone (after a
    // crash that recovered work's write).
    for (const g of [fork, poll]) {
      const entered = statesEntered(
        g.machine,
        explored.filter(([h]) => h === g).flatMap(([, t]) => passed(g, t)),
      );
      const lifecycles = g === fork ? ["__fanout__", "ask"] : ["__fanout__"];
      for (const node of lifecycles) {
        for (const state of ["running", "interrupted"]) {
          expect(entered).toContain(`${lifecycleId(g.machine.id, node)}.${state}`);
        }
      }
    }
  });

  it("the runner is the only child; in a fan-out no node state is active and it runs all the step's pending tasks, a lone task's state only its node's", () => {
    const solo = new Map<string, number>();
    const fanned = new Map<string, number>();
    const count = (m: Map<string, number>, g: Example) =>
      m.set(g.machine.id, (m.get(g.machine.id) ?? 0) + 1);
    for (const [g, traversal] of explored) {
      for (const s of passed(g, traversal)) {
        // Always the one runner (a final snapshot still lists it, stopped).
        expect(children(s)).toEqual(["tasks"]);
        const lifecycle = runningLifecycle(s);
        if (!isAt(s, "stepping")) {
          expect(lifecycle).toBeUndefined();
          continue;
        }
        const active = activeNodes(g, s);
        const { tasks } = s.context;
        if (isAt(s, { stepping: "__fanout__" })) {
          // Several tasks, one request for all of them; no node's state is active.
          count(fanned, g);
          expect(active).toEqual([]);
          expect(tasks.length).toBeGreaterThan(1);
          if (nodeState(s, "__fanout__") === "running") {
            expect([lifecycle, request(s)!.node]).toEqual(["__fanout__", undefined]);
            // It runs the step's pending tasks (all of them, or the answered ones).
            const ids = running(s).map((t) => t.id);
            expect(ids.length).toBeGreaterThan(0);
            expect(ids).toEqual(tasks.filter((t) => t.status === "pending").map((t) => t.id));
          } else {
            expect(lifecycle).toBeUndefined();
          }
        } else {
          // One task runs (or waits) in its node's state (after a restart, beside recovered ones).
          count(solo, g);
          expect(active).toHaveLength(1);
          const [node] = active;
          expect(tasks.filter((t) => t.node === node)).toHaveLength(1);
          expect(tasks.filter((t) => t.node !== node && t.status !== "done")).toEqual([]);
          expect(lifecycle).toBe(nodeState(s, node!) === "running" ? node : undefined);
        }
      }
    }
    // Every example ran steps of both kinds.
    expect([...solo.keys()].sort()).toEqual(["Example", "Fork", "Poll"]);
    expect([...fanned.keys()].sort()).toEqual(["Example", "Fork", "Poll"]);
  });

  it("a state asks the runner for work once, on entering running: its node's tasks (the fan-out: all), with the context it holds", () => {
    const askedBy = new Set<string>();
    for (const [g, traversal] of explored) {
      for (const { state } of traversal) {
        for (const event of events(g, state)) {
          const [next, actions] = transition(g.machine, state, event) as [Snap, never];
          const entered = !state.hasTag("running") && next.hasTag("running");
          // Each RUN is sent to the runner and is the request the state holds.
          // (Less the asking actor, which the request names so the runner finds its environment.)
          const asked = sent(actions).map(([to, { graph: _, ...e }]) => [to, e]);
          same(asked, entered ? [["tasks", request(next)]] : []);
          if (entered) askedBy.add(`${g.machine.id}.${runningLifecycle(next)}`);
        }
      }
    }
    // Every lifecycle state of the example asked, the fan-out's included.
    const example = [...askedBy].filter((id) => id.startsWith("Example."));
    expect(example.sort()).toEqual(["__fanout__", ...ex.nodes].map((n) => `Example.${n}`).sort());
  });

  it("runs the example to done: plan, research and write together, review, approve", () => {
    const done = plainPaths.find((p) => storedStateOf(p.state) === "done")!;
    const answered = done.steps.flatMap((step, i) =>
      step.event.type === "TASKS.DONE"
        ? [[runningLifecycle(done.steps[i - 1]!.state), step.event.output as TaskOutcome[]]]
        : [],
    );
    // approve runs twice (paused, then answered).
    expect(
      answered.map(([, output]) =>
        (output as TaskOutcome[]).map((o) => o.id.split(":")[1]).join("+"),
      ),
    ).toEqual([START, "plan", "research+write", "review", "approve", "approve"]);
    // The state that asked for each: the node's own, or the fan-out.
    expect(answered.map(([lifecycle]) => lifecycle)).toEqual([
      START,
      "plan",
      "__fanout__",
      "review",
      "approve",
      "approve",
    ]);
    expect(done.steps.filter((step) => step.event.type === "STEP")).toHaveLength(6);
    expect(done.state.context.values).toEqual({
      topic: "statecharts",
      plan: "by plan",
      research: "by research",
      write: "by write",
      review: "by review",
      approve: "yes",
    });
  });

  it("a step with one task enters only that node's state", () => {
    const barrier = last(ex, INPUT, STEP, finish(START));
    expect(barrier.context.tasks.map((t) => t.node)).toEqual(["plan"]);
    expect(passesThrough(ex.machine, barrier, STEP)).toEqual([
      "barrier",
      { stepping: { plan: "running" } },
    ]);
    const [solo, stepping] = transition(machine, barrier, STEP) as [Snap, never];
    expect(activeNodes(ex, solo)).toEqual(["plan"]);
    expect(requests(stepping)).toEqual([["tasks", "RUN", "plan"]]);
    expect(running(solo).map((t) => t.id)).toEqual(["1:plan:0"]);
    expect(passesThrough(ex.machine, solo, finish("plan")(solo))).toEqual(["barrier"]);
  });

  it("runs research and write as a fan-out in one request, with no node state active", () => {
    const barrier = last(ex, ...toFanout);
    expect(barrier.context.tasks.map((t) => t.id)).toEqual(["2:research:0", "2:write:0"]);
    expect(passesThrough(ex.machine, barrier, STEP)).toEqual([
      "barrier",
      { stepping: { __fanout__: "running" } },
    ]);
    expect(requests(transition(machine, barrier, STEP)[1])).toEqual([["tasks", "RUN", undefined]]);
    const [fanned, merged] = walk(ex, ...toReview).slice(-2);
    expect(storedStateOf(fanned!)).toEqual({ stepping: { __fanout__: "running" } });
    expect(activeNodes(ex, fanned!)).toEqual([]);
    for (const node of ex.nodes) expect(isAt(fanned!, { stepping: node })).toBe(false);
    expect(running(fanned!).map((t) => t.id)).toEqual(["2:research:0", "2:write:0"]);
    const answer = fanout()(fanned!);
    expect((answer.output as TaskOutcome[]).map((o) => [o.id, o.status])).toEqual([
      ["2:research:0", "done"],
      ["2:write:0", "done"],
    ]);
    expect(passesThrough(ex.machine, fanned!, answer)).toEqual(["barrier"]);
    // Both merge at once: review runs once, after both.
    expect([storedStateOf(merged!), merged!.hasTag("running")]).toEqual(["barrier", false]);
    expect(merged!.context.tasks.map((t) => t.node)).toEqual(["review"]);
    expect(merged!.context.joins).toEqual({});
    expect(merged!.context.values).toMatchObject({ research: "by research", write: "by write" });
  });

  it("a paused node waits in interrupted with nothing running", () => {
    const paused = last(ex, ...toApprove);
    expect(nodeState(paused, "approve")).toBe("interrupted");
    expect(activeNodes(ex, paused)).toEqual(["approve"]);
    expect([paused.hasTag("running"), running(paused)]).toEqual([false, []]);
    const [approve] = paused.context.tasks;
    expect(approve).toMatchObject({ node: "approve", status: "interrupted" });
  });

  it("a paused node resumes into running only with an answer to its interrupt", () => {
    const [wrong, right, finished, end] = walk(
      ex,
      ...toApprove,
      WRONG_ANSWER,
      resumeAll,
      finish("approve"),
      STEP,
    ).slice(-4);
    expect(nodeState(wrong!, "approve")).toBe("interrupted");
    expect(requests(transition(machine, last(ex, ...toApprove), WRONG_ANSWER)[1])).toEqual([]);
    expect(nodeState(right!, "approve")).toBe("running");
    expect(right!.context.tasks[0]).toMatchObject({ status: "pending", resumes: ["yes"] });
    expect(requests(transition(machine, wrong!, resumeAll(wrong!))[1])).toEqual([
      ["tasks", "RUN", "approve"],
    ]);
    expect(storedStateOf(finished!)).toBe("barrier");
    expect(storedStateOf(end!)).toBe("done");
    expect(end!.context.values.approve).toBe("yes");
  });

  it("a fan-out where one task pauses waits in __fanout__.interrupted with nothing running; RESUME re-runs only that task", () => {
    const fanned = last(fork, INPUT, STEP, finish(START, fork), STEP);
    expect([storedStateOf(fanned), runningLifecycle(fanned)]).toEqual([
      { stepping: { __fanout__: "running" } },
      "__fanout__",
    ]);
    expect(running(fanned).map((t) => t.id)).toEqual(["1:ask:0", "1:work:0"]);
    const paused = transition(fork.machine, fanned, fanout(fork)(fanned))[0] as Snap;
    expect([storedStateOf(paused), paused.hasTag("running"), activeNodes(fork, paused)]).toEqual([
      { stepping: { __fanout__: "interrupted" } },
      false,
      [],
    ]);
    expect(paused.context.tasks.map((t) => [t.node, t.status])).toEqual([
      ["ask", "interrupted"],
      ["work", "done"],
    ]);
    expect(view(transition(fork.machine, paused, WRONG_ANSWER)[0] as Snap)).toEqual(view(paused));
    const [resumed, resuming] = transition(fork.machine, paused, resumeAll(paused)) as [
      Snap,
      never,
    ];
    expect([storedStateOf(resumed), requests(resuming)]).toEqual([
      { stepping: { __fanout__: "running" } },
      [["tasks", "RUN", undefined]],
    ]);
    // Only the answered task runs again; work's finished outcome is kept for the merge.
    expect(running(resumed).map((t) => t.id)).toEqual(["1:ask:0"]);
    const answer = fanout(fork)(resumed);
    expect((answer.output as TaskOutcome[]).map((o) => [o.id, o.status])).toEqual([
      ["1:ask:0", "done"],
    ]);
    expect(passesThrough(fork.machine, resumed, answer)).toEqual(["barrier"]);
    const merged = transition(fork.machine, resumed, answer)[0] as Snap;
    expect([storedStateOf(merged), merged.hasTag("running")]).toEqual(["barrier", false]);
    expect(merged.context.values).toEqual({ topic: "statecharts", ask: "yes", work: "by work" });
    expect(storedStateOf(transition(fork.machine, merged, STEP)[0] as Snap)).toBe("done");
    // The traversal found the same paused fan-out.
    expect(forkPaths.some((p) => nodeState(p.state, "__fanout__") === "interrupted")).toBe(true);
  });

  it("a fan-out where two tasks pause: a partial answer re-runs one and keeps waiting for the other", () => {
    const toPaused: Step[] = [INPUT, STEP, finish(START, poll), STEP, fanout(poll)];
    const paused = last(poll, ...toPaused);
    expect(nodeState(paused, "__fanout__")).toBe("interrupted");
    expect(paused.context.tasks.map((t) => [t.node, t.status])).toEqual([
      ["ask", "interrupted"],
      ["check", "interrupted"],
      ["work", "done"],
    ]);
    // Answer ask only: only ask re-runs; check still waits, so the step waits again.
    const [resumed, again, resumed2, merged] = walk(
      poll,
      ...toPaused,
      resume("ask"),
      fanout(poll),
      resume("check"),
      fanout(poll),
    ).slice(-4);
    expect([nodeState(resumed!, "__fanout__"), running(resumed!).map((t) => t.node)]).toEqual([
      "running",
      ["ask"],
    ]);
    expect([nodeState(again!, "__fanout__"), again!.hasTag("running")]).toEqual([
      "interrupted",
      false,
    ]);
    expect(again!.context.tasks.map((t) => [t.node, t.status])).toEqual([
      ["ask", "done"],
      ["check", "interrupted"],
      ["work", "done"],
    ]);
    expect(running(resumed2!).map((t) => t.node)).toEqual(["check"]);
    expect(storedStateOf(merged!)).toBe("barrier");
    expect(merged!.context.values).toEqual({
      topic: "statecharts",
      ask: "yes",
      check: "yes",
      work: "by work",
    });
    // Answering both re-runs both, and the step merges.
    const [both, mergedAtOnce] = walk(poll, ...toPaused, resumeAll, fanout(poll)).slice(-2);
    expect(running(both!).map((t) => t.node)).toEqual(["ask", "check"]);
    expect(mergedAtOnce!.context.values).toEqual(merged!.context.values);
    // The traversal took the partial answers as well.
    const partial = pollPaths.filter(
      (p) =>
        nodeState(p.state, "__fanout__") === "interrupted" &&
        p.state.context.tasks.filter((t) => t.status === "interrupted").length === 1,
    );
    expect(partial.length).toBeGreaterThan(0);
  });

  it("stops at a static breakpoint before review, and RESUME continues from the barrier", () => {
    const [atBreakpoint, back, stepping] = walk(
      exBeforeReview,
      ...toReview,
      STEP,
      CONTINUE,
      STEP,
    ).slice(-3);
    expect(storedStateOf(atBreakpoint!)).toBe("breakpoint");
    expect(atBreakpoint!.context.breakpoint).toMatchObject({ node: "review", timing: "before" });
    expect(storedStateOf(back!)).toBe("barrier");
    expect(nodeState(stepping!, "review")).toBe("running");
  });

  it("fails the run when the runner reports a task's error, alone or in a fan-out", () => {
    const solo = last(ex, INPUT, STEP, finish(START), STEP, failure("plan"));
    const fanned = last(ex, ...toFanout, STEP, failure("__fanout__"));
    const polled = last(poll, INPUT, STEP, finish(START, poll), STEP, failure("__fanout__", poll));
    for (const [failed, error] of [
      [solo, "plan failed"],
      [fanned, "research failed"],
      [polled, "work failed"],
    ] as const) {
      expect([
        storedStateOf(failed),
        failed.status,
        failed.context.error,
        failed.hasTag("running"),
      ]).toEqual(["failed", "done", error, false]);
    }
  });

  it("fails the run at the barrier once the recursion limit is spent", () => {
    const limited = withRun(ex, { recursionLimit: 1 });
    const failed = last(limited, INPUT, STEP, finish(START), STEP, finish("plan"), STEP);
    expect(storedStateOf(failed)).toBe("failed");
    expect(failed.context.error).toBeInstanceOf(RecursionLimitError);
  });

  it("settles at once when every task of the restored step was recovered (SETTLED), or runs the rest", () => {
    const barrier = last(ex, ...toFanout);
    const [research, write, both] = restarts(ex, barrier);
    expect(both!.context.tasks.map((t) => t.status)).toEqual(["done", "done"]);
    expect(passesThrough(ex.machine, both!, STEP)).toEqual(["barrier"]);
    const [settled, settling] = transition(machine, both!, STEP) as [Snap, never];
    expect(requests(settling)).toEqual([]);
    expect(settled.context.tasks.map((t) => t.node)).toEqual(["review"]);
    expect(settled.context.values).toMatchObject({ research: "by research", write: "by write" });
    // One recovered: the other runs alone, in its node's state.
    for (const [restored, node] of [
      [research!, "write"],
      [write!, "research"],
    ] as const) {
      expect(passesThrough(ex.machine, restored, STEP).at(-1)).toEqual({
        stepping: { [node]: "running" },
      });
      const [solo, stepping] = transition(machine, restored, STEP) as [Snap, never];
      expect(requests(stepping)).toEqual([["tasks", "RUN", node]]);
      const merged = transition(machine, solo, finish(node)(solo))[0] as Snap;
      expect(merged.context).toMatchObject({
        tasks: [{ node: "review" }],
        values: { research: "by research", write: "by write" },
      });
    }
    // One of three recovered: the other two still fan out, and only they run.
    const pollBarrier = last(poll, INPUT, STEP, finish(START, poll));
    const [work] = restarts(poll, pollBarrier);
    const fanned = transition(poll.machine, work!, STEP)[0] as Snap;
    expect([nodeState(fanned, "__fanout__"), running(fanned).map((t) => t.node)]).toEqual([
      "running",
      ["ask", "check"],
    ]);
    // In Fork, work recovered: ask runs alone, and pauses in its own state.
    const forkBarrier = last(fork, INPUT, STEP, finish(START, fork));
    const [askLeft] = restarts(fork, forkBarrier);
    const alone = transition(fork.machine, askLeft!, STEP)[0] as Snap;
    expect(runningLifecycle(alone)).toBe("ask");
    const paused = transition(fork.machine, alone, finish("ask", fork)(alone))[0] as Snap;
    expect(nodeState(paused, "ask")).toBe("interrupted");
  });

  it("updateState as the paused node replaces its task, which then runs alone", () => {
    const paused = last(ex, ...toApprove);
    const update = { type: "UPDATE", update: { approve: "edited" }, asNode: "approve" };
    const [solo, merged, end] = walk(ex, ...toApprove, update, finish("approve"), STEP).slice(-3);
    // The barrier it opens does not hold: the update's task runs at once.
    expect(passesThrough(machine, paused, update)).toEqual([
      "barrier",
      { stepping: { approve: "running" } },
    ]);
    expect(solo!.context.tasks).toMatchObject([
      { node: "approve", kind: "update", status: "pending" },
    ]);
    expect([nodeState(solo!, "approve"), runningLifecycle(solo!)]).toEqual(["running", "approve"]);
    expect([storedStateOf(merged!), storedStateOf(end!), end!.context.values.approve]).toEqual([
      "barrier",
      "done",
      "edited",
    ]);
    // A plain update changes values only.
    const plain = transition(machine, paused, { type: "UPDATE", update: { note: "n" } })[0] as Snap;
    expect([storedStateOf(plain), plain.context.values.note]).toEqual([storedStateOf(paused), "n"]);
  });

  it("updateState as a node on a paused fan-out replaces the step's tasks, keeping finished writes", () => {
    const update = { type: "UPDATE", update: { ask: "edited" }, asNode: "ask" };
    const [solo, merged, end] = walk(
      fork,
      INPUT,
      STEP,
      finish(START, fork),
      STEP,
      fanout(fork),
      update,
      finish("ask", fork),
      STEP,
    ).slice(-3);
    expect(solo!.context.tasks).toMatchObject([{ node: "ask", kind: "update", status: "pending" }]);
    expect([activeNodes(fork, solo!), runningLifecycle(solo!)]).toEqual([["ask"], "ask"]);
    expect([storedStateOf(merged!), storedStateOf(end!)]).toEqual(["barrier", "done"]);
    // The paused step's tasks are replaced, but work had finished: its write is merged first.
    expect(end!.context.values).toMatchObject({ topic: "statecharts", ask: "edited" });
    expect(Object.keys(end!.context.values).sort()).toEqual(["ask", "topic", "work"]);
  });

  it("ignores RESUME at the barrier, with no answer or while running, and STEP while stepping", () => {
    const [barrier] = walk(ex, INPUT);
    expect(barrier!.can(CONTINUE as never)).toBe(false);
    expect(view(transition(machine, barrier!, CONTINUE)[0] as Snap)).toEqual(view(barrier!));
    const cases: Array<[Example, Snap]> = [
      [ex, last(ex, INPUT, STEP)],
      [ex, last(ex, ...toFanout, STEP)],
      [ex, last(ex, ...toApprove)],
      [fork, last(fork, INPUT, STEP, finish(START, fork), STEP, fanout(fork))],
      // A resumed task runs while the other still waits: its answer must wait too.
      [poll, last(poll, INPUT, STEP, finish(START, poll), STEP, fanout(poll), resume("ask"))],
    ];
    for (const [g, s] of cases) {
      expect(isAt(s, "stepping")).toBe(true);
      const ignored: AnyEventObject[] = [STEP, WRONG_ANSWER];
      if (s.hasTag("running")) ignored.push(resumeAll(s));
      for (const event of ignored) {
        expect(s.can(event as never)).toBe(false);
        const [after, actions] = transition(g.machine, s, event) as [Snap, never];
        expect([view(after), requests(actions)]).toEqual([view(s), []]);
      }
    }
    // The last case did offer a real answer while running.
    const [, runningWithWaiting] = cases.at(-1)!;
    expect(runningWithWaiting.hasTag("running")).toBe(true);
    expect(Object.keys(resumeAll(runningWithWaiting).answers as object)).toHaveLength(1);
  });

  it("takes the barrier's decisions (RUN.<node>, FANOUT, SETTLED, FINISH, BREAKPOINT, RECURSION_LIMIT) at the barrier only", () => {
    let checked = 0;
    for (const [g, traversal] of explored) {
      const decisions = [
        ...g.nodes.map((n) => ({ type: `RUN.${n}` })),
        { type: "FANOUT" },
        { type: "SETTLED" },
        { type: "FINISH" },
        { type: "BREAKPOINT", node: "review", timing: "before" },
        { type: "RECURSION_LIMIT", limit: 1 },
      ];
      for (const { state } of traversal) {
        if (state.status !== "active" || isAt(state, "barrier")) continue;
        for (const event of decisions) {
          expect(state.can(event as never)).toBe(false);
          same(view(transition(g.machine, state, event)[0] as Snap), view(state));
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(100);
  });

  it("every transition the traversal takes agrees with a real run of the real task runner", async () => {
    let replayed = 0;
    for (const [g, traversal] of traversals) {
      const offered = (s: Snap) => events(g, s);
      const paths = () => traversal;
      replayed += await replayExtendedPaths(g.machine, [g.input], paths, offered, replayOptions);
    }
    expect(replayed).toBeGreaterThan(140);
  });
});
