import {
  type AnyStateMachine,
  assign,
  enqueueActions,
  fromCallback,
  raise,
  sendTo,
  setup,
} from "xstate";
import { runMachine } from "../../machines/run.machine.js";
import { InvalidConfigError, RecursionLimitError } from "../errors/index.js";
import { type RunEnv, runEnvOf } from "../runtime/run-env.js";
import { isThenable, type MaybePromise, runTask } from "../runtime/run-task.js";
import { StepCancellation } from "../runtime/step-cancellation.js";
import {
  DEFAULT_RUN,
  type GraphContext,
  opensUpdate,
  type RunOptions,
  type TaskOutcome,
  type TaskRecord,
  type TaskSeed,
} from "../runtime/task.js";
import { Channels } from "./channels.js";
import { CompiledGraph } from "./compiled-graph.js";
import { START } from "./constants.js";
import type { CompileOptions, GraphSpec } from "./graph.js";
import type { GraphInternals } from "./internals.js";
import type { NodeFn, State } from "./types.js";
import { validateGraph } from "./validate.js";

/** Events the compiled machine takes (sent by the driver, never by node code). */
export type GraphEvent =
  | { type: "INPUT"; update: unknown; goto?: unknown; journal?: boolean }
  | { type: "UPDATE"; update: Record<string, unknown>; asNode?: string }
  /** The driver lets a run it held at the barrier (or restored there) go on. */
  | { type: "STEP" }
  | { type: "RESUME"; answers: Record<string, unknown> }
  // The task runner's answers.
  | { type: "TASKS.DONE"; output: TaskOutcome[] }
  | { type: "TASKS.ERROR"; error: unknown }
  | BarrierDecision;

/** What the run raises at the barrier: what it does next. */
type BarrierDecision =
  | { type: "BREAKPOINT"; node: string; timing: "before" | "after" }
  | { type: "FINISH" }
  | { type: "RECURSION_LIMIT"; limit: number }
  /** Every task of the step finished before a crash: merge their saved writes. */
  | { type: "SETTLED" }
  | { type: `RUN.${string}` }
  | { type: "FANOUT" };

interface NodeParams {
  node: string;
}

/**
 * Compile a graph definition into one XState machine: the run loop of
 * `machines/run.machine.ts` whose `stepping` state holds one region per node,
 * each following `machines/task.machine.ts`. That machine is the executor.
 */
export function compileGraph<S extends State, C>(
  spec: GraphSpec,
  options: CompileOptions,
): CompiledGraph<S, C> {
  validateGraph(spec, options);
  const g = indexGraph(spec);
  return new CompiledGraph<S, C>(g, buildMachine(g), options);
}

function indexGraph(spec: GraphSpec): GraphInternals {
  const nodeFns = new Map<string, NodeFn<any, any>>();
  for (const node of spec.nodes.values()) {
    const run = node.run;
    nodeFns.set(node.name, run instanceof CompiledGraph ? run.asNode(node.name) : run);
  }
  const edgesFrom = new Map<string, string[]>();
  for (const { from, to } of spec.edges) {
    const list = edgesFrom.get(from) ?? [];
    if (!list.includes(to)) list.push(to);
    edgesFrom.set(from, list);
  }
  const conditionalFrom = new Map<string, GraphSpec["conditionalEdges"]>();
  for (const edge of spec.conditionalEdges) {
    conditionalFrom.set(edge.from, [...(conditionalFrom.get(edge.from) ?? []), edge]);
  }
  return {
    spec,
    channels: new Channels(spec.reducers, spec.schema),
    nodeFns,
    edgesFrom,
    conditionalFrom,
    joins: spec.joins.map((j) => ({ key: `${j.from.join("+")}>${j.to}`, from: j.from, to: j.to })),
  };
}

/**
 * Deep-copy a chart fragment for this graph: point `#run.` ids at this machine
 * and, given a node, bind the fragment's guards and actions to it.
 */
function instantiate(config: unknown, id: string, node?: string): unknown {
  if (Array.isArray(config)) return config.map((c) => instantiate(c, id, node));
  if (typeof config === "string" && config.startsWith("#run.")) return `#${id}.${config.slice(5)}`;
  if (typeof config !== "object" || config === null) return config;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(config)) {
    out[key] =
      node !== undefined && (key === "guard" || key === "actions" || key === "entry")
        ? bindTo(value, node)
        : instantiate(value, id, node);
  }
  return out;
}

/** Named guards and actions, with the node they are about as their params. */
function bindTo(names: unknown, node: string): unknown {
  if (Array.isArray(names)) return names.map((n) => bindTo(n, node));
  return typeof names === "string" ? { type: names, params: { node } } : names;
}

/** Whether a RESUME's answers reach this paused task (its own interrupt or one inside a subgraph). */
function answeredBy(t: TaskRecord, answers: Record<string, unknown>): boolean {
  if (t.nested) return t.nested.some((i) => i.id in answers);
  return t.interrupts[t.interrupts.length - 1]!.id in answers;
}

/** The tasks with what the runner's answer says of those it ran. */
function withOutcomes(tasks: TaskRecord[], outcomes: TaskOutcome[]): TaskRecord[] {
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

function newTask(step: number, seed: TaskSeed, ordinal: number): TaskRecord {
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
  return task;
}

/** A static breakpoint the run is at, if any (each timing stops once per step). */
function breakpointAt(context: GraphContext): { node: string; timing: "before" | "after" } | null {
  const { interruptAfter, interruptBefore } = context.run;
  if (interruptAfter.length > 0 && !context.passed.includes("after")) {
    const node = context.lastRan.find((n) => interruptAfter.includes(n));
    if (node) return { node, timing: "after" };
  }
  if (interruptBefore.length > 0 && !context.passed.includes("before")) {
    const task = context.tasks.find((t) => !isInternal(t) && interruptBefore.includes(t.node));
    if (task) return { node: task.node, timing: "before" };
  }
  return null;
}

/** What the run does at the barrier: stop, finish, or start the step (see `machines/run.machine.ts`). */
function decide(context: GraphContext): BarrierDecision {
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

function buildMachine(g: GraphInternals) {
  const id = g.spec.name;
  const nodes = [START, ...g.spec.nodes.keys()];

  // The run loop, with one lifecycle state per graph node under `stepping` (instead of the
  // chart's `task`), each entered from the barrier by its own `RUN.<node>`.
  const base = runMachine.config;
  const chart = base.states!.stepping as { states: Record<string, any> };
  const { "RUN.task": _, ...barrierOn } = (base.states!.barrier as { on: Record<string, unknown> })
    .on;
  const barrier = instantiate({ ...base.states!.barrier, on: barrierOn }, id) as {
    on: Record<string, unknown>;
  };
  const states: Record<string, unknown> = { __fanout__: instantiate(chart.states.__fanout__, id) };
  for (const node of nodes) {
    barrier.on[`RUN.${node}`] = `stepping.${node}`;
    states[node] = instantiate(chart.states.task, id, node);
  }
  const stepping = { ...(instantiate(chart, id) as object), states };

  /** The tasks a guard or action is about: one node's, or (in `__fanout__`) all of them. */
  const about = (context: GraphContext, params: NodeParams | undefined) =>
    params ? context.tasks.filter((t) => t.node === params.node) : context.tasks;
  /** What the runner's answer says of the tasks it ran (nothing, for any other event). */
  const outcomesOf = (event: GraphEvent) => (event.type === "TASKS.DONE" ? event.output : []);

  const machine = setup({
    types: {
      context: {} as GraphContext,
      events: {} as GraphEvent,
      input: {} as GraphInput,
    },
    actors: { taskRunner: taskRunner(g) },
    guards: {
      // Interrupted now, or still waiting from before (a resume that answered only some).
      anyTaskInterrupted: ({ context, event }, params?: NodeParams) => {
        const output = outcomesOf(event);
        if (output.some((o) => o.status === "interrupted")) return true;
        return context.tasks.some(
          (t) =>
            t.status === "interrupted" &&
            (!params || t.node === params.node) &&
            !output.some((o) => o.id === t.id),
        );
      },
      resumeAnswersTask: ({ context, event }, params?: NodeParams) =>
        event.type === "RESUME" &&
        about(context, params).some(
          (t) => t.status === "interrupted" && answeredBy(t, event.answers),
        ),
      hasAsNode: ({ event }) => event.type === "UPDATE" && event.asNode !== undefined,
    },
    actions: {
      recordTaskResults: assign(({ context, event }) => ({
        tasks: withOutcomes(context.tasks, outcomesOf(event)),
      })),
      applyAnswers: assign(({ context, event }, params?: NodeParams) => {
        if (event.type !== "RESUME") return {};
        return {
          tasks: context.tasks.map((t) => {
            if (params && t.node !== params.node) return t;
            if (t.status !== "interrupted" || !answeredBy(t, event.answers)) return t;
            if (t.nested) {
              const nestedAnswers = { ...t.nestedAnswers };
              for (const i of t.nested)
                if (i.id in event.answers) nestedAnswers[i.id] = event.answers[i.id];
              return { ...t, status: "pending" as const, nestedAnswers };
            }
            const pending = t.interrupts[t.interrupts.length - 1]!.id;
            return {
              ...t,
              status: "pending" as const,
              resumes: [...t.resumes, event.answers[pending]],
            };
          }),
        };
      }),
      runTasks: sendTo("tasks", ({ context }, params?: NodeParams) => ({
        type: "RUN" as const,
        node: params?.node,
        context,
      })),
      checkpoint: ({ context, system }) => runEnvOf(system).atBarrier?.(context),
      dispatch: raise(({ context }) => decide(context)),
      dispatchUnlessHeld: enqueueActions(({ context, enqueue }) => {
        // The barrier an update as a node opens never holds: its writes are not merged yet.
        if (!context.run.holds || opensUpdate(context)) enqueue.raise(decide(context));
      }),
      applyInput: assign(({ context, event }) => {
        if (event.type !== "INPUT") return {};
        const arg = { update: event.update, goto: event.goto };
        return {
          tasks: [newTask(context.step, { node: START, kind: "input", arg }, 0)],
          runSteps: 0,
          lastRan: [],
          passed: [],
          breakpoint: null,
          journal: event.journal ? [] : undefined,
        };
      }),
      applyUpdate: assign(({ context, event }) => {
        if (event.type !== "UPDATE") return {};
        return { values: g.channels.apply(context.values, Object.entries(event.update)) };
      }),
      applyUpdateAsNode: assign(({ context, event }) => {
        if (event.type !== "UPDATE" || event.asNode === undefined) return {};
        const seed: TaskSeed = { node: event.asNode, kind: "update", arg: event.update };
        // Tasks of a paused step that already finished keep their writes (as in LangGraph).
        const finished = context.tasks.filter((t) => t.status === "done");
        return {
          values:
            finished.length > 0
              ? g.channels.merge(context.values, finished, context.step)
              : context.values,
          tasks: [newTask(context.step, seed, 0)],
          lastRan: [],
          passed: [],
          breakpoint: null,
        };
      }),
      // On a runner's answer, its results are taken in here rather than by a second assign.
      mergeWrites: assign(({ context, event }) =>
        mergeStep(
          g,
          context,
          event.type === "TASKS.DONE" ? withOutcomes(context.tasks, event.output) : context.tasks,
        ),
      ),
      recordBreakpoint: assign(({ event }) => ({
        breakpoint: event.type === "BREAKPOINT" ? { node: event.node, timing: event.timing } : null,
      })),
      clearBreakpoint: assign(({ context }) => ({
        passed: context.breakpoint
          ? [...context.passed, context.breakpoint.timing]
          : context.passed,
        breakpoint: null,
      })),
      recordFailure: assign(({ event }) => ({
        error: event.type === "TASKS.ERROR" ? event.error : undefined,
      })),
      recordRecursionError: assign(({ event }) => ({
        error: new RecursionLimitError(event.type === "RECURSION_LIMIT" ? event.limit : 0),
      })),
    },
  }).createMachine({
    ...(base as object),
    id: g.spec.name,
    context: ({ input }: { input: GraphInput | undefined }) => ({
      run: input?.run ?? DEFAULT_RUN,
      values: inputValues(input),
      step: 0,
      tasks: [],
      joins: {},
      lastRan: [],
      runSteps: 0,
      breakpoint: null,
      passed: [],
    }),
    states: { ...(base.states as object), stepping, barrier },
  } as never);
  return machine as unknown as AnyStateMachine;
}

/** What the graph machine starts from: the channels' initial values, and how this call runs. */
export interface GraphInput {
  values: Record<string, unknown>;
  run?: RunOptions;
}

/** The machine's starting values; only `CompiledGraph` starts it, always with some. */
function inputValues(input: GraphInput | undefined) {
  if (!input?.values) {
    throw new InvalidConfigError(
      "A graph's machine was started without input. Run graphs with compiled.invoke()/resume()/stream(); compiled.machine is for drawing, inspecting and testing the chart.",
    );
  }
  return input.values;
}

/** The barrier: merge writes, fire joins, and turn routes into the next step's tasks. */
function mergeStep(
  g: GraphInternals,
  context: GraphContext,
  tasks: TaskRecord[],
): Partial<GraphContext> {
  const values = g.channels.merge(context.values, tasks, context.step);
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
      if (join.from.every((n) => done.has(n))) {
        delete joins[join.key];
        if (!seen.has(join.to)) {
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
    journal,
    runSteps,
    passed: NONE_PASSED,
    breakpoint: null,
  };
}

/** No breakpoint passed yet: one shared (never mutated) empty list for every merge. */
const NONE_PASSED: GraphContext["passed"] = [];

/** What a lifecycle state asks the task runner for: one node's pending tasks, or (no node) all of them. */
interface RunRequest {
  type: "RUN";
  node: string | undefined;
  context: GraphContext;
}

/**
 * The run's one task runner (invoked as `tasks` for the whole run): it runs the
 * pending tasks a lifecycle state asks for, concurrently, and answers with all
 * their outcomes, or with the first failure. When every task finished without
 * waiting on anything, it answers at once, in the same macrostep's wake.
 * Stopping the run cancels what is still running.
 */
function taskRunner(g: GraphInternals) {
  return fromCallback<RunRequest>(({ receive, sendBack, system }) => {
    const env = runEnvOf(system);
    let running: StepCancellation | undefined;
    receive(({ node, context }) => {
      // The machine asks again only after an answer; a request it left behind is void.
      running?.cancel();
      const step = new StepCancellation(env.signal);
      running = step;
      const done = (output: TaskOutcome[]) => {
        if (step.cancelled) return;
        running = undefined;
        step.end();
        sendBack({ type: "TASKS.DONE", output });
      };
      const failed = (error: unknown) => {
        if (step.cancelled) return;
        running = undefined;
        // The run fails: the step's other tasks are void, so stop them now.
        step.cancel();
        sendBack({ type: "TASKS.ERROR", error });
      };
      let output: MaybePromise<TaskOutcome[]>;
      try {
        output = runPendingTasks(g, env, context, node, step);
      } catch (error) {
        failed(error);
        return;
      }
      if (isThenable(output)) output.then(done, failed);
      else done(output);
    });
    return () => running?.cancel();
  });
}

/**
 * Run one node's pending tasks (or, without a node, all of the step's)
 * concurrently: all of them start; the first failure, in task order among those
 * that fail at once, is the step's.
 */
function runPendingTasks(
  g: GraphInternals,
  env: RunEnv,
  context: GraphContext,
  node: string | undefined,
  step: StepCancellation,
): MaybePromise<TaskOutcome[]> {
  // With siblings in the step, save each finished task's writes at once: if the process
  // dies before the barrier, a restart runs only the tasks that had not finished.
  const save = context.tasks.length > 1 ? env.savePendingWrite : undefined;
  const saved = (t: TaskRecord, outcome: TaskOutcome): MaybePromise<TaskOutcome> => {
    if (!save || outcome.status !== "done") return outcome;
    const written = save(t, outcome);
    return isThenable(written) ? written.then(() => outcome) : outcome;
  };
  const outcomes: Array<MaybePromise<TaskOutcome>> = [];
  let waits = false;
  let failure: { error: unknown } | undefined;
  for (const t of context.tasks) {
    if (t.status !== "pending" || (node !== undefined && t.node !== node)) continue;
    let outcome: MaybePromise<TaskOutcome>;
    try {
      const ran = runTask(g, env, t, context.values, context.step, step);
      outcome = isThenable(ran) ? ran.then((o) => saved(t, o)) : saved(t, ran);
    } catch (error) {
      failure ??= { error };
      continue;
    }
    if (isThenable(outcome)) waits = true;
    outcomes.push(outcome);
  }
  if (failure) {
    // Those still running are void; keep their late failures from going unhandled.
    for (const o of outcomes) if (isThenable(o)) o.then(undefined, () => {});
    throw failure.error;
  }
  return waits ? Promise.all(outcomes) : (outcomes as TaskOutcome[]);
}
