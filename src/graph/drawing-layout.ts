import type { DrawnEdge, DrawnNode, GraphDrawing } from "./drawing.js";

/** A node's box in a laid-out drawing (top-left corner, size), in pixels. */
export interface PlacedNode extends DrawnNode {
  x: number;
  y: number;
  width: number;
  height: number;
  /** Row from the top: START is 0; an edge that goes back up (a cycle) is a `back` edge. */
  rank: number;
}

/** An edge with the SVG path it is drawn along and where its label goes. */
export interface PlacedEdge extends DrawnEdge {
  /** An SVG path (`d`) from the source box to the target box. */
  path: string;
  labelAt: { x: number; y: number };
  /** The edge closes a cycle: it is drawn up the right-hand side. */
  back: boolean;
}

/** A drawing with positions: what the SVG picture (or any renderer) draws as is. */
export interface DrawingLayout {
  width: number;
  height: number;
  nodes: PlacedNode[];
  edges: PlacedEdge[];
}

const ROW = 96;
const GAP = 36;
const MARGIN = 28;
const BOX_HEIGHT = 38;
/** Room on the right for edges that go back up. */
const BACK_LANE = 56;

/**
 * Lay a drawing out top to bottom in rows (a layered layout): each node one row below the
 * lowest node with a forward edge into it, END last, nodes in a row ordered to keep edges
 * short. Edges that close a cycle are drawn back up on the right.
 *
 * @example
 * const { width, height, nodes } = layoutDrawing(graph.drawing());
 */
export function layoutDrawing(drawing: GraphDrawing): DrawingLayout {
  const ids = drawing.nodes.map((n) => n.id);
  const back = backEdges(ids, drawing.edges);
  const rank = ranks(drawing, back);
  const byRank: string[][] = [];
  for (const id of ids) {
    const r = rank.get(id)!;
    byRank[r] = [...(byRank[r] ?? []), id];
  }
  const rows = byRank.filter((row) => row !== undefined);
  orderRows(rows, drawing.edges, back);

  const width = (n: DrawnNode) => Math.max(84, n.label.length * 8 + 32);
  const byId = new Map(drawing.nodes.map((n) => [n.id, n]));
  const rowWidth = (row: string[]) =>
    row.reduce((sum, id) => sum + width(byId.get(id)!), 0) + GAP * (row.length - 1);
  const inner = Math.max(...rows.map(rowWidth));
  const placed = new Map<string, PlacedNode>();
  rows.forEach((row, r) => {
    let x = MARGIN + (inner - rowWidth(row)) / 2;
    for (const id of row) {
      const node = byId.get(id)!;
      placed.set(id, {
        ...node,
        x,
        y: MARGIN + r * ROW,
        width: width(node),
        height: BOX_HEIGHT,
        rank: r,
      });
      x += width(node) + GAP;
    }
  });
  const right = MARGIN + inner;
  const edges = drawing.edges.map((edge, i) => {
    const twins = drawing.edges.filter((e) => e.from === edge.from && e.to === edge.to);
    const offset = (twins.indexOf(edge) - (twins.length - 1) / 2) * 14;
    return placeEdge(
      edge,
      placed.get(edge.from)!,
      placed.get(edge.to)!,
      back.has(i),
      offset,
      right,
    );
  });
  return {
    width: right + MARGIN + (back.size > 0 ? BACK_LANE : 0),
    height: MARGIN * 2 + (rows.length - 1) * ROW + BOX_HEIGHT,
    nodes: ids.map((id) => placed.get(id)!),
    edges,
  };
}

/** Indexes of edges that close a cycle: they point at a node on the depth-first path from START. */
function backEdges(ids: readonly string[], edges: readonly DrawnEdge[]): Set<number> {
  const back = new Set<number>();
  const state = new Map<string, "open" | "closed">();
  const visit = (id: string) => {
    state.set(id, "open");
    edges.forEach((e, i) => {
      if (e.from !== id) return;
      if (state.get(e.to) === "open") back.add(i);
      else if (!state.has(e.to)) visit(e.to);
    });
    state.set(id, "closed");
  };
  for (const id of ids) if (!state.has(id)) visit(id);
  return back;
}

/** Longest forward path from START for each node; END goes below everything. */
function ranks(drawing: GraphDrawing, back: ReadonlySet<number>): Map<string, number> {
  const rank = new Map(drawing.nodes.map((n) => [n.id, n.kind === "start" ? 0 : 1]));
  const forward = drawing.edges.filter((_, i) => !back.has(i));
  // Relax until stable: forward edges form a DAG, so this ends within one pass per node.
  for (let pass = 0; pass < drawing.nodes.length; pass++) {
    let changed = false;
    for (const e of forward) {
      const want = rank.get(e.from)! + 1;
      if (e.from !== e.to && want > rank.get(e.to)!) {
        rank.set(e.to, want);
        changed = true;
      }
    }
    if (!changed) break;
  }
  const end = drawing.nodes.find((n) => n.kind === "end");
  if (end) {
    const others = drawing.nodes.filter((n) => n !== end).map((n) => rank.get(n.id)!);
    rank.set(end.id, Math.max(...others) + 1);
  }
  return rank;
}

/** Order each row by where its nodes' sources sit in the row above (two sweeps). */
function orderRows(rows: string[][], edges: readonly DrawnEdge[], back: ReadonlySet<number>) {
  for (let sweep = 0; sweep < 2; sweep++) {
    for (let r = 1; r < rows.length; r++) {
      const above = rows.slice(0, r).flat();
      const centre = (id: string) => {
        const sources = edges
          .filter((e, i) => e.to === id && !back.has(i) && above.includes(e.from))
          .map((e) => position(rows, e.from));
        return sources.length === 0
          ? Number.POSITIVE_INFINITY
          : sources.reduce((a, b) => a + b) / sources.length;
      };
      const keyed = rows[r]!.map((id, i) => ({ id, key: centre(id), i }));
      keyed.sort((a, b) => a.key - b.key || a.i - b.i);
      rows[r] = keyed.map((k) => k.id);
    }
  }
}

/** A node's horizontal place in its row, from 0 (left) to 1 (right). */
function position(rows: string[][], id: string): number {
  const row = rows.find((r) => r.includes(id)) ?? [id];
  return row.length === 1 ? 0.5 : row.indexOf(id) / (row.length - 1);
}

function placeEdge(
  edge: DrawnEdge,
  from: PlacedNode,
  to: PlacedNode,
  back: boolean,
  offset: number,
  right: number,
): PlacedEdge {
  if (back || from.id === to.id) {
    // Down out of the source, right along the gap below its row, up the lane right of every
    // box, left along the gap above the target's row, down into it: no box is crossed.
    const sx = from.x + from.width / 2 + offset;
    const sy = from.y + from.height;
    const tx = to.x + to.width / 2 + offset;
    const ty = to.y - 6;
    const below = sy + 18 + offset / 3;
    const above = to.y - 18 - offset / 3;
    const lane = right + BACK_LANE / 2 + offset;
    const path = [
      `M ${sx} ${sy}`,
      `L ${sx} ${below}`,
      `L ${lane} ${below}`,
      `L ${lane} ${above}`,
      `L ${tx} ${above}`,
      `L ${tx} ${ty}`,
    ].join(" ");
    return { ...edge, path, labelAt: { x: lane, y: (below + above) / 2 }, back: true };
  }
  const sx = from.x + from.width / 2 + offset;
  const sy = from.y + from.height;
  const tx = to.x + to.width / 2 + offset;
  const ty = to.y - 6;
  const bend = (ty - sy) / 2;
  const path = `M ${sx} ${sy} C ${sx} ${sy + bend}, ${tx} ${ty - bend}, ${tx} ${ty}`;
  return { ...edge, path, labelAt: { x: (sx + tx) / 2, y: (sy + ty) / 2 }, back: false };
}
