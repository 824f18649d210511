// Compiles a graph definition into its XState machine, the executor every run drives.
import { type AnyStateMachine, assign, enqueueActions, raise, sendTo, setup } from "xstate";
import { runMachine } from "../../../machines/run.machine.js";
import { InvalidConfigError, RecursionLimitError } from "../../errors/index.js";
import { pendingInterrupts } from "../../runtime/drive.js";
import { runEnvOf } from "../../runtime/run-env.js";
import {
  DEFAULT_RUN,
  type GraphContext,
  opensUpdate,
  type RunOptions,
  type TaskOutcome,
  type TaskSeed,
} from "../../runtime/task.js";
import { Channels } from "../definition/channels.js";
import { END, START } from "../definition/constants.js";
import { declaredEdges } from "../definition/declared-edges.js";
import type { CompileOptions, GraphSpec } from "../definition/graph-spec.js";
import type { NodePolicy } from "../definition/retry-policy.js";
import type { NodeFn } from "../definition/types.js";
import { validateGraph } from "../definition/validate.js";
import {
  answeredBy,
  type BarrierDecision,
  barrierKind,
  decide,
  inWriteOrder,
  mergeStep,
  newTask,
  withOutcomes,
} from "./barrier.js";
import type { GraphInternals } from "./internals.js";
import { resumeAnswers } from "./resume-answers.js";
import { taskRunner } from "./task-runner.js";
import { hookUserActors } from "./user-actor.js";

/** Events the compiled machine takes (sent by the driver, never by node code). */
export type GraphEvent =
  | { type: "INPUT"; update: unknown; goto?: unknown; journal?: boolean }
  | {
      type: "UPDATE";
      update: Record<string, unknown>;
      asNode?: string;
      /** Where the update sends control, as the node's `Command({ goto })` would. */
      goto?: string[];
      /** Other nodes' updates applied in the same super-step (`bulkUpdateState`). */
      alongside?: ReadonlyArray<{
        asNode: string;
        update: Record<string, unknown>;
        goto?: string[];
      }>;
    }
  /** The driver lets a run it held at the barrier (or restored there) go on. */
  | { type: "STEP" }
  /** Answers by interrupt id; `rerun` also re-runs paused tasks it does not answer (`invoke(null)`). */
  | { type: "RESUME"; answers: Record<string, unknown>; rerun?: boolean }
  /** The actor's user answers its pause, as `Command({ resume })` does (see `ActorResumeEvent`). */
  | ActorResumeEvent
  // The task runner's answers.
  | { type: "TASKS.DONE"; output: TaskOutcome[] }
  | { type: "TASKS.ERROR"; error: unknown }
  | BarrierDecision;

interface NodeParams {
  node: string;
}

/**
 * What the user of a graph's actor sends to answer its pause: the value `interrupt()`
 * returns, or (several pending) a map by interrupt id — the same as `Command({ resume })`.
 *
 * @example
 * actor.send({ type: "RESUME", resume: "approve" });
 */
export interface ActorResumeEvent {
  type: "RESUME";
  resume: unknown;
}

/**
 * What a graph's actor emits when it refuses a `RESUME` (listen with
 * `actor.on("resume.refused", …)`): the typed error that says why. The actor stays as it was.
 *
 * @example
 * actor.on("resume.refused", ({ error }) => console.log(error.message));
 */
export interface ResumeRefusedEvent {
  type: "resume.refused";
  error: Error;
}

/** No outcomes: what any event but a runner's answer says of the tasks (shared, never written). */
const NONE: readonly TaskOutcome[] = [];

/** The run's internal RESUME (answers by id), as opposed to the user's (`ActorResumeEvent`). */
const answersOf = (event: GraphEvent) =>
  event.type === "RESUME" && "answers" in event ? event.answers : undefined;

/**
 * Compile a graph definition into one XState machine, the executor: the run loop of
 * `machines/run.machine.ts` with the graph's nodes in `workflow` (one lifecycle state each,
 * following `machines/task.machine.ts`) and the loop's own states in `runtime` (the
 * barrier, `fanout` for steps of several tasks, the breakpoint). A node's state carries
 * its declared edges as transitions; only the running step's state is active.
 */
export function compileGraph(
  spec: GraphSpec,
  options: CompileOptions,
): { internals: GraphInternals; machine: AnyStateMachine } {
  validateGraph(spec, options);
  const internals = indexGraph(spec);
  return { internals, machine: buildMachine(internals, options) };
}

function indexGraph(spec: GraphSpec): GraphInternals {
  const nodeFns = new Map<string, NodeFn<any, any>>();
  const policies = new Map<string, NodePolicy>();
  for (const node of spec.nodes.values()) {
    const run = node.run;
    // A subgraph is any object that can be a node (a function is a node itself): no
    // `instanceof`, which would tie this file to the class built from it.
    nodeFns.set(node.name, typeof run === "function" ? run : run.asNode(node.name));
    if (node.policy) policies.set(node.name, node.policy);
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
    channels: new Channels(spec.reducers, spec.schema, spec.defaults),
    nodeFns,
    policies,
    edgesFrom,
    conditionalFrom,
    joins: spec.joins.map((j) => ({ key: `${j.from.join("+")}>${j.to}`, from: j.from, to: j.to })),
  };
}

/**
 * Deep-copy a chart fragment for this graph: point `#run.` ids at this machine
 * and, given a node, bind the fragment's guards and actions to it.
 */
function instantiate(
  config: unknown,
  id: string,
  node?: string,
  at = (p: string) => `#${id}.${p}`,
): unknown {
  if (Array.isArray(config)) return config.map((c) => instantiate(c, id, node, at));
  if (typeof config === "string" && config.startsWith("#run.")) return at(config.slice(5));
  if (typeof config !== "object" || config === null) return config;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(config)) {
    out[key] =
      node !== undefined && (key === "guard" || key === "actions" || key === "entry")
        ? bindTo(value, node)
        : instantiate(value, id, node, at);
  }
  return out;
}

/** Named guards and actions, with the node they are about as their params. */
function bindTo(names: unknown, node: string): unknown {
  if (Array.isArray(names)) return names.map((n) => bindTo(n, node));
  return typeof names === "string" ? { type: names, params: { node } } : names;
}

const drivenMachines = new WeakMap<object, AnyStateMachine>();

/**
 * The machine invoke/resume/stream run an actor of when the run never holds at a barrier
 * (`run.holds` false): the same chart, whose root entry `startRun` does nothing (only an
 * actor its user starts with input has a start to apply) and whose barrier always
 * dispatches. Both are `enqueueActions` in the machine its users get, and XState builds
 * the whole `enqueue` API on each such call (see docs/benchmarks.md, "S1 against the bare
 * machine, bisected").
 */
export function drivenMachine(machine: AnyStateMachine): AnyStateMachine {
  return drivenMachines.get(machine) ?? machine;
}

function buildMachine(g: GraphInternals, options: CompileOptions) {
  const base = runMachine.config;
  const states = executorStates(g, base, base.states!.stepping as { states: Record<string, any> });
  const directNext = directNextOf(g);

  /** The tasks a guard or action is about: one node's, or (in `runtime.fanout`) all of them. */
  const about = (context: GraphContext, params: NodeParams | undefined) =>
    params ? context.tasks.filter((t) => t.node === params.node) : context.tasks;
  /** What the runner's answer says of the tasks it ran (nothing, for any other event). */
  const outcomesOf = (event: GraphEvent) => (event.type === "TASKS.DONE" ? event.output : NONE);

  const machine = setup({
    types: {
      context: {} as GraphContext,
      events: {} as GraphEvent,
      input: {} as unknown,
      output: {} as Record<string, unknown>,
      emitted: {} as ResumeRefusedEvent,
    },
    actors: { taskRunner: taskRunner(g) },
    guards: {
      // Interrupted now, or still waiting from before (a resume that answered only some).
      // Asked on every step's answer: plain loops, no callbacks to allocate.
      anyTaskInterrupted: ({ context, event }, params?: NodeParams) => {
        const output = outcomesOf(event);
        for (const o of output) if (o.status === "interrupted") return true;
        for (const t of context.tasks) {
          if (t.status !== "interrupted" || (params && t.node !== params.node)) continue;
          if (!output.some((o) => o.id === t.id)) return true;
        }
        return false;
      },
      resumeAnswersTask: ({ context, event }, params?: NodeParams) => {
        const answers = answersOf(event);
        if (answers === undefined || event.type !== "RESUME" || !("answers" in event)) return false;
        return about(context, params).some(
          (t) => t.status === "interrupted" && (event.rerun || answeredBy(t, answers)),
        );
      },
      hasAnswers: ({ event }) => answersOf(event) !== undefined,
      isUserResume: ({ event }) => event.type === "RESUME" && answersOf(event) === undefined,
      hasAsNode: ({ event }) => event.type === "UPDATE" && event.asNode !== undefined,
      // The step just finished goes straight on to `to`, past the barrier (see directNextOf).
      goesStraightTo: ({ context, event }, params: { to: string }) =>
        directNext(context, event) === params.to,
    },
    actions: {
      recordTaskResults: assign(({ context, event }) => ({
        tasks: withOutcomes(context.tasks, outcomesOf(event)),
      })),
      applyAnswers: assign(({ context, event }, params?: NodeParams) => {
        if (event.type !== "RESUME" || !("answers" in event)) return {};
        return {
          tasks: context.tasks.map((t) => {
            if (params && t.node !== params.node) return t;
            if (t.status !== "interrupted") return t;
            if (!answeredBy(t, event.answers)) {
              // Re-run unanswered: the task reaches its interrupt again and pauses as before.
              return event.rerun ? { ...t, status: "pending" as const } : t;
            }
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
      runTasks: sendTo("tasks", ({ context, self }, params?: NodeParams) => ({
        type: "RUN" as const,
        node: params?.node,
        context,
        graph: self,
      })),
      checkpoint: ({ context, self }) => runEnvOf(self).atBarrier?.(context, barrierKind(context)),
      // A run its user started (createActor with the graph's input): apply the input now.
      startRun: enqueueActions(({ context, enqueue }) => {
        if (context.start === undefined) return;
        enqueue.assign({ start: undefined });
        enqueue.raise({ type: "INPUT", update: context.start });
      }),
      // What the pause waits on, for the actor's user (invoke/resume read the tasks instead).
      recordInterrupts: assign(({ context, self }) => ({
        interrupts: pendingInterrupts(context, runEnvOf(self)),
      })),
      clearInterrupts: assign({ interrupts: undefined }),
      // The user's RESUME: answers by interrupt id, or refused with a typed error, emitted.
      answerResume: enqueueActions(({ context, event, self, enqueue }) => {
        if (event.type !== "RESUME" || "answers" in event) return;
        const env = runEnvOf(self);
        let answers: Record<string, unknown>;
        try {
          answers = resumeAnswers(pendingInterrupts(context, env), event.resume, {
            threadId: env.thread?.threadId ?? "(this actor)",
            atBreakpoint: context.breakpoint !== null,
          });
        } catch (error) {
          enqueue.emit({ type: "resume.refused", error: error as Error });
          return;
        }
        enqueue.raise({ type: "RESUME", answers });
      }),
      // A run its user drives fails as XState actors do: the actor's error is the run's.
      failStandalone: ({ context, self }) => {
        const env = runEnvOf(self);
        if (!env.standalone) return;
        env.failed?.(context.error);
        throw context.error;
      },
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
        const update = Object.entries(event.update);
        // A subgraph run updated in place hands the update to its parent with its other writes.
        const journal = context.journal && [...context.journal, ...update];
        return { values: g.channels.apply(context.values, update), journal };
      }),
      applyUpdateAsNode: assign(({ context, event }) => {
        if (event.type !== "UPDATE" || event.asNode === undefined) return {};
        // Tasks of a paused step that already finished keep their writes (as in LangGraph).
        const finished = context.tasks.filter((t) => t.status === "done");
        const values =
          finished.length > 0
            ? g.channels.merge(context.values, inWriteOrder(finished), context.step)
            : context.values;
        const cleared = { lastRan: [], passed: [], breakpoint: null, merged: undefined };
        if (event.asNode === END) {
          // Updating as END ends what was pending: the update merges, nothing is next.
          const update = Object.entries(event.update);
          return {
            ...cleared,
            values: g.channels.apply(values, update),
            tasks: [],
            joins: {},
            step: context.step + 1,
          };
        }
        const tasks = [
          newTask(context.step, updateSeed(event.asNode, event.update, event.goto), 0),
        ];
        // Several nodes' updates are one step's tasks; a node's k-th gets ordinal k.
        for (const { asNode, update, goto } of event.alongside ?? []) {
          const ordinal = tasks.filter((t) => t.node === asNode).length;
          tasks.push(newTask(context.step, updateSeed(asNode, update, goto), ordinal));
        }
        return { ...cleared, values, tasks };
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
    context: ({ input }: { input: unknown }) => initialContext(g, options, input),
    entry: "startRun",
    output: ({ context }: { context: GraphContext }) => context.values,
    on: rootOn(base),
    states,
  } as never);
  // An actor its user restores (createActor(machine, { snapshot })): checked, and going on by itself.
  hookUserActors(g, machine as unknown as AnyStateMachine);
  // Runs driven by invoke/resume/stream that never hold: the two conditional raises
  // resolved for them (see `drivenMachine`).
  const { actions } = (machine as unknown as AnyStateMachine).implementations;
  const driven = (machine as unknown as AnyStateMachine).provide({
    actions: { startRun: () => {}, dispatchUnlessHeld: actions.dispatch },
  });
  hookUserActors(g, driven);
  drivenMachines.set(machine, driven);
  return machine as unknown as AnyStateMachine;
}

const updateSeed = (
  node: string,
  update: Record<string, unknown>,
  goto: string[] | undefined,
): TaskSeed => ({ node, kind: "update", arg: update, ...(goto && { goto }) });

/** Marks the input invoke/resume/stream start the machine with (the user's input is anything else). */
export const RUN_INPUT = Symbol("stateweaver.runInput");

/** What invoke/resume/stream start the graph machine from: the channels' initial values, and how this call runs. */
export interface GraphInput {
  [RUN_INPUT]: true;
  values: Record<string, unknown>;
  run?: RunOptions;
}

const isRunInput = (input: unknown): input is GraphInput =>
  typeof input === "object" && input !== null && RUN_INPUT in input;

/**
 * The machine's first context. From invoke/resume/stream: their values and run options.
 * From the actor's user: the channels' initial values, the compiled breakpoints, and the
 * input's writes (checked against the schema here, so bad input is the actor's error at
 * once), applied by the root's entry.
 */
function initialContext(g: GraphInternals, options: CompileOptions, input: unknown): GraphContext {
  const context: GraphContext = {
    run: DEFAULT_RUN,
    values: {},
    step: 0,
    tasks: [],
    joins: {},
    lastRan: [],
    runSteps: 0,
    breakpoint: null,
    passed: [],
  };
  if (isRunInput(input)) {
    context.values = input.values;
    if (input.run) context.run = input.run;
    return context;
  }
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    throw new InvalidConfigError(
      `The actor of graph "${g.spec.name}" was started with ${input === undefined ? "no input" : `input ${JSON.stringify(input)}`}: pass the graph's input as an object, e.g. createActor(graph.machine, { input: { question: "…" } }).`,
    );
  }
  context.values = g.channels.initialValues();
  context.run = {
    ...DEFAULT_RUN,
    interruptBefore: options.interruptBefore ?? [],
    interruptAfter: options.interruptAfter ?? [],
  };
  const writes = g.channels.toWrites(input, context.values, { node: START, step: 0 });
  context.start = Object.fromEntries(writes);
  return context;
}

type Config = { states: Record<string, any>; on: Record<string, any> };

/** The run loop's own events, entering the barrier where it now sits (in `runtime`). */
function rootOn(base: any): Record<string, unknown> {
  const on = structuredClone(base.on) as Record<string, any>;
  on.INPUT = { ...on.INPUT, target: ".runtime.barrier" };
  on.UPDATE = [{ ...on.UPDATE[0], target: ".runtime.barrier" }, on.UPDATE[1]];
  // The user's RESUME, which no paused state takes as it is: answered here, or refused.
  on.RESUME = { guard: "isUserResume", actions: "answerResume" };
  return on;
}

/**
 * The executor's states: `workflow` first, one lifecycle state per node (START first),
 * then `runtime` (the barrier, the fan-out lifecycle, the breakpoint), then `idle`, `done`,
 * `failed`. A node's `running` state finishes at the barrier, or, through one transition
 * per declared target (static edge, router path, join, `Command` end), straight at that
 * target when the barrier would only send the run there (see `directNextOf`): the
 * transition merges the writes and checkpoints the barrier on its way, as entering the
 * barrier would, and saves the barrier's two microsteps. The transitions are the user's
 * edges, so Stately tools and the inspector draw the workflow.
 */
function executorStates(
  g: GraphInternals,
  base: any,
  chart: { states: Record<string, any> },
): Record<string, unknown> {
  const id = g.spec.name;
  const at = (p: string) => `#${id}.${p === "barrier" ? "runtime.barrier" : p}`;
  const { "RUN.task": _, FANOUT: __, ...on } = base.states.barrier.on as Record<string, any>;
  const barrier = instantiate({ ...base.states.barrier, on }, id, undefined, at) as Config;
  barrier.on.FINISH = `#${id}.done`;
  barrier.on.RECURSION_LIMIT = { ...barrier.on.RECURSION_LIMIT, target: `#${id}.failed` };
  barrier.on.FANOUT = "fanout";
  const byTarget = edgesByTarget(g);
  const workflow: Record<string, unknown> = {};
  for (const node of [START, ...g.spec.nodes.keys()]) {
    barrier.on[`RUN.${node}`] = `#${id}.workflow.${node}`;
    const lifecycle = instantiate(chart.states.task, id, node, at) as Config;
    const running = lifecycle.states.running;
    const [pauses, finish] = running.on["TASKS.DONE"];
    const straight = [...(byTarget.get(node) ?? new Map())].map(([to, description]) => ({
      guard: { type: "goesStraightTo", params: { to } },
      target: to === END ? `#${id}.done` : `#${id}.workflow.${to}`,
      reenter: true,
      actions: [{ type: "mergeWrites", params: { node } }, "checkpoint"],
      description,
    }));
    running.on["TASKS.DONE"] = [pauses, ...straight, finish];
    lifecycle.states.interrupted = pausedState(lifecycle.states.interrupted);
    workflow[node] = lifecycle;
  }
  const { stepping: ___, barrier: ____, breakpoint: baseBreakpoint, failed, ...rest } = base.states;
  // Only the run's own RESUME (answers by id) passes a breakpoint; the user's is answered first.
  const breakpoint = pausedState({
    ...baseBreakpoint,
    on: { RESUME: { ...baseBreakpoint.on.RESUME, guard: "hasAnswers" } },
  });
  const fanout = instantiate(chart.states.__fanout__, id, undefined, at) as Config;
  fanout.states.interrupted = pausedState(fanout.states.interrupted);
  return {
    workflow: {
      description: "The graph's nodes; their transitions are its declared edges.",
      initial: START,
      states: workflow,
    },
    runtime: {
      description:
        "The runtime's own states: the barrier between super-steps, fan-out steps, breakpoints.",
      initial: "barrier",
      states: {
        barrier,
        fanout,
        breakpoint,
      },
    },
    ...rest,
    failed: { ...failed, entry: "failStandalone" },
  };
}

/** A state where the run waits for an answer: tagged so, its pending interrupts in the context. */
function pausedState(state: Record<string, unknown>): Record<string, unknown> {
  return { ...state, tags: ["interrupted"], entry: "recordInterrupts", exit: "clearInterrupts" };
}

/** Each node's declared targets, with how the graph declares them (for the chart's readers). */
function edgesByTarget(g: GraphInternals): Map<string, Map<string, string>> {
  const out = new Map<string, Map<string, string>>();
  for (const e of declaredEdges(g.spec)) {
    const from = out.get(e.from) ?? new Map<string, string>();
    out.set(e.from, from);
    const what =
      e.kind === "edge"
        ? "edge"
        : e.kind === "join"
          ? `join of ${g.spec.joins.find((j) => j.to === e.to && j.from.includes(e.from))!.from.join(" + ")}`
          : e.kind === "command"
            ? "Command goto"
            : `router ${e.router ?? "(anonymous)"}${e.label ? `: ${e.label}` : ""}`;
    const prior = from.get(e.to);
    from.set(e.to, prior ? `${prior}; ${what}` : what);
  }
  return out;
}

/**
 * Where the step a `TASKS.DONE` finishes goes when the barrier would send it on to one
 * place and stop for nothing: that node, or END (the run finishes); otherwise undefined.
 * Mirrors `decide(mergeStep(...))` without merging the values: one task, done, routed to
 * one node (or nowhere), joins it completes included, no hold, breakpoint or recursion limit.
 */
function directNextOf(g: GraphInternals) {
  let lastEvent: unknown;
  let last: string | undefined;
  return (context: GraphContext, event: GraphEvent): string | undefined => {
    if (event === lastEvent) return last;
    lastEvent = event;
    last = undefined;
    if (event.type !== "TASKS.DONE") return last;
    const run = context.run;
    if (run.holds || run.interruptAfter.length > 0 || run.interruptBefore.length > 0) return last;
    if (context.tasks.length !== 1 || event.output.length !== 1) return last;
    const task = context.tasks[0]!;
    const o = event.output[0]!;
    if (o.status !== "done" || o.id !== task.id) return last;
    let to: string | undefined;
    for (const s of o.next ?? []) {
      if (s.kind !== "node" || (to !== undefined && to !== s.node)) return last;
      to = s.node;
    }
    const internal = task.kind === "input" || task.kind === "update";
    if (!internal) {
      for (const join of g.joins) {
        if (!join.from.includes(task.node)) continue;
        const done = context.joins[join.key] ?? [];
        if (!join.from.every((n) => n === task.node || done.includes(n))) continue;
        if (join.to === END) continue;
        if (to !== undefined && to !== join.to) return last;
        to = join.to;
      }
    }
    if (to === undefined) {
      last = END;
      return last;
    }
    if ((internal ? context.runSteps : context.runSteps + 1) >= run.recursionLimit) return last;
    last = to;
    return last;
  };
}
