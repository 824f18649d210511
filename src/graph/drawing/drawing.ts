// A graph as plain data for drawing: its boxes and arrows, with the nodes where a thread waits marked.
import { END, START } from "../definition/constants.js";
import type { GraphEdge } from "../definition/declared-edges.js";

/**
 * A box in a graph's picture: one of the user's nodes, or the START / END markers.
 *
 * @example
 * const node: DrawnNode = { id: "approve", label: "approve", kind: "node", waiting: true };
 */
export interface DrawnNode {
  /** The node's name (`__start__` / `__end__` for the markers): what edges point at. */
  id: string;
  /** What to write in the box: the name, or `START` / `END`. */
  label: string;
  kind: "start" | "end" | "node" | "subgraph";
  /** The thread waits here: the node is in the snapshot's `next` (paused, or about to run). */
  waiting: boolean;
}

/**
 * An arrow in a graph's picture: a `GraphEdge` whose `label` is ready to print (END shown as `END`).
 *
 * @example
 * const edge: DrawnEdge = { from: "publish", to: "__end__", kind: "conditional", label: "nobody" };
 */
export type DrawnEdge = GraphEdge;

/**
 * A graph as plain data, for anything that draws it (Mermaid, the Stately export, the SVG
 * picture, the web inbox): its nodes, its declared edges, and where a thread waits.
 *
 * @example
 * const picture = graph.drawing(await graph.getState(config));
 * picture.waitingAt; // ["approval"]: the thread is paused there
 */
export interface GraphDrawing {
  name: string;
  /** START first, then the nodes in definition order, then END (when some edge reaches it). */
  nodes: DrawnNode[];
  /** Each declared edge once, in `graph.edges` order. */
  edges: DrawnEdge[];
  /** The nodes of `next` that are in this graph: where the thread waits (empty: it is not waiting). */
  waitingAt: string[];
}

/** What `drawGraph` reads from a compiled graph. */
export interface GraphShape {
  name: string;
  nodes: readonly string[];
  edges: readonly GraphEdge[];
  /** Nodes that run a compiled graph. */
  subgraphs: ReadonlySet<string>;
}

/** Build the drawing of a graph; `at.next` (a `StateSnapshot`'s) marks where a thread waits. */
export function drawGraph(shape: GraphShape, at?: { next: readonly string[] }): GraphDrawing {
  const waitingAt = (at?.next ?? []).filter(
    (n, i, all) => shape.nodes.includes(n) && all.indexOf(n) === i,
  );
  const node = (id: string): DrawnNode => ({
    id,
    label: id,
    kind: shape.subgraphs.has(id) ? "subgraph" : "node",
    waiting: waitingAt.includes(id),
  });
  const seen = new Set<string>();
  const edges: DrawnEdge[] = [];
  for (const e of shape.edges) {
    const key = `${e.kind}:${e.from}>${e.to}:${e.label ?? ""}:${e.router ?? ""}`;
    if (seen.has(key)) continue;
    seen.add(key);
    edges.push(e.label ? { ...e, label: shownName(e.label) } : { ...e });
  }
  const nodes: DrawnNode[] = [
    { id: START, label: "START", kind: "start", waiting: false },
    ...shape.nodes.map(node),
  ];
  if (edges.some((e) => e.to === END))
    nodes.push({ id: END, label: "END", kind: "end", waiting: false });
  return { name: shape.name, nodes, edges, waitingAt };
}

/** A router result as a reader knows it: the END constant's value printed as `END`. */
function shownName(label: string): string {
  return label
    .split(" | ")
    .map((k) => (k === END ? "END" : k === START ? "START" : k))
    .join(" | ");
}
