// The inspection chart as a machine @xstate/graph can walk: super-steps in order, choices as events, cycles bounded.
import { assign, type MachineSnapshot, type StateMachine, setup } from "xstate";
import { InvalidConfigError } from "../../errors/index.js";
import { END, START } from "../definition/constants.js";
import type { GraphEdge } from "../definition/declared-edges.js";

/**
 * Options of `graph.inspectionMachine()` (and `inspectionMachine`).
 *
 * @example
 * graph.inspectionMachine({ maxVisits: 3 }); // a tool loop unrolled to two tool rounds
 */
export interface InspectionMachineOptions {
  /**
   * The bound on cycles: how often one node may run on a walk. A super-step that would run
   * a node more often leads to the dead-end state `__bound__` instead, so every walk ends.
   * Raise it to unroll cycles further (paths grow with it). Same meaning as in `graphPaths`.
   * @default 2
   */
  maxVisits?: number;
}

/**
 * Where a walk of the inspection machine stands: its context, part of every snapshot.
 *
 * @example
 * // resting at "research", the first node of the step "research + draft"
 * const at: InspectionContext = {
 *   superstep: 2, at: "research", pending: ["draft"], started: [], joins: {}, visits: { plan: 1, research: 1, draft: 1 },
 * };
 */
export interface InspectionContext {
  /** The super-step the node at rest runs in: 0 for START, 1 for the first nodes. */
  superstep: number;
  /** The state the walk rests in: a node, `__start__`, `__end__` or the bound's state. */
  at: string;
  /** The nodes of this super-step still to visit after `at`, in definition order. */
  pending: string[];
  /** The nodes this super-step's finished nodes start (the next step, joins aside). */
  started: string[];
  /** Join target -> its sources that have run since it last fired. */
  joins: Record<string, string[]>;
  /** How often each node has run (nodes that have not run are left out). */
  visits: Record<string, number>;
}

/**
 * An event of the inspection machine: how the node at rest finishes. `NEXT` for a node
 * without a choice (its static edges fire); for a router's pick, `route <from> -> <to>`;
 * for a `Command({ goto })` end, `goto <from> -> <to>`. A path's events are the choices a
 * test steers the real graph into.
 *
 * @example
 * const revise: InspectionEvent = { type: "goto review -> revise" };
 */
export type InspectionEvent =
  | { type: "NEXT" }
  | { type: `route ${string} -> ${string}` }
  | { type: `goto ${string} -> ${string}` };

/** The machine `inspectionMachine` returns: typed for @xstate/graph's paths. */
export type InspectionMachine = StateMachine<
  InspectionContext,
  InspectionEvent,
  any,
  any,
  any,
  any,
  any,
  string,
  string,
  any,
  any,
  any,
  any,
  any
>;

/** A snapshot of the inspection machine (a path step's `state`). */
export type InspectionSnapshot = MachineSnapshot<
  InspectionContext,
  InspectionEvent,
  any,
  any,
  any,
  any,
  any,
  any
>;

/** What `inspectionMachine` reads from a graph (a `CompiledGraph` has all three). */
export interface InspectedGraph {
  name: string;
  /** Node names in definition order (START and END left out). */
  nodes: readonly string[];
  /** The declared edges (`CompiledGraph.edges`). */
  edges: readonly GraphEdge[];
}

/** Where control goes from one node: edges that always fire, and the choices among the rest. */
interface Outgoing {
  always: GraphEdge[];
  /** One is taken per walk: a router's pick (conditional) or a `Command`'s goto (command). */
  choices: GraphEdge[];
}

/**
 * The inspection chart of a graph as an XState machine whose guards and actions are
 * implemented, so `@xstate/graph` (`getShortestPaths`, `getSimplePaths`, `createTestModel`)
 * walks it. Its states are START (`__start__`), the nodes and END (`__end__`, final); a walk
 * visits the nodes the runtime runs, super-step by super-step, the nodes of one step one
 * after the other in definition order (`context.superstep` says which step). Each event is
 * how the node at rest finishes (see `InspectionEvent`): `NEXT`, or one event per choice of
 * its routers and `Command` ends, so a path's events are the choices to steer a run into.
 * Between two nodes the walk passes `__barrier__` (eventless), which moves on to the next
 * node of the step, or ends the step: a fan-out's targets run together in the next step, a
 * join's target once all its sources have run, and a step that starts nothing goes to END.
 * A step that would run a node more than `maxVisits` times goes to `__bound__` (no events),
 * so cycles are unrolled that far and every walk ends.
 *
 * The chart's pauses (`runtime`: interrupts, breakpoints, failures) are left out: they are
 * not choices of the route. As in `graphPaths` (whose paths are these walks to END), two
 * routers on one node are one choice, as are two joins into one node, and a router that
 * returns several targets or `Send`s is one choice per target.
 *
 * @example
 * import { createTestModel } from "@xstate/graph";
 * const model = createTestModel(graph.inspectionMachine());
 * for (const path of model.getSimplePaths({ toState: (s) => s.status === "done" })) {
 *   const nodes = path.steps.map((s) => s.state.value); // ["__start__", "plan", …, "__end__"]
 *   const revise = path.steps.some((s) => s.event.type === "goto review -> revise");
 * }
 */
export function inspectionMachine(
  graph: InspectedGraph,
  options: InspectionMachineOptions = {},
): InspectionMachine {
  const maxVisits = options.maxVisits ?? 2;
  if (!Number.isInteger(maxVisits) || maxVisits < 1) {
    throw new InvalidConfigError(
      `inspectionMachine's maxVisits must be a whole number of at least 1 (how often a walk may run one node); got ${String(maxVisits)}. Leave it out for the default, 2.`,
    );
  }
  const order = new Map(graph.nodes.map((n, i) => [n, i]));
  const byOrder = (nodes: Iterable<string>) =>
    [...new Set(nodes)].sort((a, b) => order.get(a)! - order.get(b)!);
  const outgoing = new Map<string, Outgoing>();
  /** Join target -> its sources (every join edge into it), in definition order. */
  const joins = new Map<string, string[]>();
  for (const edge of dedupe(graph.edges)) {
    if (edge.kind === "join") {
      joins.set(edge.to, byOrder([...(joins.get(edge.to) ?? []), edge.from]));
      continue;
    }
    if (!outgoing.has(edge.from)) outgoing.set(edge.from, { always: [], choices: [] });
    const out = outgoing.get(edge.from)!;
    (edge.kind === "edge" ? out.always : out.choices).push(edge);
  }
  const taken = new Set([START, END, ...graph.nodes]);
  const spare = (name: string) => {
    let key = name;
    while (taken.has(key)) key = `${key}_`;
    taken.add(key);
    return key;
  };
  const barrier = spare("__barrier__");
  const bound = spare("__bound__");

  /** The context after `node` finishes by taking `choice` (none: no choice): decided purely. */
  const finish = (
    context: InspectionContext,
    node: string,
    choice: string | undefined,
  ): InspectionContext => {
    const out = outgoing.get(node) ?? { always: [], choices: [] };
    const fired = [...out.always.map((e) => e.to), ...(choice === undefined ? [] : [choice])];
    const started = byOrder([...context.started, ...fired.filter((to) => to !== END)]);
    const joined: Record<string, string[]> = {};
    for (const [target, sources] of joins) {
      const ran = [...(context.joins[target] ?? []), ...(sources.includes(node) ? [node] : [])];
      if (ran.length > 0) joined[target] = byOrder(ran);
    }
    const [next, ...pending] = context.pending;
    if (next !== undefined) return { ...context, at: next, pending, started, joins: joined };
    // The step is over: joins whose sources have all run fire, and the next step begins.
    const step = [...started];
    for (const [target, sources] of joins) {
      if (joined[target]?.length !== sources.length) continue;
      delete joined[target];
      if (target !== END) step.push(target);
    }
    const [first, ...rest] = byOrder(step);
    if (first === undefined)
      return { ...context, at: END, pending: [], started: [], joins: joined };
    const all = [first, ...rest];
    if (all.some((n) => (context.visits[n] ?? 0) >= maxVisits)) {
      return { ...context, at: bound, pending: [], started: all, joins: joined };
    }
    const visits: Record<string, number> = {};
    for (const n of graph.nodes) {
      const count = (context.visits[n] ?? 0) + (all.includes(n) ? 1 : 0);
      if (count > 0) visits[n] = count;
    }
    return {
      superstep: context.superstep + 1,
      at: first,
      pending: rest,
      started: [],
      joins: joined,
      visits,
    };
  };

  const states: Record<string, object> = {};
  for (const node of [START, ...graph.nodes]) {
    const out = outgoing.get(node) ?? { always: [], choices: [] };
    const ways =
      out.choices.length === 0
        ? [["NEXT", undefined, describeNext(out.always)] as const]
        : out.choices.map((c) => [eventOf(c), c.to, describeChoice(c, out.always)] as const);
    states[node] = {
      ...(node === START && { description: "START: the run's input is applied here." }),
      on: Object.fromEntries(
        ways.map(([type, to, description]) => [
          type,
          {
            target: barrier,
            actions: { type: "finish", params: { node, to } },
            description,
          },
        ]),
      ),
    };
  }
  states[barrier] = {
    description:
      "Between two nodes: on to the next node of this super-step or, at its end, to the first node of the next one (joins fire once all their sources ran), END when it starts nothing.",
    always: [...graph.nodes, END, bound].map((key) => ({
      target: key,
      guard: { type: "restsAt", params: { key } },
    })),
  };
  states[END] = { type: "final", description: "END: the run is done." };
  states[bound] = {
    description: `The walk stops: the next super-step would run a node more than ${maxVisits} times (raise maxVisits to unroll cycles further).`,
  };

  type FinishParams = { node: string; to: string | undefined };
  const machine = setup({
    types: { context: {} as InspectionContext, events: {} as InspectionEvent },
    actions: {
      finish: assign(({ context }, params: FinishParams) =>
        finish(context, params.node, params.to),
      ),
    },
    guards: {
      restsAt: ({ context }, params: { key: string }) => context.at === params.key,
    },
  }).createMachine({
    id: graph.name,
    description: `Graph "${graph.name}" for walking: its nodes in super-steps, each event a way a node finishes (a choice, or NEXT).`,
    initial: START,
    context: {
      superstep: 0,
      at: START,
      pending: [],
      started: [],
      joins: {},
      visits: {},
    },
    // The config is built from the graph at run time; its shape is checked by the tests.
    states: states as never,
  });
  return machine as unknown as InspectionMachine;
}

/** The event that takes a choice edge (a router's pick or a `Command`'s goto). */
function eventOf(choice: GraphEdge): InspectionEvent["type"] {
  return `${choice.kind === "command" ? "goto" : "route"} ${choice.from} -> ${choice.to}`;
}

function describeNext(always: readonly GraphEdge[]): string {
  if (always.length === 0) return "Finishes: starts nothing (joins aside).";
  return `Finishes: starts ${always.map((e) => e.to).join(", ")}.`;
}

function describeChoice(choice: GraphEdge, always: readonly GraphEdge[]): string {
  const pick =
    choice.kind === "command"
      ? `Command({ goto: "${choice.to}" })`
      : `Router ${choice.router ?? "(anonymous)"} picks ${choice.label ?? choice.to}`;
  return always.length === 0
    ? `${pick}.`
    : `${pick}; also starts ${always.map((e) => e.to).join(", ")}.`;
}

/** `graph.edges` lists a target once per declaration; a walk needs each edge once. */
function dedupe(edges: readonly GraphEdge[]): GraphEdge[] {
  const seen = new Set<string>();
  return edges.filter((e) => {
    const key = `${e.kind}:${e.from}>${e.to}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
