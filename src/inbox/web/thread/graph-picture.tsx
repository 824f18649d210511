/** The graph as SVG, drawn by us from `graph` in the thread view; waiting nodes highlighted. */
import type { GraphShape } from "../wire.js";
import { layoutGraph, NODE_HEIGHT, nodeLabel } from "./graph-layout.js";

export function GraphPicture({ graph, waitingAt }: { graph: GraphShape; waitingAt: string[] }) {
  if (graph.nodes.length === 0) return <p class="muted">No graph to show.</p>;
  const layout = layoutGraph(graph);
  const waiting = new Set(waitingAt);
  return (
    <svg
      class="graph"
      viewBox={`0 0 ${layout.width} ${layout.height}`}
      width={layout.width}
      height={layout.height}
      role="img"
      aria-label={`Graph with ${graph.nodes.length} nodes${waitingAt.length ? `, waiting at ${waitingAt.join(", ")}` : ""}`}
    >
      <defs>
        <marker
          id="arrow"
          viewBox="0 0 10 10"
          refX="8"
          refY="5"
          markerWidth="7"
          markerHeight="7"
          orient="auto-start-reverse"
        >
          <path d="M 0 0 L 10 5 L 0 10 z" class="arrow-head" />
        </marker>
      </defs>
      {layout.edges.map((e) => (
        <g key={`${e.source}->${e.target}`} class={e.conditional ? "edge conditional" : "edge"}>
          <path d={e.path} marker-end="url(#arrow)" />
          {e.label && (
            <text x={e.labelAt.x} y={e.labelAt.y} class="edge-label" text-anchor="middle">
              {e.label}
            </text>
          )}
        </g>
      ))}
      {layout.nodes.map((n) => {
        const special = n.id === "__start__" || n.id === "__end__";
        const cls = ["node", special ? "terminal" : "", waiting.has(n.id) ? "waiting" : ""]
          .filter(Boolean)
          .join(" ");
        return (
          <g key={n.id} class={cls} data-node={n.id}>
            <rect x={n.x} y={n.y} width={n.width} height={NODE_HEIGHT} rx={special ? 16 : 6} />
            <text x={n.x + n.width / 2} y={n.y + NODE_HEIGHT / 2 + 4} text-anchor="middle">
              {nodeLabel(n.id)}
            </text>
            {waiting.has(n.id) && <title>waiting for review</title>}
          </g>
        );
      })}
    </svg>
  );
}
