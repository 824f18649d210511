/**
 * A layered layout for the graph picture: nodes in rows by their longest distance from
 * the start (loops ignored for ranking), rows centred, edges as straight or side curves.
 */
import { nodeName } from "../node-names.js";
import type { GraphShape } from "../wire.js";

export interface PlacedNode {
  id: string;
  x: number;
  y: number;
  width: number;
}
export interface PlacedEdge {
  source: string;
  target: string;
  conditional: boolean;
  label?: string;
  path: string;
  labelAt: { x: number; y: number };
}
export interface Layout {
  nodes: PlacedNode[];
  edges: PlacedEdge[];
  width: number;
  height: number;
}

export const NODE_HEIGHT = 32;
const ROW_GAP = 56;
const COL_GAP = 28;
const MARGIN = 24;

/** A node's label in the picture: its reviewer-facing name. */
export const nodeLabel = nodeName;

/** Edges that close a loop (found by depth-first search from the roots), not used for ranks. */
function backEdges(graph: GraphShape): Set<number> {
  const out = new Map<string, number[]>();
  for (const [i, e] of graph.edges.entries()) out.set(e.source, [...(out.get(e.source) ?? []), i]);
  const state = new Map<string, "open" | "done">();
  const back = new Set<number>();
  const visit = (id: string) => {
    state.set(id, "open");
    for (const i of out.get(id) ?? []) {
      const t = graph.edges[i]!.target;
      if (state.get(t) === "open") back.add(i);
      else if (!state.has(t)) visit(t);
    }
    state.set(id, "done");
  };
  const targets = new Set(graph.edges.map((e) => e.target));
  const roots = graph.nodes.map((n) => n.id).filter((id) => !targets.has(id) || id === "__start__");
  for (const id of [...roots, ...graph.nodes.map((n) => n.id)]) if (!state.has(id)) visit(id);
  return back;
}

export function layoutGraph(graph: GraphShape): Layout {
  const back = backEdges(graph);
  const rank = new Map(graph.nodes.map((n) => [n.id, 0]));
  // Longest path over the acyclic edges: at most |nodes| rounds.
  for (let round = 0; round < graph.nodes.length; round++) {
    let changed = false;
    graph.edges.forEach((e, i) => {
      if (back.has(i) || !rank.has(e.source) || !rank.has(e.target)) return;
      const r = rank.get(e.source)! + 1;
      if (r > rank.get(e.target)!) {
        rank.set(e.target, r);
        changed = true;
      }
    });
    if (!changed) break;
  }
  // "end" sits alone on the last row.
  const last = Math.max(0, ...rank.values());
  if (rank.has("__end__")) rank.set("__end__", Math.max(last, 1));

  const rows: string[][] = [];
  for (const n of graph.nodes) {
    const r = rank.get(n.id)!;
    rows[r] = [...(rows[r] ?? []), n.id];
  }
  const widthOf = (id: string) => Math.max(64, nodeLabel(id).length * 7.6 + 28);
  const rowWidths = rows.map(
    (row) => (row ?? []).reduce((w, id) => w + widthOf(id), 0) + COL_GAP * ((row?.length ?? 1) - 1),
  );
  const width = Math.max(200, ...rowWidths) + MARGIN * 2 + 60;
  const nodes: PlacedNode[] = [];
  rows.forEach((row, r) => {
    let x = (width - rowWidths[r]!) / 2;
    for (const id of row ?? []) {
      nodes.push({ id, x, y: MARGIN + r * (NODE_HEIGHT + ROW_GAP), width: widthOf(id) });
      x += widthOf(id) + COL_GAP;
    }
  });
  const at = new Map(nodes.map((n) => [n.id, n]));
  const edges: PlacedEdge[] = [];
  // Loops back up already drawn: one whose rows overlap another's goes around it, not over it.
  const loops: Array<{ top: number; bottom: number; side: number }> = [];
  graph.edges.forEach((e, i) => {
    const s = at.get(e.source);
    const t = at.get(e.target);
    if (!s || !t) return;
    const sx = s.x + s.width / 2;
    const tx = t.x + t.width / 2;
    let path: string;
    let labelAt: { x: number; y: number };
    if (back.has(i) || t.y <= s.y) {
      // A loop back up: a curve out to the right of both nodes and of every node it passes.
      const top = Math.min(s.y, t.y);
      const bottom = Math.max(s.y, t.y);
      const passed = nodes.filter((n) => n.y >= top && n.y <= bottom);
      let side = Math.max(...passed.map((n) => n.x + n.width)) + 36;
      for (const loop of loops)
        if (loop.top <= bottom && top <= loop.bottom) side = Math.max(side, loop.side + 40);
      loops.push({ top, bottom, side });
      const sy = s.y + NODE_HEIGHT / 2;
      const ty = t.y + NODE_HEIGHT / 2;
      const endX = t.x + t.width + 4;
      path = `M ${s.x + s.width} ${sy} C ${side} ${sy}, ${side} ${ty}, ${endX} ${ty}`;
      // Beside the curve's outermost point (a cubic's middle), on its outer side.
      const apex = (s.x + s.width + 6 * side + endX) / 8;
      labelAt = { x: apex + 4 + ((e.label?.length ?? 0) * 6.2) / 2, y: (sy + ty) / 2 + 4 };
    } else {
      const sy = s.y + NODE_HEIGHT;
      const ty = t.y - 4;
      const mid = (sy + ty) / 2;
      path = `M ${sx} ${sy} C ${sx} ${mid}, ${tx} ${mid}, ${tx} ${ty}`;
      labelAt = { x: (sx + tx) / 2, y: mid };
    }
    edges.push({
      source: e.source,
      target: e.target,
      conditional: Boolean(e.conditional),
      ...(e.label !== undefined && { label: e.label }),
      path,
      labelAt,
    });
  });
  const height = MARGIN * 2 + rows.length * NODE_HEIGHT + Math.max(0, rows.length - 1) * ROW_GAP;
  // Room for the outermost loop and its label.
  const reach = Math.max(0, ...edges.map((e) => e.labelAt.x + ((e.label?.length ?? 0) * 6.2) / 2));
  return { nodes, edges, width: Math.max(width, reach + MARGIN), height };
}
