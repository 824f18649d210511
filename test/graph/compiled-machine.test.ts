/**
 * Model-based tests of a compiled graph's machine: the run loop whose
 * `stepping` state holds one task-lifecycle region per graph node.
 *
 * The traversal plays the driver (INPUT, STEP, RESUME) and the node actors:
 * while a node's region is `running`, the node's promise actor would answer
 * with `xstate.done.actor.task:<node>` carrying a `TaskOutcome[]`. Those
 * outcomes are built here from the tasks in the machine's context, routing
 * along the example's static edges, so compile.ts's own guards and actions
 * (task bookkeeping, joins, breakpoints, recursion limit) decide every step.
 */
import { getShortestPaths, type StatePath } from "@xstate/graph";
import { describe, expect, it } from "vitest";
import {
  type AnyEventObject,
  getInitialMicrosteps,
  getMicrosteps,
  initialTransition,
  type MachineSnapshot,
  transition,
} from "xstate";
import { runMachine } from "../../machines/run.machine.js";
import { taskMachine } from "../../machines/task.machine.js";
import { END, Graph, interrupt, RecursionLimitError, START } from "../../src/index.js";
import { interruptId } from "../../src/runtime/interrupt.js";
import type { GraphContext, TaskOutcome, TaskRecord } from "../../src/runtime/task.js";

/** The example's static edges, as data: the stand-in node actors route along them. */
const edges: Array<[string, string]> = [
  [START, "plan"],
  ["plan", "research"],
  ["plan", "write"],
  ["review", "approve"],
  ["approve", END],
];

const graph = new Graph({ name: "Example" })
  .addNode("plan", () => ({ plan: "outline" }))
  .addNode("research", () => ({ notes: "facts" }))
  .addNode("write", () => ({ draft: "text" }))
  .addNode("review", (s) => ({ review: `ok: ${s.draft}` }))
  .addNode("approve", () => ({ approved: interrupt("Publish?") }));
for (const [from, to] of edges) graph.addEdge(from, to);
graph.addEdge(["research", "write"], "review");
const compiled = graph.compile();
const machine = compiled.machine;
const regions = [START, ...compiled.nodes];

type Snap = MachineSnapshot<GraphContext, AnyEventObject, any, any, any, any, any, any>;
type Path = StatePath<Snap, AnyEventObject>;

const input = { values: {} };
const STEP = { type: "STEP", recursionLimit: 25, interruptBefore: [], interruptAfter: [] };
const STEP_BEFORE_REVIEW = { ...STEP, interruptBefore: ["review"] };
const INPUT = { type: "INPUT", update: { topic: "statecharts" } };
const CONTINUE = { type: "RESUME", answers: {} };

/** What a node's real actor reports for one task: approve pauses until answered. */
function outcome(task: TaskRecord): TaskOutcome {
  if (task.node === "approve" && task.resumes.length === 0) {
    const reached = { id: interruptId("", task.id, 0), value: "Publish?" };
    return { id: task.id, status: "interrupted", writes: null, next: null, interrupts: [reached] };
  }
  const writes: Array<[string, unknown]> =
    task.kind === "input"
      ? Object.entries((task.arg as { update: Record<string, unknown> }).update)
      : [[task.node, `by ${task.node}`]];
  const next = edges
    .filter(([from, to]) => from === task.node && to !== END)
    .map(([, node]) => ({ node, kind: "node" as const }));
  return { id: task.id, status: "done", writes, next, interrupts: task.interrupts };
}

/** The done event of `node`'s actor, for the tasks it is running. */
function answer(s: Snap, node: string): AnyEventObject {
  const running = s.context.tasks.filter((t) => t.node === node && t.status === "pending");
  return { type: `xstate.done.actor.task:${node}`, output: running.map(outcome) };
}

/** RESUME answering every pending interrupt of `node`. */
function resume(s: Snap, node: string): AnyEventObject {
  const answers: Record<string, unknown> = {};
  for (const t of s.context.tasks) {
    if (t.node === node && t.status === "interrupted") answers[t.interrupts.at(-1)!.id] = "yes";
  }
  return { type: "RESUME", answers };
}

const regionState = (s: Snap, node: string): string | undefined =>
  s.matches("stepping")
    ? (s.value as { stepping: Record<string, string> }).stepping[node]
    : undefined;

/**
 * What can happen next. INPUT is offered only before the run starts: the
 * driver sends it at the start of every invoke, but from a later state it only
 * restarts the graph with a higher step count (an unbounded state space).
 */
function events(s: Snap): AnyEventObject[] {
  if (s.status !== "active") return [];
  if (s.matches("idle")) return [INPUT];
  if (s.matches("barrier")) return [STEP, STEP_BEFORE_REVIEW];
  if (s.matches("breakpoint")) return [CONTINUE];
  const out: AnyEventObject[] = [];
  for (const node of regions) {
    const state = regionState(s, node);
    if (state === "running") out.push(answer(s, node));
    if (state === "interrupted") out.push(resume(s, node), { type: "RESUME", answers: { x: 1 } });
  }
  if (regionState(s, "research") === "running") {
    out.push({ type: "xstate.error.actor.task:research", error: "no sources" });
  }
  return out;
}

const paths = getShortestPaths(machine, { input, events: events as never }) as unknown as Path[];

/** Every state node id of the machine. */
const stateIds: string[] = [];
const collect = (node: { states: Record<string, { id: string }> }) => {
  for (const child of Object.values(node.states)) {
    stateIds.push(child.id);
    collect(child as never);
  }
};
collect(machine.root);

/**
 * Ids of every state node active at some microstep of the traversal, transient
 * states included. A shortest path's prefix is the shortest path to an earlier
 * state, so the initial microsteps plus each path's last step cover every step.
 */
function statesEntered(paths: Path[]): Set<string> {
  const snapshots: Snap[] = getInitialMicrosteps(machine, input).map(([s]) => s as Snap);
  for (const { steps } of paths) {
    if (steps.length < 2) continue;
    const micro = getMicrosteps(machine, steps.at(-2)!.state, steps.at(-1)!.event as never);
    snapshots.push(...micro.map(([s]) => s as Snap));
  }
  const ids = new Set<string>();
  for (const s of snapshots) {
    for (const id of stateIds) if (s.matches(id.slice("Example.".length) as never)) ids.add(id);
  }
  return ids;
}

/** Apply events (or event builders) in order with the machine's pure transition. */
function walk(...sequence: Array<AnyEventObject | ((s: Snap) => AnyEventObject)>): Snap[] {
  let s = initialTransition(machine, input)[0] as Snap;
  const seen: Snap[] = [];
  for (const e of sequence) {
    s = transition(machine, s, typeof e === "function" ? e(s) : e)[0] as Snap;
    seen.push(s);
  }
  return seen;
}

/** Up to the barrier before review: plan, then research and write in parallel. */
const toReview = [
  INPUT,
  STEP,
  (s: Snap) => answer(s, START),
  STEP,
  (s: Snap) => answer(s, "plan"),
  STEP,
  (s: Snap) => answer(s, "research"),
  (s: Snap) => answer(s, "write"),
];

describe("a compiled graph's machine", () => {
  it("keeps the run loop's states at the root", () => {
    expect(Object.keys(machine.root.states)).toEqual(Object.keys(runMachine.root.states));
  });

  it("has a task-lifecycle region under stepping for every graph node", () => {
    const stepping = machine.getStateNodeById("Example.stepping");
    expect(stepping.type).toBe("parallel");
    expect(Object.keys(stepping.states)).toEqual([
      START,
      "plan",
      "research",
      "write",
      "review",
      "approve",
    ]);
    for (const node of regions) {
      const region = machine.getStateNodeById(`Example.stepping.${node}`);
      expect(Object.keys(region.states)).toEqual(Object.keys(taskMachine.root.states));
      expect(region.initial.target.map((t) => t.key)).toEqual(["idle"]);
      const [invoke] = region.states.running!.invoke;
      expect([invoke!.id, invoke!.src]).toEqual([`task:${node}`, `node:${node}`]);
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

  it("reaches every node's lifecycle states; only approve is ever interrupted", () => {
    const reached = statesEntered(paths);
    const unreached = stateIds.filter((id) => !reached.has(id));
    expect(unreached.sort()).toEqual(
      [START, "plan", "research", "write", "review"]
        .map((node) => `Example.stepping.${node}.interrupted`)
        .sort(),
    );
    for (const node of regions) {
      for (const state of ["idle", "running", "done", "skipped"]) {
        expect(reached).toContain(`Example.stepping.${node}.${state}`);
      }
    }
  });

  it("runs the example to done: plan, research and write together, review, approve", () => {
    const done = paths.find((p) => p.state.value === "done")!;
    const ran = done.steps
      .map((step) => step.event.type)
      .filter((type) => type.startsWith("xstate.done.actor.task:"))
      .map((type) => type.slice("xstate.done.actor.task:".length));
    // research and write answer in either order within their step; approve runs twice (paused, then answered).
    const inOneStep = ran.slice(2, 4).sort();
    expect([...ran.slice(0, 2), ...inOneStep, ...ran.slice(4)]).toEqual([
      START,
      "plan",
      "research",
      "write",
      "review",
      "approve",
      "approve",
    ]);
    const steps = done.steps.filter((step) => step.event.type === "STEP").length;
    expect(steps).toBe(6);
    expect(done.state.context.values).toEqual({
      topic: "statecharts",
      plan: "by plan",
      research: "by research",
      write: "by write",
      review: "by review",
      approve: "by approve",
    });
  });

  it("runs review once, after both research and write finished", () => {
    const seen = walk(...toReview);
    const afterResearch = seen.at(-2)!;
    expect(afterResearch.value).toMatchObject({ stepping: { research: "done", write: "running" } });
    const barrier = seen.at(-1)!;
    expect(barrier.value).toBe("barrier");
    expect(barrier.context.tasks.map((t) => t.node)).toEqual(["review"]);
    expect(barrier.context.joins).toEqual({});
  });

  it("a paused node waits in interrupted with no in-flight actor", () => {
    const paused = walk(
      ...toReview,
      STEP,
      (s) => answer(s, "review"),
      STEP,
      (s) => answer(s, "approve"),
    ).at(-1)!;
    expect(regionState(paused, "approve")).toBe("interrupted");
    expect(Object.keys(paused.children)).toEqual([]);
    const [approve] = paused.context.tasks;
    expect(approve).toMatchObject({ node: "approve", status: "interrupted" });
  });

  it("a paused node resumes into running only with an answer to its interrupt", () => {
    const [, wrong, right, finished, end] = walk(
      ...toReview,
      STEP,
      (s) => answer(s, "review"),
      STEP,
      (s) => answer(s, "approve"),
      { type: "RESUME", answers: { "some-other-interrupt": "yes" } },
      (s) => resume(s, "approve"),
      (s) => answer(s, "approve"),
      STEP,
    ).slice(-5);
    expect(regionState(wrong!, "approve")).toBe("interrupted");
    expect(regionState(right!, "approve")).toBe("running");
    expect(right!.context.tasks[0]).toMatchObject({ status: "pending", resumes: ["yes"] });
    expect(Object.keys(right!.children)).toEqual(["task:approve"]);
    expect(finished!.value).toBe("barrier");
    expect(end!.value).toBe("done");
  });

  it("stops at a static breakpoint before review, and RESUME continues from the barrier", () => {
    const [atBreakpoint, back, stepping] = walk(
      ...toReview,
      STEP_BEFORE_REVIEW,
      CONTINUE,
      STEP_BEFORE_REVIEW,
    ).slice(-3);
    expect(atBreakpoint!.value).toBe("breakpoint");
    expect(atBreakpoint!.context.breakpoint).toMatchObject({ node: "review", timing: "before" });
    expect(back!.value).toBe("barrier");
    expect(regionState(stepping!, "review")).toBe("running");
  });

  it("fails the run when a node's actor fails", () => {
    const failed = walk(...toReview.slice(0, 6), {
      type: "xstate.error.actor.task:research",
      error: "no sources",
    }).at(-1)!;
    expect([failed.value, failed.status, failed.context.error]).toEqual([
      "failed",
      "done",
      "no sources",
    ]);
  });

  it("fails the run at the barrier once the recursion limit is spent", () => {
    const limited = { ...STEP, recursionLimit: 1 };
    const failed = walk(
      INPUT,
      limited,
      (s) => answer(s, START),
      limited,
      (s) => answer(s, "plan"),
      limited,
    ).at(-1)!;
    expect(failed.value).toBe("failed");
    expect(failed.context.error).toBeInstanceOf(RecursionLimitError);
  });

  it("ignores RESUME at the barrier and STEP while stepping", () => {
    const [barrier] = walk(INPUT);
    expect(barrier!.can(CONTINUE as never)).toBe(false);
    expect(transition(machine, barrier!, CONTINUE)[0].value).toBe("barrier");
    const [, stepping] = walk(INPUT, STEP);
    expect(stepping!.can(STEP as never)).toBe(false);
    const after = transition(machine, stepping!, STEP)[0] as Snap;
    expect([after.value, after.context]).toEqual([stepping!.value, stepping!.context]);
  });
});
