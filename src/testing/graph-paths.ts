import type { CompiledGraph, GraphEdge } from "../graph/compiled-graph.js";
import { END, START } from "../graph/definition/constants.js";

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
   * them.
   * @default 1000
   */
  limit?: number;
}

/** Where control goes from one node: edges that always fire, and the choices among the rest. */
interface Outgoing {
  always: GraphEdge[];
  /** One is taken: a router's pick (conditional) or a `Command`'s goto (command). */
  choices: GraphEdge[];
}

/** A run between steps: the step about to run, and the join sources finished so far. */
interface Frontier {
  step: string[];
  /** The edges the previous step fired: into this step, and into END. */
  into: GraphEdge[];
  joinsDone: ReadonlyMap<string, ReadonlySet<string>>;
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
 * Read from `graph.edges`, which does not tell two routers on one node apart (both are
 * treated as one choice) nor two joins into one node (treated as one join); a router
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
  const order = new Map(graph.nodes.map((n, i) => [n, i]));
  const outgoing = new Map<string, Outgoing>();
  /** Join target -> its sources (every join edge into it). */
  const joins = new Map<string, Set<string>>();
  for (const edge of dedupe(graph.edges)) {
    if (edge.kind === "join") {
      if (!joins.has(edge.to)) joins.set(edge.to, new Set());
      joins.get(edge.to)!.add(edge.from);
      continue;
    }
    if (!outgoing.has(edge.from)) outgoing.set(edge.from, { always: [], choices: [] });
    const out = outgoing.get(edge.from)!;
    (edge.kind === "edge" ? out.always : out.choices).push(edge);
  }

  const paths: GraphPath[] = [];
  const visits = new Map<string, number>();
  const steps: string[][] = [];
  const taken: GraphEdge[] = [];

  /** Every next frontier `step` can lead to: one per combination of its nodes' choices. */
  const successors = (at: Frontier): Frontier[] => {
    let combos: GraphEdge[][] = [[]];
    for (const node of at.step) {
      const { always, choices } = outgoing.get(node) ?? { always: [], choices: [] };
      const picks = choices.length > 0 ? choices.map((c) => [c]) : [[]];
      combos = combos.flatMap((combo) => picks.map((pick) => [...combo, ...always, ...pick]));
    }
    return combos.map((fired) => {
      const joinsDone = new Map(at.joinsDone);
      for (const [to, sources] of joins) {
        const ran = at.step.filter((n) => sources.has(n));
        if (ran.length === 0) continue;
        const done = new Set([...(joinsDone.get(to) ?? []), ...ran]);
        if (done.size < sources.size) {
          joinsDone.set(to, done);
          continue;
        }
        joinsDone.delete(to);
        for (const from of sources) fired.push({ from, to, kind: "join" });
      }
      const next = [...new Set(fired.map((e) => e.to))].filter((n) => n !== END);
      next.sort((a, b) => order.get(a)! - order.get(b)!);
      return { step: next, into: fired, joinsDone };
    });
  };

  const walk = (at: Frontier): void => {
    const mark = taken.length;
    taken.push(...at.into);
    if (at.step.length === 0) {
      if (paths.length >= limit) {
        throw new RangeError(
          `graphPaths found more than ${limit} paths through graph "${graph.name}". Lower maxVisits (now ${maxVisits}) or raise limit.`,
        );
      }
      const description = steps.map((s) => s.join(" + ")).join(" -> ");
      paths.push({ steps: steps.map((s) => [...s]), edges: [...taken], description });
    } else if (at.step.every((n) => (visits.get(n) ?? 0) < maxVisits)) {
      for (const n of at.step) visits.set(n, (visits.get(n) ?? 0) + 1);
      steps.push(at.step);
      for (const next of successors(at)) walk(next);
      steps.pop();
      for (const n of at.step) visits.set(n, visits.get(n)! - 1);
    }
    taken.length = mark;
  };

  for (const first of successors({ step: [START], into: [], joinsDone: new Map() })) walk(first);
  return paths.sort(
    (a, b) => a.steps.length - b.steps.length || a.description.localeCompare(b.description),
  );
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
