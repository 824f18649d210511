import {
  type AdjacencyMap,
  getAdjacencyMap,
  type SerializedSnapshot,
  serializeSnapshot,
} from "@xstate/graph";
import type { CompiledGraph, GraphEdge } from "../graph/compiled-graph.js";
import { START } from "../graph/definition/constants.js";
import type { InspectionEvent, InspectionSnapshot } from "../graph/drawing/inspection-machine.js";

/**
 * One way a run can go through a graph, super-step by super-step.
 *
 * @example
 * // START -> plan; plan -> research, plan -> draft; [research, draft] -> review
 * const path: GraphPath = {
 *   steps: [["plan"], ["research", "draft"], ["review"]],
 *   edges: [{ from: "__start__", to: "plan", kind: "edge" }, …],
 *   description: "plan -> research + draft -> review",
 * };
 */
export interface GraphPath {
  /** The super-steps in order, each the nodes that run together (in definition order). */
  steps: string[][];
  /**
   * Every declared edge the path takes, in order: those that start each step (a join
   * lists one edge per source) and those into END. A `conditional` or `command` edge is
   * a choice the test must steer the run into.
   */
  edges: GraphEdge[];
  /** For a test's name: steps joined by " -> ", the nodes of a step by " + ". */
  description: string;
}

/** Options of `graphPaths` (named after `@xstate/graph`'s `TraversalOptions`). */
export interface GraphPathsOptions {
  /**
   * How often a path may run one node: a cycle is unrolled until its nodes have run this
   * many times, so each of its edges is taken by some path.
   * @default 2
   */
  maxVisits?: number;
  /**
   * The most paths to list; more throws, as a graph with many choices per step multiplies
   * them. The walk also gives up (and throws) past `limit * 100` states of the inspection
   * machine, so a graph with very many ways through it fails fast rather than slowly.
   * @default 1000
   */
  limit?: number;
}

/**
 * Every way a run can go through a compiled graph, as the runtime executes it: in
 * super-steps. The nodes of a step run together, and the next step is what they start:
 * every static edge from every node fires, a join's target runs once all its sources
 * have run (in any steps), and a node's conditional edges and `Command` ends are
 * alternatives, one taken per path. A path ends when a step starts nothing. A cycle is
 * unrolled until its nodes have run `maxVisits` times, so each of its edges is taken
 * by some path. Write one test per path; `path.edges` says which route each router or
 * `Command` must take.
 *
 * The walk is @xstate/graph's, over `graph.inspectionMachine({ maxVisits })`: each path is
 * one of that machine's walks to its final state (those `getSimplePaths` lists with
 * `toState: (s) => s.status === "done"`), read back as super-steps and edges. Like the
 * machine, it reads `graph.edges`, which does not tell two routers on one node apart (both
 * are treated as one choice) nor two joins into one node (treated as one join); a router
 * that returns several targets or `Send`s is also one choice per target here.
 *
 * @example
 * // START -> model; model -> tools | END (a router); tools -> model
 * graphPaths(agent).map((p) => p.description);
 * // ["model", "model -> tools -> model"]
 *
 * for (const path of graphPaths(agent)) {
 *   it(`runs ${path.description}`, async () => {
 *     const toolRounds = path.steps.filter((s) => s.includes("tools")).length;
 *     const result = await agent.invoke({ toolRounds });
 *     // … check the nodes ran in path.steps
 *   });
 * }
 */
export function graphPaths(
  graph: CompiledGraph<any, any>,
  options: GraphPathsOptions = {},
): GraphPath[] {
  const { maxVisits = 2, limit = 1000 } = options;
  const tooMany = (what: string) =>
    new RangeError(
      `graphPaths found more than ${what} through graph "${graph.name}". Lower maxVisits (now ${maxVisits}) or raise limit.`,
    );
  const machine = graph.inspectionMachine({ maxVisits });
  let adjacency: AdjacencyMap<InspectionSnapshot, InspectionEvent>;
  try {
    // @xstate/graph does the walk; a path-count limit bounds how far it may go.
    adjacency = getAdjacencyMap(machine, { limit: limit * STATES_PER_PATH });
  } catch (error) {
    if (error instanceof Error && /Traversal limit exceeded/.test(error.message)) {
      throw tooMany(`${limit * STATES_PER_PATH} states (for at most ${limit} paths)`);
    }
    throw error;
  }
  const edges = dedupe(graph.edges);
  const paths: GraphPath[] = [];
  const trail: Array<{ at: InspectionSnapshot; event: InspectionEvent }> = [];
  // The inspection machine's states never repeat on a walk (visits and steps only grow), so
  // every path from its first state to a final one is simple: what getSimplePaths lists.
  const walk = (serial: SerializedSnapshot): void => {
    const { state, transitions } = adjacency[serial]!;
    if (state.status === "done") {
      if (paths.length >= limit) throw tooMany(`${limit} paths`);
      paths.push(pathOf(trail, state, edges));
      return;
    }
    for (const { event, state: next } of Object.values(transitions)) {
      trail.push({ at: state, event });
      walk(serializeSnapshot(next));
      trail.pop();
    }
  };
  // The walk starts where @xstate/graph did: its first entry is the initial state.
  walk(Object.keys(adjacency)[0] as SerializedSnapshot);
  return paths.sort(
    (a, b) => a.steps.length - b.steps.length || a.description.localeCompare(b.description),
  );
}

/** How many machine states a walk may visit per path allowed by `limit`, before it gives up. */
const STATES_PER_PATH = 100;

/**
 * A walk of the inspection machine as a `GraphPath`: its nodes grouped by super-step, and
 * the edges each visited node fired (its static edges, its choice) and the joins each step
 * completed, in the order the runtime fires them.
 */
function pathOf(
  trail: ReadonlyArray<{ at: InspectionSnapshot; event: InspectionEvent }>,
  end: InspectionSnapshot,
  edges: readonly GraphEdge[],
): GraphPath {
  const steps: string[][] = [];
  const taken: GraphEdge[] = [];
  for (const [i, { at, event }] of trail.entries()) {
    const node = at.context.at;
    if (node !== START) {
      if (steps.length < at.context.superstep) steps.push([]);
      steps[steps.length - 1]!.push(node);
    }
    taken.push(...edges.filter((e) => e.from === node && e.kind === "edge"));
    if (event.type !== "NEXT") {
      const kind = event.type.startsWith("goto ") ? "command" : "conditional";
      const to = event.type.slice(`${kind === "command" ? "goto" : "route"} ${node} -> `.length);
      taken.push(edges.find((e) => e.from === node && e.kind === kind && e.to === to)!);
    }
    const next = trail[i + 1]?.at ?? end;
    if (next.status === "done" || next.context.superstep !== at.context.superstep) {
      taken.push(...joinsFired(at, next, edges));
    }
  }
  const description = steps.map((s) => s.join(" + ")).join(" -> ");
  return { steps, edges: taken, description };
}

/** The join edges a step completed: from its last node at rest to the state after it. */
function joinsFired(
  last: InspectionSnapshot,
  after: InspectionSnapshot,
  edges: readonly GraphEdge[],
): GraphEdge[] {
  const joins = edges.filter((e) => e.kind === "join");
  const targets = [...new Set(joins.map((e) => e.to))];
  const node = last.context.at;
  return targets
    .filter((to) => {
      const ran = (last.context.joins[to]?.length ?? 0) > 0;
      const runs = joins.some((e) => e.to === to && e.from === node);
      return (ran || runs) && !(to in after.context.joins);
    })
    .flatMap((to) => joins.filter((e) => e.to === to));
}
/** `graph.edges` lists a target once per declaration; a path needs each edge once. */
function dedupe(edges: GraphEdge[]): GraphEdge[] {
  const seen = new Set<string>();
  return edges.filter((e) => {
    const key = `${e.kind}:${e.from}>${e.to}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
