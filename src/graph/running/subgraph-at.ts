// The subgraph a checkpoint namespace names, found by walking a graph's subgraph nodes.
import { InvalidConfigError } from "../../errors/index.js";

/** What is needed of a compiled graph to walk its subgraphs. */
export interface WithSubgraphs<G> {
  readonly name: string;
  readonly subgraphs: Array<[string, G]>;
}

/**
 * The subgraph whose run `ns` names (`node:taskId`, levels joined by `|`, as a subgraph
 * task's `checkpoint_ns` reads), found from `graph` one level at a time; a typed error
 * naming the level that is no subgraph node, and the ones there are.
 *
 * @example
 * subgraphAt(parent, "weather_graph:2:weather_graph:0").name; // "weather_graph"
 */
export function subgraphAt<G extends WithSubgraphs<G>>(graph: G, ns: string): G {
  let at = graph;
  for (const level of ns.split("|")) {
    const node = level.slice(0, level.indexOf(":") >>> 0);
    const found = at.subgraphs.find(([name]) => name === node);
    if (!found) {
      const known = at.subgraphs.map(([name]) => name).join(", ") || "none";
      throw new InvalidConfigError(
        `checkpoint_ns "${ns}" names no subgraph run of graph "${at.name}": "${node}" is not one of its subgraph nodes (${known}). Take checkpoint_ns from a task's checkpoint in getState(config).tasks, or from an interrupt's ns.`,
      );
    }
    at = found[1];
  }
  return at;
}
