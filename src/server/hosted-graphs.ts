import type { z } from "zod";
import type { Checkpointer } from "../checkpoint/index.js";
import type { CompiledGraph, RunConfig } from "../index.js";
import type { QueuedRun } from "../runs/index.js";
import type { Store } from "../store/index.js";
import { RequestError, ServerConfigError } from "./errors.js";
import { type FactoryGraph, type GraphFactoryRuntime, isFactoryGraph } from "./graph-factory.js";
import { drawPicture, type GraphPicture } from "./graph-picture.js";

/**
 * The graphs a server hosts, by graph id (the key in stateweaver.json, also used as the
 * assistant id), each rebound to the server's checkpointer and long-term store. Thread records name a graph
 * by its `CompiledGraph.name`, so names must differ. A graph factory (`factoryGraph`) is shown
 * as the graph it builds for an empty config; `build` makes the one a run or a read uses.
 *
 * @example
 * const hosted = new HostedGraphs({ ops: agent }, checkpointer, storeFor(checkpointer));
 * hosted.get("ops").invoke(input, { config });
 */
export class HostedGraphs {
  readonly #graphs = new Map<string, CompiledGraph<any, any>>();
  readonly #idByName = new Map<string, string>();
  readonly #toolSchemas = new Map<string, Map<string, z.ZodType>>();
  readonly #factories = new Map<string, FactoryGraph>();
  readonly #checkpointer: Checkpointer;
  readonly #store: Store;
  readonly #createdAt = new Date().toISOString();

  constructor(
    graphs: Record<string, CompiledGraph<any, any> | FactoryGraph>,
    checkpointer: Checkpointer,
    store: Store,
  ) {
    this.#checkpointer = checkpointer;
    this.#store = store;
    for (const [graphId, given] of Object.entries(graphs)) {
      if (isFactoryGraph(given)) this.#factories.set(graphId, given);
      const graph = isFactoryGraph(given) ? given.base : given;
      if (typeof graph?.withCheckpointer !== "function") {
        throw new ServerConfigError(
          `Graph "${graphId}" is not a compiled graph: export the result of graph.compile() or createAgent().`,
        );
      }
      const other = this.#idByName.get(graph.name);
      if (other !== undefined) {
        throw new ServerConfigError(
          `Graphs "${other}" and "${graphId}" are both named "${graph.name}"; threads record their graph by name, so give each a different name (new Graph({ name }) or createAgent({ name })).`,
        );
      }
      this.#idByName.set(graph.name, graphId);
      this.#graphs.set(graphId, graph.withCheckpointer(checkpointer).withStore(store));
      // An agent's tools: edits are checked against their schemas before a run starts.
      const tools = (graph as { tools?: ReadonlyArray<{ name: string; schema: z.ZodType }> }).tools;
      this.#toolSchemas.set(graphId, new Map((tools ?? []).map((t) => [t.name, t.schema])));
    }
    if (this.#graphs.size === 0)
      throw new ServerConfigError("No graphs to serve: name at least one in stateweaver.json.");
  }

  /** Graph ids, in the order given. */
  get ids(): string[] {
    return [...this.#graphs.keys()];
  }

  /** The graph with this id, or a 404 naming the known ones. */
  get(graphId: string): CompiledGraph<any, any> {
    const graph = this.#graphs.get(graphId);
    if (graph) return graph;
    throw new RequestError(
      404,
      "GRAPH_NOT_FOUND",
      `No graph "${graphId}" here. Known graphs: ${this.ids.join(", ")}.`,
    );
  }

  /**
   * The graph a run (or a read or update of a thread's state) uses: for a graph factory,
   * the one it builds from `config`, on this server's stores; otherwise the hosted graph.
   */
  async build(
    graphId: string,
    config: RunConfig,
    runtime: GraphFactoryRuntime,
  ): Promise<CompiledGraph<any, any>> {
    const factory = this.#factories.get(graphId);
    if (!factory) return this.get(graphId);
    const graph = await factory.build(config, runtime);
    return graph.withCheckpointer(this.#checkpointer).withStore(this.#store);
  }

  /** The graph `run` executes (`RunsOptions.graphForRun`): a factory's, built from the run's config. */
  readonly forRun = async (
    run: QueuedRun,
    hosted: CompiledGraph<any, any>,
  ): Promise<CompiledGraph<any, any>> => {
    if (!this.isFactory(run.graphId)) return hosted;
    const configurable = { ...run.request.configurable, thread_id: run.threadId };
    return this.build(
      run.graphId,
      { configurable },
      {
        accessContext: "threads.create_run",
        executionRuntime: { context: run.request.context ?? null },
      },
    );
  };

  /** True when the graph is built per run from its config (a graph factory). */
  isFactory(graphId: string): boolean {
    return this.#factories.has(graphId);
  }

  /** The zod schema of an agent's tool, if the graph is an agent that has it. */
  toolSchema(graphId: string, toolName: string): z.ZodType | undefined {
    return this.#toolSchemas.get(graphId)?.get(toolName);
  }

  has(graphId: string): boolean {
    return this.#graphs.has(graphId);
  }

  /** The id of the graph a thread record names, if this server hosts it. */
  idOf(graphName: string | null): string | undefined {
    return graphName === null ? undefined : this.#idByName.get(graphName);
  }

  /** The LangGraph assistant object for a graph (one assistant per graph). */
  assistant(graphId: string): Record<string, unknown> {
    const graph = this.get(graphId);
    return {
      assistant_id: graphId,
      graph_id: graphId,
      name: graphId,
      description: null,
      config: {},
      context: {},
      metadata: { created_by: "system", graph_name: graph.name },
      version: 1,
      created_at: this.#createdAt,
      updated_at: this.#createdAt,
    };
  }

  /**
   * The graph's nodes and edges (the user's workflow, not the runtime's states); with
   * `xray`, its subgraphs drawn inside it.
   */
  picture(graphId: string, xray: boolean | number = false): GraphPicture {
    return drawPicture(this.get(graphId), xray);
  }
}
