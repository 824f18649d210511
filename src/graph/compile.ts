import { type AnyStateMachine, assign, fromCallback, raise, sendTo, setup } from "xstate";
import { runMachine } from "../../machines/run.machine.js";
import { InvalidConfigError, RecursionLimitError } from "../errors/index.js";
import { type RunEnv, runEnvOf } from "../runtime/run-env.js";
import { runTask } from "../runtime/run-task.js";
import { StepCancellation } from "../runtime/step-cancellation.js";
import type { GraphContext, TaskOutcome, TaskRecord, TaskSeed } from "../runtime/task.js";
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
  | {
      type: "STEP";
      recursionLimit: number;
      interruptBefore: readonly string[];
      interruptAfter: readonly string[];
      /** Tasks of this step that finished before a crash: their saved writes, not a re-run. */
      recovered?: Record<string, { writes: Array<[string, unknown]>; next: TaskSeed[] }>;
    }
  | { type: "RESUME"; answers: Record<string, unknown> }
  // The task runner's answers.
  | { type: "TASKS.DONE"; output: TaskOutcome[] }
  | { type: "TASKS.ERROR"; error: unknown }
  // Raised by the machine itself when a step starts: one task, several, or none left to run.
  | { type: `RUN.${string}` }
  | { type: "FANOUT" }
  | { type: "SETTLED" };

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

function breakpointAt(
  context: GraphContext,
  event: GraphEvent,
): { node: string; timing: "before" | "after" } | null {
  if (event.type !== "STEP") return null;
  if (event.interruptAfter.length > 0 && !context.passed.includes("after")) {
    const node = context.lastRan.find((n) => event.interruptAfter.includes(n));
    if (node) return { node, timing: "after" };
  }
  if (event.interruptBefore.length > 0 && !context.passed.includes("before")) {
    const task = context.tasks.find(
      (t) => !isInternal(t) && event.interruptBefore.includes(t.node),
    );
    if (task) return { node: task.node, timing: "before" };
  }
  return null;
}

function buildMachine(g: GraphInternals) {
  const id = g.spec.name;
  const nodes = [START, ...g.spec.nodes.keys()];

  // The run loop's `stepping`, with one state per graph node (instead of the chart's `task`).
  const base = runMachine.config;
  const chart = base.states!.stepping as { states: Record<string, any> };
  const { __dispatch__: dispatch, task, __fanout__: fanout } = chart.states;
  const dispatchOn: Record<string, unknown> = instantiate(
    { FANOUT: dispatch.on.FANOUT, SETTLED: dispatch.on.SETTLED },
    id,
  ) as Record<string, unknown>;
  const states: Record<string, unknown> = {
    __dispatch__: { on: dispatchOn },
    __fanout__: instantiate(fanout, id),
  };
  for (const node of nodes) {
    dispatchOn[`RUN.${node}`] = node;
    states[node] = instantiate(task, id, node);
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
      input: {} as { values: Record<string, unknown> },
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
      finished: ({ context }) => context.tasks.length === 0,
      overRecursionLimit: ({ context, event }) =>
        event.type === "STEP" &&
        context.runSteps >= event.recursionLimit &&
        context.tasks.some((t) => !isInternal(t)),
      atBreakpoint: ({ context, event }) => breakpointAt(context, event) !== null,
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
      dispatchTasks: raise(({ context }) => {
        const pending = context.tasks.filter((t) => t.status === "pending");
        if (pending.length === 0) return { type: "SETTLED" as const };
        if (pending.length === 1) return { type: `RUN.${pending[0]!.node}` as const };
        return { type: "FANOUT" as const };
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
      startStep: assign(({ context, event }) => {
        const recovered = event.type === "STEP" ? event.recovered : undefined;
        return {
          passed: [],
          breakpoint: null,
          runSteps: context.tasks.every(isInternal) ? context.runSteps : context.runSteps + 1,
          tasks: recovered
            ? context.tasks.map((t) => {
                const r = recovered[t.id];
                return r ? { ...t, status: "done" as const, writes: r.writes, next: r.next } : t;
              })
            : context.tasks,
        };
      }),
      // On a runner's answer, its results are taken in here rather than by a second assign.
      mergeWrites: assign(({ context, event }) =>
        mergeStep(
          g,
          event.type === "TASKS.DONE"
            ? { ...context, tasks: withOutcomes(context.tasks, event.output) }
            : context,
        ),
      ),
      recordBreakpoint: assign(({ context, event }) => ({
        breakpoint: breakpointAt(context, event),
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
        error: new RecursionLimitError(event.type === "STEP" ? event.recursionLimit : 0),
      })),
    },
  }).createMachine({
    ...(base as object),
    id: g.spec.name,
    context: ({ input }: { input: { values: Record<string, unknown> } | undefined }) => ({
      values: inputValues(input),
      step: 0,
      tasks: [],
      joins: {},
      lastRan: [],
      runSteps: 0,
      breakpoint: null,
      passed: [],
    }),
    states: { ...(base.states as object), stepping },
  } as never);
  return machine as unknown as AnyStateMachine;
}

/** The machine's starting values; only `CompiledGraph` starts it, always with some. */
function inputValues(input: { values: Record<string, unknown> } | undefined) {
  if (!input?.values) {
    throw new InvalidConfigError(
      "A graph's machine was started without input. Run graphs with compiled.invoke()/resume()/stream(); compiled.machine is for drawing, inspecting and testing the chart.",
    );
  }
  return input.values;
}

/** The barrier: merge writes, fire joins, and turn routes into the next step's tasks. */
function mergeStep(g: GraphInternals, context: GraphContext): Partial<GraphContext> {
  const { tasks } = context;
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
  const ordinals = new Map<string, number>();
  const next = seeds.map((s) => {
    const n = ordinals.get(s.node) ?? 0;
    ordinals.set(s.node, n + 1);
    return newTask(step, s, n);
  });
  let journal = context.journal;
  if (journal) {
    journal = [...journal];
    for (const t of tasks) if (t.writes && t.kind !== "input") journal.push(...t.writes);
  }
  return { values, step, tasks: next, joins, lastRan: ran, journal };
}

/** What a lifecycle state asks the task runner for: one node's pending tasks, or (no node) all of them. */
interface RunRequest {
  type: "RUN";
  node: string | undefined;
  context: GraphContext;
}

/**
 * The run's one task runner (invoked as `tasks` for the whole run): it runs the
 * pending tasks a lifecycle state asks for, concurrently, and answers with all
 * their outcomes, or with the first failure. Stopping the run cancels what is
 * still running.
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
      runPendingTasks(g, env, context, node, step).then(
        (output) => {
          if (step.cancelled) return;
          running = undefined;
          sendBack({ type: "TASKS.DONE", output });
        },
        (error) => {
          if (step.cancelled) return;
          running = undefined;
          // The run fails: the step's other tasks are void, so stop them now.
          step.cancel();
          sendBack({ type: "TASKS.ERROR", error });
        },
      );
    });
    return () => running?.cancel();
  });
}

/** Run one node's pending tasks (or, without a node, all of the step's) concurrently. */
async function runPendingTasks(
  g: GraphInternals,
  env: RunEnv,
  context: GraphContext,
  node: string | undefined,
  step: StepCancellation,
): Promise<TaskOutcome[]> {
  const runnable = context.tasks.filter(
    (t) => t.status === "pending" && (node === undefined || t.node === node),
  );
  // With siblings in the step, save each finished task's writes at once: if the process
  // dies before the barrier, a restart runs only the tasks that had not finished.
  const save = context.tasks.length > 1 ? env.savePendingWrite : undefined;
  const run = async (t: TaskRecord) => {
    const outcome = await runTask(g, env, t, context.values, context.step, step);
    if (save && outcome.status === "done") await save(t, outcome);
    return outcome;
  };
  if (runnable.length === 1) return [await run(runnable[0]!)];
  return Promise.all(runnable.map(run));
}
