// The edges a graph declares (static, conditional, Command ends, joins), as its drawings and tests read them.
import { END } from "./constants.js";
import type { GraphSpec } from "./graph-spec.js";

/**
 * One declared way from a node to another (see `CompiledGraph.edges`).
 *
 * @example
 * // addConditionalEdges("model", shouldContinue, { call: "tools", stop: END })
 * const edge: GraphEdge = { from: "model", to: "tools", kind: "conditional", label: "call", router: "shouldContinue" };
 */
export interface GraphEdge {
  from: string;
  to: string;
  kind: "edge" | "join" | "conditional" | "command";
  /**
   * A conditional edge's path-map keys that lead to `to` (joined by " | "), when they are
   * not simply the target's name.
   */
  label?: string;
  /** A conditional edge's router, by its function name (absent for an anonymous router). */
  router?: string;
}

/**
 * Every edge a graph declares: static edges, joins (one per source), conditional edges
 * (their path-map targets, or every node and END when a router has no path map) and
 * `Command.goto` ends, in that order.
 */
export function declaredEdges(spec: GraphSpec): GraphEdge[] {
  const out: GraphEdge[] = [];
  for (const { from, to } of spec.edges) out.push({ from, to, kind: "edge" });
  for (const { from, to } of spec.joins)
    for (const f of from) out.push({ from: f, to, kind: "join" });
  for (const c of spec.conditionalEdges) {
    const router = c.router.name || undefined;
    for (const [to, keys] of pathKeysByTarget(spec, c.pathMap)) {
      const label = keys.some((k) => k !== to) ? keys.join(" | ") : undefined;
      out.push({
        from: c.from,
        to,
        kind: "conditional",
        ...(label && { label }),
        ...(router && { router }),
      });
    }
  }
  for (const node of spec.nodes.values()) {
    for (const to of node.ends ?? []) out.push({ from: node.name, to, kind: "command" });
  }
  return out;
}

/** Target -> the router results that lead there; without a path map, any node or END. */
function pathKeysByTarget(
  spec: GraphSpec,
  pathMap: Readonly<Record<string, string>> | undefined,
): Map<string, string[]> {
  const byTarget = new Map<string, string[]>();
  if (!pathMap) {
    for (const to of [...spec.nodes.keys(), END]) byTarget.set(to, [to]);
    return byTarget;
  }
  for (const [key, to] of Object.entries(pathMap))
    byTarget.set(to, [...(byTarget.get(to) ?? []), key]);
  return byTarget;
}
