// The barrier's rules as pure functions: what a run does after each step, and how a step's writes merge.
import type { BarrierKind } from "../../runtime/run-env.js";
import type { GraphContext, TaskOutcome, TaskRecord, TaskSeed } from "../../runtime/task.js";
import type { Channels } from "../definition/channels.js";
import { END } from "../definition/constants.js";
import type { GraphInternals } from "./internals.js";

/**
 * The barrier's rules as pure functions of the graph context: what the run does next,
 * how a step's writes merge and which tasks the next step has. The compiled machine's
 * actions call them; they touch no actor, so they can be tested alone.
 */

/** What the run raises at the barrier: what it does next. */
export type BarrierDecision =
  | { type: "BREAKPOINT"; node: string; timing: "before" | "after" }
  | { type: "FINISH" }
  | { type: "RECURSION_LIMIT"; limit: number }
  /** Every task of the step finished before a crash: merge their saved writes. */
  | { type: "SETTLED" }
  | { type: `RUN.${string}` }
  | { type: "FANOUT" };

/** Whether a RESUME's answers reach this paused task (its own interrupt or one inside a subgraph). */
export function answeredBy(t: TaskRecord, answers: Record<string, unknown>): boolean {
  if (t.nested) return t.nested.some((i) => i.id in answers);
  return t.interrupts[t.interrupts.length - 1]!.id in answers;
}

/** The tasks with what the runner's answer says of those it ran. */
export function withOutcomes(tasks: TaskRecord[], outcomes: readonly TaskOutcome[]): TaskRecord[] {
  const only = outcomes.length === 1 ? outcomes[0] : undefined;
  const byId = only ? undefined : new Map(outcomes.map((o) => [o.id, o]));
  return tasks.map((t) => {
    const o = byId ? byId.get(t.id) : only!.id === t.id ? only : undefined;
    return o ? withOutcome(t, o) : t;
  });
}

/** A task with what its run came to (a new record: the old one stays in the old snapshot). */
function withOutcome(t: TaskRecord, o: TaskOutcome): TaskRecord {
  const task: TaskRecord = {
    node: t.node,
    kind: t.kind,
    id: t.id,
    status: o.status,
    writes: o.writes,
    next: o.next,
    interrupts: o.interrupts,
    resumes: t.resumes,
  };
  if ("arg" in t) task.arg = t.arg;
  if (t.nestedAnswers) task.nestedAnswers = t.nestedAnswers;
  if (o.nested) task.nested = o.nested;
  return task;
}

const isInternal = (t: TaskRecord) => t.kind === "input" || t.kind === "update";

export function newTask(step: number, seed: TaskSeed, ordinal: number): TaskRecord {
  // One fixed shape for every task record keeps the hot path monomorphic.
  const task: TaskRecord = {
    node: seed.node,
    kind: seed.kind,
    id: `${step}:${seed.node}:${ordinal}`,
    status: "pending",
    writes: null,
    next: null,
    interrupts: [],
    resumes: [],
  };
  if (seed.kind !== "node") task.arg = seed.arg;
  // Only bulkUpdateState's updates carry one (rare: the hot path's tasks keep their shape).
  if (seed.goto) task.goto = seed.goto;
  return task;
}

/**
 * A static breakpoint the run is at, if any. A barrier continued past a breakpoint stops at
 * none (as LangGraph marks the barrier seen when a run resumes from it): interruptAfter on
 * the last node and interruptBefore on the next stop once between them.
 */
function breakpointAt(context: GraphContext): { node: string; timing: "before" | "after" } | null {
  if (context.passed.length > 0) return null;
  const { interruptAfter, interruptBefore } = context.run;
  if (interruptAfter.length > 0) {
    const node = context.lastRan.find((n) => interruptAfter.includes(n));
    if (node) return { node, timing: "after" };
  }
  if (interruptBefore.length > 0) {
    const task = context.tasks.find((t) => !isInternal(t) && interruptBefore.includes(t.node));
    if (task) return { node: task.node, timing: "before" };
  }
  return null;
}

/**
 * What the barrier the run enters is to the thread's checkpoints: one stopping at a
 * breakpoint is stored as that pause (one checkpoint, as LangGraph's), and one a run
 * continues from past its breakpoint is stored already.
 */
export function barrierKind(context: GraphContext): BarrierKind {
  if (context.passed.length > 0) return "continued";
  return breakpointAt(context) ? "breakpoint" : "step";
}

/** What the run does at the barrier: stop, finish, or start the step (see `machines/run.machine.ts`). */
export function decide(context: GraphContext): BarrierDecision {
  // A breakpoint first: interruptAfter on the last node must stop before `done`.
  const breakpoint = breakpointAt(context);
  if (breakpoint) return { type: "BREAKPOINT", ...breakpoint };
  if (context.tasks.length === 0) return { type: "FINISH" };
  if (context.runSteps >= context.run.recursionLimit && !context.tasks.every(isInternal)) {
    return { type: "RECURSION_LIMIT", limit: context.run.recursionLimit };
  }
  let runs: TaskRecord | undefined;
  for (const t of context.tasks) {
    if (t.status !== "pending") continue;
    if (runs) return { type: "FANOUT" };
    runs = t;
  }
  return runs ? { type: `RUN.${runs.node}` } : { type: "SETTLED" };
}

/** The barrier: merge writes, fire joins, and turn routes into the next step's tasks. */
export function mergeStep(
  g: GraphInternals,
  context: GraphContext,
  tasks: TaskRecord[],
): Partial<GraphContext> {
  const values = g.channels.merge(context.values, inWriteOrder(tasks), context.step);
  const seeds: TaskSeed[] = [];
  const seen = new Set<string>();
  const ran: string[] = [];
  let joins = context.joins;
  for (const task of tasks) {
    if (!isInternal(task) && !ran.includes(task.node)) ran.push(task.node);
    for (const s of task.next ?? []) {
      if (s.kind === "send") seeds.push(s);
      else if (!seen.has(s.node)) {
        seen.add(s.node);
        seeds.push(s);
      }
    }
  }
  if (g.joins.length > 0) {
    joins = { ...joins };
    for (const join of g.joins) {
      const done = new Set(joins[join.key] ?? []);
      for (const n of ran) if (join.from.includes(n)) done.add(n);
      // An update as a node counts as that node's run toward a join (as in LangGraph).
      for (const t of tasks)
        if (t.kind === "update" && join.from.includes(t.node)) done.add(t.node);
      if (join.from.every((n) => done.has(n))) {
        delete joins[join.key];
        // A join into END ends those branches: nothing to schedule.
        if (join.to !== END && !seen.has(join.to)) {
          seen.add(join.to);
          seeds.push({ node: join.to, kind: "node" });
        }
      } else if (done.size > 0) joins[join.key] = [...done];
    }
  }
  const step = context.step + 1;
  const runSteps = tasks.every(isInternal) ? context.runSteps : context.runSteps + 1;
  // A node's k-th task of the step gets ordinal k (Sends may start one node several times).
  const next = seeds.map((s, i) => {
    let n = 0;
    for (let j = 0; j < i; j++) if (seeds[j]!.node === s.node) n++;
    return newTask(step, s, n);
  });
  let journal = context.journal;
  if (journal) {
    journal = [...journal];
    for (const t of tasks) if (t.writes && t.kind !== "input") journal.push(...t.writes);
  }
  return {
    values,
    step,
    tasks: next,
    joins,
    lastRan: ran,
    merged: tasks,
    journal,
    runSteps,
    passed: NONE_PASSED,
    breakpoint: null,
  };
}

/**
 * The order a step's writes are applied in: tasks triggered by edges (and the input or
 * update task) first, in the order they were scheduled, then `Send` tasks in the order
 * they were sent (as LangGraph.js puts pulled tasks before pushed ones). Fixed by the
 * graph, never by which task finished first.
 */
export function inWriteOrder(tasks: TaskRecord[]): TaskRecord[] {
  let sends = false;
  let sorted = true;
  for (const t of tasks) {
    if (t.kind === "send") sends = true;
    else if (sends) sorted = false;
  }
  if (sorted) return tasks;
  return [...tasks.filter((t) => t.kind !== "send"), ...tasks.filter((t) => t.kind === "send")];
}

/**
 * The values as a paused or part-failed step shows them: its finished tasks' writes
 * applied in write order, as its barrier will apply them. Should the barrier refuse them
 * (two writers of a key without a reducer), the values from before the step.
 */
export function valuesWithFinished(
  channels: Channels,
  context: Pick<GraphContext, "values" | "tasks" | "step">,
): Record<string, unknown> {
  const finished = context.tasks.filter((t) => t.status === "done" && t.writes?.length);
  if (finished.length === 0) return context.values;
  try {
    return channels.merge(context.values, inWriteOrder(finished), context.step);
  } catch {
    return context.values;
  }
}

/** No breakpoint passed yet: one shared (never mutated) empty list for every merge. */
const NONE_PASSED: GraphContext["passed"] = [];
