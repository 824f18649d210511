// The checks a graph definition passes before it becomes a machine, each pointing at the fix.
import { GraphValidationError } from "../../errors/index.js";
import { END, START } from "./constants.js";
import type { CompileOptions, GraphSpec } from "./graph-spec.js";

/**
 * Checks a graph definition before it becomes a machine, so that mistakes show
 * at `compile()` with a message that says what to fix, not mid-run.
 */
export function validateGraph(spec: GraphSpec, options: CompileOptions): void {
  const known = (name: string) => spec.nodes.has(name);
  const where = `in graph "${spec.name}"`;
  const checkSource = (from: string, what: string) => {
    if (from === END)
      throw new GraphValidationError(`${what} starts at END ${where}; END has no outgoing edges.`);
    if (from !== START && !known(from)) {
      throw new GraphValidationError(
        `${what} starts at unknown node "${from}" ${where}. Add it with addNode("${from}", fn) first, or fix the name.`,
      );
    }
  };
  const checkTarget = (to: string, what: string) => {
    if (to === START)
      throw new GraphValidationError(
        `${what} points at START ${where}; START can only be a source.`,
      );
    if (to !== END && !known(to)) {
      throw new GraphValidationError(
        `${what} points at unknown node "${to}" ${where}. Known nodes: ${[...spec.nodes.keys()].join(", ") || "<none>"}.`,
      );
    }
  };

  for (const { from, to } of spec.edges) {
    checkSource(from, `Edge ${from} -> ${to}`);
    checkTarget(to, `Edge ${from} -> ${to}`);
  }
  for (const { from, to } of spec.joins) {
    for (const f of from) {
      if (f === START)
        throw new GraphValidationError(
          `Join [${from.join(", ")}] -> ${to} cannot wait for START ${where}.`,
        );
      checkSource(f, `Join [${from.join(", ")}] -> ${to}`);
    }
    checkTarget(to, `Join [${from.join(", ")}] -> ${to}`);
  }
  for (const edge of spec.conditionalEdges) {
    checkSource(edge.from, `Conditional edge from "${edge.from}"`);
    for (const to of Object.values(edge.pathMap ?? {}))
      checkTarget(to, `Conditional edge from "${edge.from}"`);
  }
  for (const node of spec.nodes.values()) {
    for (const to of node.ends ?? []) checkTarget(to, `Node "${node.name}" ends`);
  }
  for (const name of [...(options.interruptBefore ?? []), ...(options.interruptAfter ?? [])]) {
    if (!known(name)) {
      throw new GraphValidationError(
        `Breakpoint on unknown node "${name}" ${where}. Use node names from addNode().`,
      );
    }
  }

  const fromStart =
    spec.edges.some((e) => e.from === START) || spec.conditionalEdges.some((e) => e.from === START);
  if (!fromStart) {
    throw new GraphValidationError(
      `Graph "${spec.name}" has no edge out of START; add addEdge(START, "<first node>") so the run knows where to begin.`,
    );
  }

  // Reachability: a router without a pathMap may go anywhere, so it reaches everything.
  const reached = new Set<string>([START]);
  const queue = [START];
  const visit = (to: string) => {
    if (!reached.has(to)) {
      reached.add(to);
      queue.push(to);
    }
  };
  while (queue.length > 0) {
    const at = queue.pop()!;
    for (const e of spec.edges) if (e.from === at) visit(e.to);
    for (const j of spec.joins) if (j.from.includes(at)) visit(j.to);
    for (const c of spec.conditionalEdges) {
      if (c.from !== at) continue;
      if (c.pathMap) for (const to of Object.values(c.pathMap)) visit(to);
      else for (const n of spec.nodes.keys()) visit(n);
    }
    for (const to of spec.nodes.get(at)?.ends ?? []) visit(to);
  }
  const unreachable = [...spec.nodes.keys()].filter((n) => !reached.has(n));
  if (unreachable.length > 0) {
    const them = unreachable.length > 1 ? "them" : "it";
    const leaving = new Set<string>([
      ...spec.edges.map((e) => e.from),
      ...spec.joins.flatMap((j) => j.from),
      ...spec.conditionalEdges.map((c) => c.from),
      ...[...spec.nodes.values()].filter((n) => n.ends !== undefined).map((n) => n.name),
    ]);
    const names = unreachable.map((n) => `"${n}"`).join(", ");
    // A Command's goto is only known at run time, so compile() sees such a node only through
    // `ends`; a reached node with no way out is the likely one that returns the Command.
    const leaves = [...reached].filter((n) => n !== START && n !== END && !leaving.has(n));
    const by = leaves.length === 1 ? `"${leaves[0]}"` : "<the node returning the Command>";
    throw new GraphValidationError(
      `Node${unreachable.length > 1 ? "s" : ""} ${names} cannot be reached from START ${where}. If a node goes to ${them} with Command({ goto }), declare ${them} in that node's ends: addNode(${by}, fn, { ends: [${names}] }). Otherwise add an edge to ${them}, list ${them} in a pathMap, or remove ${them}.`,
    );
  }
}
