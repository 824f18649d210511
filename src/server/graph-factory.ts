// Graphs built per run from its config (LangGraph's graph factories), and the graph a server shows for them.
import type { CompiledGraph, RunConfig } from "../index.js";
import { ServerConfigError } from "./errors.js";

/**
 * Why a factory is called (LangGraph's access contexts): to execute a run, to read or update
 * a thread's state, or to describe the graph (schemas, drawing, the assistant).
 */
export type GraphAccess =
  | "threads.create_run"
  | "threads.read"
  | "threads.update"
  | "assistants.read";

/** What a factory learns besides the config: why it is called, and the run's `context` when it runs one. */
export interface GraphFactoryRuntime {
  accessContext: GraphAccess;
  /** The run's `context`, for `threads.create_run`; null otherwise. */
  executionRuntime: { context: unknown } | null;
}

/**
 * A function that builds a graph from a run's config, as LangGraph's deployments export
 * them: `(config, runtime) => graph`, sync or async, returning a compiled graph or a
 * `Graph` to compile. Every graph it builds must keep one name (threads record their
 * graph by name).
 *
 * @example
 * export const graph: GraphFactory = async (config) =>
 *   buildAgent({ model: String(config.configurable?.model ?? "fake") });
 */
export type GraphFactory = (
  config: RunConfig,
  runtime: GraphFactoryRuntime,
) => unknown | Promise<unknown>;

const FACTORY = Symbol.for("stateweaver.factoryGraph");

/**
 * A graph factory ready to host: `base` is what it builds for an empty config (shown as the
 * graph: its drawing, schemas, node names), `build` makes the graph a run or a thread read
 * uses. Make one with `factoryGraph` and give it to `createServer({ graphs })`.
 */
export interface FactoryGraph {
  readonly [FACTORY]: true;
  readonly base: CompiledGraph<any, any>;
  build(config: RunConfig, runtime: GraphFactoryRuntime): Promise<CompiledGraph<any, any>>;
}

/**
 * Host a graph factory: it is called once now with an empty config (`assistants.read`) for
 * the graph the server shows, then for each run with the run's config (the assistant's
 * merged under the run's) and for each state read or update with the thread's last run's.
 * A factory that throws fails that run (or that request), not the server.
 *
 * @example
 * const server = createServer({
 *   graphs: { dynamic: await factoryGraph((config) => chain(String(config.configurable?.node ?? "default"))) },
 *   checkpointer,
 * });
 */
export async function factoryGraph(factory: GraphFactory, id = "graph"): Promise<FactoryGraph> {
  const call = async (config: RunConfig, runtime: GraphFactoryRuntime) =>
    compiledFrom(await factory(config, runtime), id);
  let base: CompiledGraph<any, any>;
  try {
    base = await call(
      { configurable: {} },
      { accessContext: "assistants.read", executionRuntime: null },
    );
  } catch (error) {
    if (error instanceof ServerConfigError) throw error;
    throw new ServerConfigError(
      `graphs.${id}: the graph factory failed when called with an empty config (${(error as Error).message}); it must build a graph for { configurable: {} } too, with defaults for what the config leaves out.`,
      { cause: error },
    );
  }
  return {
    [FACTORY]: true,
    base,
    async build(config, runtime) {
      const graph = await call(config, runtime);
      if (graph.name !== base.name) {
        throw new ServerConfigError(
          `graphs.${id}: the graph factory built a graph named "${graph.name}" where it first built "${base.name}"; threads record their graph by name, so give every graph it builds one name (new Graph({ name })).`,
        );
      }
      return graph;
    },
  };
}

/** True for what `factoryGraph` made (from any copy of stateweaver). */
export function isFactoryGraph(value: unknown): value is FactoryGraph {
  return typeof value === "object" && value !== null && FACTORY in value;
}

function compiledFrom(value: unknown, id: string): CompiledGraph<any, any> {
  const graph = value as { compile?: () => unknown; withCheckpointer?: unknown } | null;
  if (typeof graph?.withCheckpointer === "function") return graph as CompiledGraph<any, any>;
  if (typeof graph?.compile === "function") return compiledFrom(graph.compile(), id);
  throw new ServerConfigError(
    `graphs.${id}: the graph factory returned ${graph === null ? "null" : typeof graph}, not a graph; return graph.compile(), createAgent(…) or a Graph.`,
  );
}
