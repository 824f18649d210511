// A hosted graph drawn for clients as LangGraph's getGraph answers: nodes, edges, and with xray its subgraphs inside.
import { type CompiledGraph, END, START } from "../index.js";

/**
 * One node of a drawn graph. `__start__` and `__end__` are `schema` nodes, every other
 * node a `runnable` whose `data.name` is its own name (inside a drawn subgraph the id is
 * prefixed with the subgraph's node, `weather_graph:model_node`).
 *
 * @example
 * const node: PictureNode = { id: "agent", name: "agent", type: "runnable", data: { name: "agent" } };
 */
export interface PictureNode {
  id: string;
  name: string;
  type: "schema" | "runnable";
  data: { name: string } | { title: string };
}

/**
 * The user's graph drawn for clients: its nodes (with `__start__` and `__end__`) and
 * edges, as LangGraph's `assistants.getGraph` returns them.
 *
 * @example
 * const picture: GraphPicture = {
 *   nodes: [{ id: "__start__", name: "__start__", type: "schema", data: { title: "__start__" } }],
 *   edges: [{ source: "__start__", target: "model", conditional: false }],
 * };
 */
export interface GraphPicture {
  nodes: PictureNode[];
  edges: Array<{ source: string; target: string; conditional: boolean; label?: string }>;
}

type Edge = GraphPicture["edges"][number];

const pictureNode = (id: string): PictureNode =>
  id === START || id === END
    ? { id, name: id, type: "schema", data: { title: id } }
    : { id, name: id, type: "runnable", data: { name: id } };

/** The graph's own nodes and declared edges, each edge once. */
function flatPicture(graph: CompiledGraph<any, any>): GraphPicture {
  const seen = new Set<string>();
  const edges: Edge[] = [];
  for (const e of graph.edges) {
    const key = `${e.from}>${e.to}`;
    if (seen.has(key)) continue;
    seen.add(key);
    edges.push({
      source: e.from,
      target: e.to,
      conditional: e.kind === "conditional" || e.kind === "command",
      // Path-map labels, as graph.drawing() and toMermaid() show them.
      ...(e.label ? { label: e.label } : e.kind === "command" && { label: "goto" }),
    });
  }
  return { nodes: [START, ...graph.nodes, END].map(pictureNode), edges };
}

/**
 * Draw `graph`. With `xray` (true, or how many levels deep), each subgraph node is
 * replaced by the subgraph's own nodes, ids prefixed `node:`, without its `__start__` and
 * `__end__`: edges into the subgraph node lead to the nodes its start leads to, and edges
 * out of it leave from the nodes that lead to its end, as LangGraph draws them.
 *
 * @example
 * drawPicture(weather, true).nodes.map((n) => n.id);
 * // ["__start__", "router_node", "normal_llm_node", "weather_graph:model_node", "weather_graph:weather_node", "__end__"]
 */
export function drawPicture(graph: CompiledGraph<any, any>, xray: boolean | number): GraphPicture {
  const picture = flatPicture(graph);
  const depth = xray === true ? Number.POSITIVE_INFINITY : xray === false ? 0 : xray;
  if (depth <= 0) return picture;
  let { nodes, edges } = picture;
  for (const [name, subgraph] of graph.subgraphs) {
    const inner = drawPicture(subgraph, depth - 1);
    const innerNodes = inner.nodes.filter((n) => n.type === "runnable");
    if (innerNodes.length === 0) continue;
    const prefixed = (id: string) => `${name}:${id}`;
    const entries = inner.edges.filter((e) => e.source === START).map((e) => e.target);
    const exits = inner.edges.filter((e) => e.target === END).map((e) => e.source);
    const innerEdges = inner.edges
      .filter((e) => e.source !== START && e.target !== END)
      .map((e) => ({ ...e, source: prefixed(e.source), target: prefixed(e.target) }));
    const outer: Edge[] = [];
    for (const e of edges) {
      if (e.target === name && e.source === name) {
        // A subgraph node that loops to itself: its ends lead back to its entries.
        for (const from of exits)
          for (const to of entries)
            outer.push({ ...e, source: prefixed(from), target: prefixed(to) });
      } else if (e.target === name)
        for (const to of entries) outer.push({ ...e, target: prefixed(to) });
      else if (e.source === name)
        for (const from of exits) outer.push({ ...e, source: prefixed(from) });
      else outer.push(e);
    }
    const at = nodes.findIndex((n) => n.id === name);
    nodes = [
      ...nodes.slice(0, at),
      ...innerNodes.map((n) => ({ ...n, id: prefixed(n.id), name: prefixed(n.id) })),
      ...nodes.slice(at + 1),
    ];
    edges = [...outer, ...innerEdges];
  }
  return { nodes, edges };
}
