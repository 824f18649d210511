// A graph's drawing as a standalone SVG picture.
import type { GraphDrawing } from "./drawing.js";
import { edgeText, layoutDrawing, type PlacedEdge, type PlacedNode } from "./drawing-layout.js";

const INK = "#1f2937";
const MUTED = "#6b7280";

/**
 * A drawing as a self-contained SVG picture (no fonts or scripts to fetch): boxes for
 * nodes, START and END as dark pills, subgraphs double-framed, static edges solid,
 * conditional edges and `Command` ends dashed with their labels, joins thick, and the
 * nodes a thread waits at filled amber. All text is escaped.
 *
 * @example
 * writeFileSync("graph.svg", drawingToSvg(graph.drawing(await graph.getState(config))));
 */
export function drawingToSvg(drawing: GraphDrawing): string {
  const layout = layoutDrawing(drawing);
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${layout.width}" height="${layout.height}" viewBox="0 0 ${layout.width} ${layout.height}" font-family="ui-sans-serif, system-ui, sans-serif" font-size="13">`,
    `<title>${escapeXml(`Graph ${drawing.name}`)}</title>`,
    "<defs>",
    `<marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="10" markerHeight="10" markerUnits="userSpaceOnUse" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="${INK}"/></marker>`,
    "</defs>",
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
  ];
  for (const edge of layout.edges) out.push(edgeSvg(edge));
  for (const node of layout.nodes) out.push(nodeSvg(node));
  for (const edge of layout.edges) out.push(labelSvg(edge));
  out.push("</svg>");
  return `${out.filter(Boolean).join("\n")}\n`;
}

function edgeSvg(edge: PlacedEdge): string {
  const dashed = edge.kind === "conditional" || edge.kind === "command";
  const width = edge.kind === "join" ? 3 : 1.5;
  const dash = dashed ? ` stroke-dasharray="6 4"` : "";
  return `<path class="edge ${edge.kind}" d="${edge.path}" fill="none" stroke="${INK}" stroke-width="${width}" stroke-linejoin="round"${dash} marker-end="url(#arrow)"/>`;
}

function labelSvg(edge: PlacedEdge): string {
  const text = edgeText(edge);
  if (!text) return "";
  const width = text.length * 7 + 10;
  const { x, y } = edge.labelAt;
  return [
    `<rect x="${x - width / 2}" y="${y - 9}" width="${width}" height="18" rx="4" fill="#ffffff" stroke="#e5e7eb"/>`,
    `<text x="${x}" y="${y + 4}" text-anchor="middle" fill="${MUTED}" font-size="12">${escapeXml(text)}</text>`,
  ].join("\n");
}

function nodeSvg(node: PlacedNode): string {
  const { x, y, width, height } = node;
  const marker = node.kind === "start" || node.kind === "end";
  const fill = marker ? INK : node.waiting ? "#fde68a" : "#f3f4f6";
  const stroke = node.waiting ? "#b45309" : INK;
  const rx = marker ? height / 2 : 6;
  const parts = [
    `<g class="node ${node.kind}${node.waiting ? " waiting" : ""}">`,
    `<rect x="${x}" y="${y}" width="${width}" height="${height}" rx="${rx}" fill="${fill}" stroke="${stroke}" stroke-width="${node.waiting ? 2.5 : 1.5}"/>`,
  ];
  if (node.kind === "subgraph") {
    parts.push(
      `<rect x="${x + 4}" y="${y + 4}" width="${width - 8}" height="${height - 8}" rx="4" fill="none" stroke="${INK}"/>`,
    );
  }
  const color = marker ? "#ffffff" : INK;
  parts.push(
    `<text x="${x + width / 2}" y="${y + height / 2 + 4.5}" text-anchor="middle" fill="${color}">${escapeXml(node.label)}</text>`,
  );
  if (node.waiting) {
    parts.push(
      `<text x="${x + width + 4}" y="${y + 4}" fill="#b45309" font-size="11">waiting</text>`,
    );
  }
  parts.push("</g>");
  return parts.join("\n");
}

function escapeXml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}
