import { getSimplePaths } from "@xstate/graph";
import { createMachine } from "xstate";
import type { CompiledGraph } from "../graph/compiled-graph.js";
import { END, START } from "../graph/constants.js";

/** One way through a graph: the nodes in the order they run, from START to END. */
export type GraphPath = string[];

/**
 * Every simple path through a compiled graph's declared topology (static edges,
 * joins, pathMap targets, `Command` ends), from START to END, visiting no node
 * twice. Write one test per path to cover every branch a run can take.
 *
 * Built on `@xstate/graph`: the topology becomes a small statechart whose
 * events are the edges, and its simple paths are the graph's.
 *
 * @example
 * for (const path of graphPaths(approvalFlow)) {
 *   it(`runs ${path.join(" -> ")}`, async () => { … });
 * }
 */
export function graphPaths(graph: CompiledGraph<any, any>): GraphPath[] {
  const states: Record<string, { on?: Record<string, string>; type?: "final" }> = {};
  for (const node of [START, ...graph.nodes]) states[node] = { on: {} };
  states[END] = { type: "final" };
  for (const { from, to } of graph.edges) states[from]!.on![`GO.${to}`] = to;
  const topology = createMachine({ id: "topology", initial: START, states });
  const events = [...graph.nodes, END].map((to) => ({ type: `GO.${to}` }));
  const paths = getSimplePaths(topology, { events, toState: (s) => s.value === END });
  return paths
    .map((p) =>
      p.steps.map((step) => String(step.state.value)).filter((n) => n !== START && n !== END),
    )
    .sort((a, b) => a.length - b.length || a.join().localeCompare(b.join()));
}
