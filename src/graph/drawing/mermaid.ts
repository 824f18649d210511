// A graph's drawing as a Mermaid flowchart.
import type { DrawnEdge, DrawnNode, GraphDrawing } from "./drawing.js";

/**
 * A drawing as a Mermaid flowchart: static edges solid, conditional edges and `Command`
 * ends dashed (labelled with their path-map keys, else the router's name, or `goto`),
 * joins thick, START and END as rounded markers, subgraph nodes framed, and the nodes a
 * thread waits at marked with the `waiting` class.
 *
 * @example
 * drawingToMermaid(graph.drawing());
 * // flowchart TD
 * //   __start__([START])
 * //   ...
 */
export function drawingToMermaid(drawing: GraphDrawing): string {
  const ids = mermaidIds(drawing.nodes);
  const lines = ["flowchart TD"];
  for (const node of drawing.nodes) lines.push(`  ${ids.get(node.id)}${shape(node)}`);
  for (const edge of drawing.edges) {
    lines.push(`  ${ids.get(edge.from)} ${arrow(edge)} ${ids.get(edge.to)}`);
  }
  const waiting = drawing.nodes.filter((n) => n.waiting).map((n) => ids.get(n.id));
  if (waiting.length > 0) {
    lines.push("  classDef waiting fill:#fde68a,stroke:#b45309,stroke-width:2px");
    lines.push(`  class ${waiting.join(",")} waiting`);
  }
  return `${lines.join("\n")}\n`;
}

function shape(node: DrawnNode): string {
  const text = quoted(node.label);
  if (node.kind === "start" || node.kind === "end") return `([${text}])`;
  return node.kind === "subgraph" ? `[[${text}]]` : `[${text}]`;
}

function arrow(edge: DrawnEdge): string {
  if (edge.kind === "edge") return "-->";
  if (edge.kind === "join") return "==>";
  const text = edge.kind === "command" ? "goto" : (edge.label ?? edge.router);
  return text ? `-.->|${quoted(text)}|` : "-.->";
}

/** Mermaid text in quotes, with the characters that would end it written as entities. */
function quoted(text: string): string {
  return `"${text.replace(/"/g, "#quot;").replace(/\n/g, " ")}"`;
}

/** Words Mermaid's flowchart syntax reads as its own, never as a node id. */
const KEYWORDS = new Set([
  "end",
  "graph",
  "flowchart",
  "subgraph",
  "direction",
  "class",
  "classdef",
  "click",
  "style",
  "linkstyle",
  "default",
]);

/**
 * Node ids Mermaid reads safely: the name when it is a plain word (not a Mermaid keyword such as `end`),
 * else `n<index>`; the label keeps the real name either way.
 */
function mermaidIds(nodes: readonly DrawnNode[]): Map<string, string> {
  const ids = new Map<string, string>();
  const taken = new Set<string>();
  nodes.forEach((node, i) => {
    const plain = /^[A-Za-z_][A-Za-z0-9_]*$/.test(node.id) && !KEYWORDS.has(node.id.toLowerCase());
    let id = plain ? node.id : `n${i}`;
    while (taken.has(id)) id = `${id}_`;
    taken.add(id);
    ids.set(node.id, id);
  });
  return ids;
}
