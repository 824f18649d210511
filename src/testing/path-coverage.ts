import type { InspectionEvent } from "xstate";
import type { InterruptRecord } from "../checkpoint/checkpointer.js";
import type { CompiledGraph, GraphEdge } from "../graph/compiled-graph.js";
import type { Command } from "../graph/definition/command.js";
import { END, START } from "../graph/definition/constants.js";
import type { RunConfig } from "../graph/definition/types.js";
import type { TaskOutcome } from "../runtime/task.js";
import { type GraphPath, type GraphPathsOptions, graphPaths } from "./graph-paths.js";

/**
 * One run `pathCoverage` made: what it was given, the steps it took and the edges it used.
 *
 * @example
 * const [run] = (await pathCoverage(agent, [{ toolRounds: 1 }])).runs;
 * run.steps; // [["model"], ["tools"], ["model"]]
 */
export interface CoveredRun {
  input: unknown;
  /** `"interrupted"`: it paused and `resume` gave no answer; `"failed"`: it threw (`error`). */
  status: "done" | "interrupted" | "failed";
  /** The super-steps that ran, each its nodes in definition order (as `GraphPath.steps`). */
  steps: string[][];
  /** The declared edges the run took, each once. */
  edges: GraphEdge[];
  /** The path of `graphPaths` the run followed to its end (none while paused or failed). */
  path: GraphPath | undefined;
  error?: unknown;
}

/**
 * What the inputs given to `pathCoverage` reached, and what none of them did.
 *
 * @example
 * expect((await pathCoverage(graph, inputs)).edges.missed).toEqual([]);
 */
export interface PathCoverage {
  runs: CoveredRun[];
  /** `graphPaths(graph, options)`, split into those some run followed and the rest. */
  paths: { covered: GraphPath[]; missed: GraphPath[] };
  /** `graph.edges` (each once), split into those some run took and those no input reached. */
  edges: { covered: GraphEdge[]; missed: GraphEdge[] };
}

/**
 * What `resume` is told when a run pauses.
 *
 * @example
 * const resume = ({ input, interrupts }: PausedRun<State>) => input.approve;
 */
export interface PausedRun<S> {
  input: unknown;
  interrupts: InterruptRecord[];
  values: S;
}

/**
 * Options of `pathCoverage`: those of `graphPaths`, and how to answer interrupts.
 *
 * @example
 * await pathCoverage(approval, inputs, { maxVisits: 3, resume: ({ input }) => input.approve });
 */
export interface PathCoverageOptions<S> extends GraphPathsOptions {
  /**
   * The value to resume a paused run with (as `graph.resume(value)` takes it); `undefined`
   * leaves the run paused. Without it, runs stop at their first interrupt.
   */
  resume?: (paused: PausedRun<S>) => unknown;
  /** Passed to nodes as `runtime.context`. */
  context?: unknown;
}

/** A run that keeps pausing stops being resumed after this many answers. */
const MAX_RESUMES = 50;

/**
 * Run a graph on each input and report which of its paths (`graphPaths`) and declared edges
 * the runs covered, and which edges no input reached: model-based testing, measured. What a
 * run took is read from the runtime's own record of each finished task (where it routed),
 * through an inspection observer, so a router's or `Command`'s choice counts only if made.
 * A graph with a checkpointer runs each input on a fresh thread; interrupts are answered
 * by `options.resume`, and static breakpoints (interruptBefore/After) are passed.
 *
 * @example
 * const coverage = await pathCoverage(agent, [{ toolRounds: 0 }, { toolRounds: 1 }]);
 * expect(coverage.edges.missed).toEqual([]);
 * coverage.paths.missed.map((p) => p.description); // paths no input took
 */
export async function pathCoverage<S extends Record<string, any>>(
  graph: CompiledGraph<S, any>,
  inputs: ReadonlyArray<Partial<S> | Command | null>,
  options: PathCoverageOptions<S> = {},
): Promise<PathCoverage> {
  const paths = graphPaths(graph, options);
  const declared = uniqueEdges(graph.edges);
  const runs: CoveredRun[] = [];
  const prefix = `path-coverage-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  for (const [i, input] of inputs.entries()) {
    const config: RunConfig | undefined = graph.checkpointer
      ? { configurable: { thread_id: `${prefix}-${i}` } }
      : undefined;
    runs.push(await coverOne(graph, input, config, declared, paths, options));
  }
  const taken = new Set(runs.flatMap((r) => r.edges.map(edgeKey)));
  const followed = new Set(runs.map((r) => r.path));
  return {
    runs,
    paths: {
      covered: paths.filter((p) => followed.has(p)),
      missed: paths.filter((p) => !followed.has(p)),
    },
    edges: {
      covered: declared.filter((e) => taken.has(edgeKey(e))),
      missed: declared.filter((e) => !taken.has(edgeKey(e))),
    },
  };
}

async function coverOne<S extends Record<string, any>>(
  graph: CompiledGraph<S, any>,
  input: Partial<S> | Command | null,
  config: RunConfig | undefined,
  declared: GraphEdge[],
  paths: GraphPath[],
  options: PathCoverageOptions<S>,
): Promise<CoveredRun> {
  const outcomes: TaskOutcome[] = [];
  const inspect = (ev: InspectionEvent) => {
    if (ev.type === "@xstate.event" && ev.event.type === "TASKS.DONE") {
      outcomes.push(...(ev.event as unknown as { output: TaskOutcome[] }).output);
    }
  };
  const call = { config, inspect, context: options.context };
  let status: CoveredRun["status"] = "failed";
  let error: unknown;
  try {
    let result = await graph.invoke(input, call);
    for (let answers = 0; result.status === "interrupted" && answers < MAX_RESUMES; answers++) {
      // A static breakpoint is no choice: go on past it, as `invoke(null)` does.
      if (result.interrupts.every((i) => i.timing !== "during")) {
        result = await graph.invoke(null, call);
        continue;
      }
      const answer = options.resume?.({
        input,
        interrupts: result.interrupts,
        values: result.state,
      });
      if (answer === undefined) break;
      result = await graph.resume(answer, call);
    }
    status = result.status;
  } catch (caught) {
    error = caught;
  }
  const finished = outcomes.filter((o) => o.status === "done");
  const steps = stepsOf(graph.nodes, finished);
  const edges = edgesTaken(declared, finished, steps);
  const key = JSON.stringify(steps);
  const candidates = status === "done" ? paths.filter((p) => JSON.stringify(p.steps) === key) : [];
  const took = new Set(edges.map(edgeKey));
  // Paths with the same steps differ only in a choice into END: take the one whose edges ran.
  const path = candidates.find((p) => p.edges.every((e) => took.has(edgeKey(e)))) ?? candidates[0];
  return { input, status, steps, edges, path, ...(error !== undefined && { error }) };
}

/** Task ids are `step:node:ordinal`. */
const taskStep = (o: TaskOutcome) => Number(o.id.split(":")[0]);
const taskNode = (o: TaskOutcome) => o.id.split(":")[1]!;

function stepsOf(nodes: readonly string[], finished: TaskOutcome[]): string[][] {
  const byStep = new Map<number, Set<string>>();
  for (const o of finished) {
    if (taskNode(o) === START) continue;
    const step = byStep.get(taskStep(o)) ?? new Set<string>();
    byStep.set(taskStep(o), step.add(taskNode(o)));
  }
  return [...byStep.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, ran]) => [...ran].sort((a, b) => nodes.indexOf(a) - nodes.indexOf(b)));
}

/**
 * The declared edges finished tasks took: a route to a node is its static edge if there is
 * one, else the router or `Command` edges to it; a choice into END is taken when the
 * task chose no other; a join's edges when its target ran after all its sources.
 */
function edgesTaken(
  declared: GraphEdge[],
  finished: TaskOutcome[],
  steps: string[][],
): GraphEdge[] {
  const taken = new Set<string>();
  const from = (node: string) => declared.filter((e) => e.from === node && e.kind !== "join");
  for (const o of finished) {
    const node = taskNode(o);
    const out = from(node);
    const staticTo = new Set(out.filter((e) => e.kind === "edge").map((e) => e.to));
    const routed = (o.next ?? []).map((s) => s.node);
    for (const to of routed) {
      const edges = staticTo.has(to)
        ? out.filter((e) => e.kind === "edge" && e.to === to)
        : out.filter((e) => e.to === to);
      for (const e of edges) taken.add(edgeKey(e));
    }
    for (const e of out) if (e.kind === "edge" && e.to === END) taken.add(edgeKey(e));
    if (!routed.some((to) => !staticTo.has(to))) {
      for (const e of out) if (e.kind !== "edge" && e.to === END) taken.add(edgeKey(e));
    }
  }
  const ranAt = (node: string) => steps.findIndex((s) => s.includes(node));
  for (const join of declared.filter((e) => e.kind === "join")) {
    const sources = declared
      .filter((e) => e.kind === "join" && e.to === join.to)
      .map((e) => e.from);
    const target = ranAt(join.to);
    if (join.to === END) {
      if (sources.every((s) => ranAt(s) >= 0)) taken.add(edgeKey(join));
    } else if (target >= 0 && sources.every((s) => ranAt(s) >= 0 && ranAt(s) < target)) {
      taken.add(edgeKey(join));
    }
  }
  return declared.filter((e) => taken.has(edgeKey(e)));
}

const edgeKey = (e: GraphEdge) => `${e.kind}:${e.from}>${e.to}`;

function uniqueEdges(edges: GraphEdge[]): GraphEdge[] {
  const seen = new Set<string>();
  return edges.filter((e) => !seen.has(edgeKey(e)) && seen.add(edgeKey(e)));
}
