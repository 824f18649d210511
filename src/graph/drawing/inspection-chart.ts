// The inspection chart: a graph's own edges as an XState machine config, for Stately tooling.
import type { DrawnEdge, GraphDrawing } from "./drawing.js";

/**
 * One transition of the inspection chart, as XState's machine config writes it.
 *
 * @example
 * const t: ChartTransition = { target: "notify", guard: "yes", description: "Router shouldNotify." };
 */
export interface ChartTransition {
  target: string;
  guard?: string;
  description?: string;
}

/**
 * A state of the inspection chart (plain JSON, a subset of XState's `StateNodeConfig`).
 *
 * @example
 * const s: ChartState = { on: { NEXT: { target: "review" } } };
 */
export interface ChartState {
  description?: string;
  type?: "final" | "history";
  initial?: string;
  states?: Record<string, ChartState>;
  on?: Record<string, ChartTransition | ChartTransition[]>;
}

/**
 * The inspection chart: an XState machine config (plain JSON) with the graph's name as its id.
 *
 * @example
 * const chart: InspectionChart = inspectionChart(graph.drawing()); // chart.id === graph.name
 */
export interface InspectionChart extends ChartState {
  id: string;
}

/**
 * An inspection-only statechart of a graph, generated from its drawing: one state per node
 * (inside `workflow`, START first, END final) and one transition per declared edge. The
 * executor (`graph.machine`) runs the graph; this chart only shows it, for the Stately
 * editor and for tests. Events name the kind of edge: `NEXT` (static; a fan-out has one per
 * target, all taken in one super-step), `JOIN` (guard: the sources it waits for), the
 * router's name or `route` (guard: the path-map key) and `GOTO` (a `Command` end; guard:
 * its target). The runtime's pauses sit apart in `runtime`, back into the node that paused
 * through a history state. Its guards are names only: to walk the graph with
 * `@xstate/graph`, use `graph.inspectionMachine()` (see `inspectionMachine`).
 *
 * @example
 * createMachine(inspectionChart(graph.drawing())); // a machine Stately tools can draw
 */
export function inspectionChart(drawing: GraphDrawing): InspectionChart {
  const id = drawing.name;
  const keys = new Set(drawing.nodes.map((n) => n.id));
  let history = "__history__";
  while (keys.has(history)) history = `${history}_`;
  const label = new Map(drawing.nodes.map((n) => [n.id, n.label]));
  const workflow: Record<string, ChartState> = {};
  for (const node of drawing.nodes) {
    const state: ChartState = node.kind === "end" ? { type: "final" } : {};
    const description = describeNode(node.kind, node.label);
    if (description) state.description = description;
    const on: Record<string, ChartTransition[]> = {};
    for (const edge of drawing.edges.filter((e) => e.from === node.id)) {
      const [event, transition] = transitionOf(edge, drawing.edges, label);
      on[event] = [...(on[event] ?? []), transition];
    }
    if (Object.keys(on).length > 0) {
      state.on = Object.fromEntries(
        Object.entries(on).map(([event, list]) => [event, list.length === 1 ? list[0]! : list]),
      );
    }
    workflow[node.id] = state;
  }
  workflow[history] = { type: "history", description: "Back to the node that paused." };
  const back = `#${id}.workflow.${history}`;
  return {
    id,
    description: `Graph "${id}" as drawn for inspection (generated from its edges). graph.machine, the executor, runs it.`,
    initial: "workflow",
    states: {
      workflow: {
        description: "The graph's nodes and edges: where a run goes, super-step by super-step.",
        initial: drawing.nodes[0]!.id,
        states: workflow,
        on: {
          INTERRUPT: { target: `#${id}.runtime.interrupted` },
          BREAKPOINT: { target: `#${id}.runtime.breakpoint` },
          ERROR: { target: `#${id}.runtime.failed` },
        },
      },
      runtime: {
        description:
          "The runtime's own states, apart from the workflow: where a run stops between steps.",
        initial: "interrupted",
        states: {
          interrupted: {
            description: "A node called interrupt(): the thread waits for resume().",
            on: { RESUME: { target: back } },
          },
          breakpoint: {
            description: "A static breakpoint (interruptBefore / interruptAfter) stopped the run.",
            on: { CONTINUE: { target: back } },
          },
          failed: {
            type: "final",
            description: "A node threw; the thread keeps its last checkpoint.",
          },
        },
      },
    },
  };
}

/**
 * The chart as code the Stately editor imports as it is (Import, in its Code panel):
 * a `createMachine({...})` call around the JSON config.
 */
export function statelyCode(drawing: GraphDrawing): string {
  return `createMachine(${JSON.stringify(inspectionChart(drawing), null, 2)});\n`;
}

function describeNode(kind: GraphDrawing["nodes"][number]["kind"], name: string) {
  if (kind === "start") return "START: the run's input is applied here.";
  if (kind === "end") return "END: the run is done.";
  return kind === "subgraph" ? `Runs the compiled graph added as node "${name}".` : undefined;
}

function transitionOf(
  edge: DrawnEdge,
  all: readonly DrawnEdge[],
  label: ReadonlyMap<string, string>,
): [string, ChartTransition] {
  const target = edge.to;
  const name = (node: string) => label.get(node) ?? node;
  if (edge.kind === "edge") {
    const together = all.filter(
      (e) => e.kind === "edge" && e.from === edge.from && e.to !== target,
    );
    if (together.length === 0) return ["NEXT", { target }];
    const others = together.map((e) => name(e.to)).join(", ");
    return ["NEXT", { target, description: `Fan-out: runs in one step with ${others}.` }];
  }
  if (edge.kind === "join") {
    const sources = all
      .filter((e) => e.kind === "join" && e.to === target)
      .map((e) => name(e.from));
    return [
      "JOIN",
      {
        target,
        guard: `${sources.join(" + ")} done`,
        description: "Runs once every source has finished.",
      },
    ];
  }
  if (edge.kind === "command") return ["GOTO", { target, guard: name(target) }];
  const description = edge.router ? `Router ${edge.router}.` : undefined;
  return [
    edge.router ?? "route",
    { target, guard: edge.label ?? name(target), ...(description && { description }) },
  ];
}
