// Lays a graph's drawing out in boxes and arrows with positions, for the SVG picture.
import type { DrawnEdge, DrawnNode, GraphDrawing } from "./drawing.js";

/**
 * A node's box in a laid-out drawing (top-left corner, size), in pixels.
 *
 * @example
 * const { x, y, width, height } = layoutDrawing(graph.drawing()).nodes[1]!;
 */
export interface PlacedNode extends DrawnNode {
  x: number;
  y: number;
  width: number;
  height: number;
  /** Row from the top: START is 0; an edge that goes back up (a cycle) is a `back` edge. */
  rank: number;
}

/**
 * An edge with the SVG path it is drawn along and where its label goes.
 *
 * @example
 * for (const e of layoutDrawing(graph.drawing()).edges) svg += `<path d="${e.path}"/>`;
 */
export interface PlacedEdge extends DrawnEdge {
  /** An SVG path (`d`) from the source box to the target box. */
  path: string;
  labelAt: { x: number; y: number };
  /** The edge closes a cycle: it is drawn up the right-hand side. */
  back: boolean;
}

/**
 * A drawing with positions: what the SVG picture (or any renderer) draws as is.
 *
 * @example
 * const { width, height } = layoutDrawing(graph.drawing()); // the picture's size
 */
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

/** A row item: a node's box, or a waypoint that keeps a lane free for an edge crossing the row. */
interface Slot {
  x: number;
  y: number;
  width: number;
  rank: number;
}

/**
 * Lay a drawing out top to bottom in rows (a layered layout): each node one row below the
 * lowest node with a forward edge into it, END last, items in a row ordered to keep edges
 * short. An edge spanning rows keeps a lane of its own through each (so it crosses no box),
 * and edges that close a cycle are drawn back up on the right.
 *
 * @example
 * const { width, height, nodes } = layoutDrawing(graph.drawing());
 */
export function layoutDrawing(drawing: GraphDrawing): DrawingLayout {
  const ids = drawing.nodes.map((n) => n.id);
  const back = backEdges(ids, drawing.edges);
  const rank = ranks(drawing, back);
  const widthOf = new Map(drawing.nodes.map((n) => [n.id, Math.max(84, n.label.length * 8 + 32)]));
  const waypoints = new Map<number, string[]>();
  const links: Array<[string, string]> = [];
  drawing.edges.forEach((edge, i) => {
    if (back.has(i) || edge.from === edge.to) return;
    const chain = [edge.from];
    for (let r = rank.get(edge.from)! + 1; r < rank.get(edge.to)!; r++) {
      const id = `\u0000${i}:${r}`;
      rank.set(id, r);
      widthOf.set(id, Math.max(16, (edgeText(edge)?.length ?? 0) * 7 + 10));
      chain.push(id);
    }
    waypoints.set(i, chain.slice(1));
    chain.push(edge.to);
    for (let k = 1; k < chain.length; k++) links.push([chain[k - 1]!, chain[k]!]);
  });
  const rows: string[][] = [];
  for (const [id, r] of rank) rows[r] = [...(rows[r] ?? []), id];
  orderRows(rows, links);

  const rowWidth = (row: string[]) =>
    row.reduce((sum, id) => sum + widthOf.get(id)!, 0) + GAP * (row.length - 1);
  const inner = Math.max(...rows.map(rowWidth));
  const slots = new Map<string, Slot>();
  rows.forEach((row, r) => {
    let x = MARGIN + (inner - rowWidth(row)) / 2;
    for (const id of row) {
      slots.set(id, { x, y: MARGIN + r * ROW, width: widthOf.get(id)!, rank: r });
      x += widthOf.get(id)! + GAP;
    }
  });
  const placed = new Map<string, PlacedNode>(
    drawing.nodes.map((n) => [n.id, { ...n, ...slots.get(n.id)!, height: BOX_HEIGHT }]),
  );
  const right = MARGIN + inner;
  const forward = drawing.edges.flatMap((e, k) => (back.has(k) || e.from === e.to ? [] : [k]));
  const spread = (node: PlacedNode, i: number, side: "in" | "out", other: (k: number) => Slot) => {
    const mine = forward.filter(
      (k) => drawing.edges[k]![side === "out" ? "from" : "to"] === node.id,
    );
    mine.sort((a, b) => other(a).x - other(b).x || a - b);
    return node.x + (node.width * (mine.indexOf(i) + 1)) / (mine.length + 1);
  };
  const edges = drawing.edges.map((edge, i) => {
    const twins = drawing.edges.filter((e) => e.from === edge.from && e.to === edge.to);
    const offset = (twins.indexOf(edge) - (twins.length - 1) / 2) * 14;
    const from = placed.get(edge.from)!;
    const to = placed.get(edge.to)!;
    if (back.has(i) || from.id === to.id) return backEdge(edge, from, to, offset, right);
    const chain = waypoints.get(i) ?? [];
    const via = chain.map((id) => slots.get(id)!);
    // Spread the ends of a node's edges along its side, ordered by where they go.
    const sx = spread(
      from,
      i,
      "out",
      (k) => slots.get(waypoints.get(k)?.[0] ?? drawing.edges[k]!.to)!,
    );
    const tx = spread(
      to,
      i,
      "in",
      (k) => slots.get(waypoints.get(k)?.at(-1) ?? drawing.edges[k]!.from)!,
    );
    return forwardEdge(edge, [sx, from.y + from.height], [tx, to.y - 6], via);
  });
  return {
    width: right + MARGIN + (back.size > 0 || edges.some((e) => e.back) ? BACK_LANE : 0),
    height: MARGIN * 2 + (rows.length - 1) * ROW + BOX_HEIGHT,
    nodes: ids.map((id) => placed.get(id)!),
    edges,
  };
}

/** The text an edge carries in a picture: path-map keys, else the router, `goto`, `join`. */
export function edgeText(edge: DrawnEdge): string | undefined {
  if (edge.kind === "command") return "goto";
  if (edge.kind === "join") return "join";
  if (edge.kind === "conditional") return edge.label ?? edge.router;
  return undefined;
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
  const forward = drawing.edges.filter((e, i) => !back.has(i) && e.from !== e.to);
  // Relax until stable: forward edges form a DAG, so this ends within one pass per node.
  for (let pass = 0; pass < drawing.nodes.length; pass++) {
    let changed = false;
    for (const e of forward) {
      const want = rank.get(e.from)! + 1;
      if (want > rank.get(e.to)!) {
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

/** Order each row by where its items' sources sit in the row above (two sweeps). */
function orderRows(rows: string[][], links: ReadonlyArray<[string, string]>) {
  for (let sweep = 0; sweep < 2; sweep++) {
    for (let r = 1; r < rows.length; r++) {
      const above = rows[r - 1]!;
      const centre = (id: string) => {
        const sources = links
          .filter(([from, to]) => to === id && above.includes(from))
          .map(([from]) => (above.length === 1 ? 0.5 : above.indexOf(from) / (above.length - 1)));
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

/**
 * Down out of the source, right along the gap below its row, up the lane right of every
 * box, left along the gap above the target's row, down into it: no box is crossed.
 */
function backEdge(
  edge: DrawnEdge,
  from: PlacedNode,
  to: PlacedNode,
  offset: number,
  right: number,
): PlacedEdge {
  const sx = from.x + from.width / 2 + offset;
  const sy = from.y + from.height;
  const tx = to.x + to.width / 2 + offset;
  const below = sy + 18 + offset / 3;
  const above = to.y - 18 - offset / 3;
  const lane = right + BACK_LANE / 2 + offset;
  const path = `M ${sx} ${sy} L ${sx} ${below} L ${lane} ${below} L ${lane} ${above} L ${tx} ${above} L ${tx} ${to.y - 6}`;
  return { ...edge, path, labelAt: { x: lane, y: (below + above) / 2 }, back: true };
}

/** From `start` (under the source) to `end` (over the target) through each waypoint's lane, as smooth curves. */
function forwardEdge(
  edge: DrawnEdge,
  start: [number, number],
  end: [number, number],
  via: readonly Slot[],
): PlacedEdge {
  const points: Array<[number, number]> = [start];
  for (const w of via) points.push([w.x + w.width / 2, w.y], [w.x + w.width / 2, w.y + BOX_HEIGHT]);
  points.push(end);
  let path = `M ${start[0]} ${start[1]}`;
  for (let k = 1; k < points.length; k++) {
    const [sx, sy] = points[k - 1]!;
    const [tx, ty] = points[k]!;
    const bend = (ty - sy) / 2;
    path += sx === tx ? ` L ${tx} ${ty}` : ` C ${sx} ${sy + bend}, ${tx} ${ty - bend}, ${tx} ${ty}`;
  }
  // The label sits in the edge's own lane when it has one, else halfway along.
  const [a, b] = [points[0]!, points[1]!];
  const labelAt = via[0]
    ? { x: via[0].x + via[0].width / 2, y: via[0].y + BOX_HEIGHT / 2 }
    : { x: (a[0] + b[0]) / 2, y: (a[1] + b[1]) / 2 };
  return { ...edge, path, labelAt, back: false };
}
