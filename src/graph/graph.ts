// The graph builder: nodes, edges and reducers over shared state; compile() turns it into a CompiledGraph.
import type { z } from "zod";
import { GraphValidationError } from "../errors/index.js";
import { CompiledGraph } from "./compiled-graph.js";
import { compileGraph } from "./compiling/compile.js";
import { END, RESERVED_NODE_NAMES, START } from "./definition/constants.js";
import type { CompileOptions, GraphSpec, NodeSpec } from "./definition/graph-spec.js";
import { nodePolicy, type RetryPolicy } from "./definition/retry-policy.js";
import type { NodeResult, NodeRuntime, Reducer, Router, State } from "./definition/types.js";

export type { CompileOptions } from "./definition/graph-spec.js";

/**
 * How a node is added: where it may `Command.goto`, how its failures are retried, and how
 * long one attempt may take.
 *
 * @example
 * graph.addNode("fetch", fetchPrices, { timeout: 5_000, retryPolicy: { maxAttempts: 3 } });
 */
export interface NodeOptions {
  ends?: readonly string[];
  retryPolicy?: RetryPolicy;
  /** Milliseconds one attempt may run; then its `runtime.signal` aborts and it fails with `NodeTimeoutError`. */
  timeout?: number;
}

/**
 * Builds a graph of nodes over shared state; `compile()` turns it into an
 * XState machine that runs it.
 *
 * @example
 * const graph = new Graph({ name: "Counter" })
 *   .addNode("inc", (s) => ({ n: s.n + 1 }))
 *   .addEdge(START, "inc").addEdge("inc", END)
 *   .compile();
 * await graph.invoke({ n: 1 }); // { status: "done", state: { n: 2 } }
 */
export class Graph<S extends State = State, C = unknown> {
  readonly #spec: GraphSpec;

  /**
   * `state` checks every write (and fills defaults); `context` describes what nodes get as
   * `runtime.context`, for clients that draw a form for it (the server's `getSchemas`).
   */
  constructor(options: { name?: string; state?: z.ZodObject; context?: z.ZodObject } = {}) {
    this.#spec = {
      name: options.name ?? "Graph",
      schema: options.state,
      contextSchema: options.context,
      nodes: new Map(),
      edges: [],
      joins: [],
      conditionalEdges: [],
      reducers: new Map(),
      defaults: new Map(),
    };
    if (!/^[A-Za-z_][\w-]*$/.test(this.#spec.name)) {
      throw new GraphValidationError(
        `Graph name "${this.#spec.name}" must start with a letter or _ and contain only letters, digits, _ and -.`,
      );
    }
  }

  /**
   * Add a node: a function of (state, runtime), or a compiled graph (a subgraph).
   * A node that only runs through `Send` may type its first argument as the Send's payload.
   */
  addNode<A = S>(
    name: string,
    run:
      | ((state: A, runtime: NodeRuntime<C>) => NodeResult<S> | Promise<NodeResult<S>>)
      | CompiledGraph<any>,
    options: NodeOptions = {},
  ): this {
    if (RESERVED_NODE_NAMES.has(name)) {
      throw new GraphValidationError(
        `"${name}" is reserved by the runtime; name the node something else.`,
      );
    }
    if (name.length === 0 || /[.#|:]/.test(name)) {
      throw new GraphValidationError(
        `Node name "${name}" is not allowed: use a non-empty name without ".", "#", "|" or ":" (they separate state ids and namespaces).`,
      );
    }
    if (this.#spec.nodes.has(name)) {
      throw new GraphValidationError(
        `Node "${name}" is already defined; give each node a unique name.`,
      );
    }
    const policy = nodePolicy(name, options);
    this.#spec.nodes.set(name, { name, run: run as NodeSpec["run"], ends: options.ends, policy });
    return this;
  }

  /** A static edge. An array `from` is a join: `to` runs once every source has finished. */
  addEdge(from: string | readonly string[], to: string): this {
    if (typeof from === "string") this.#spec.edges.push({ from, to });
    else if (from.length === 1) this.#spec.edges.push({ from: from[0]!, to });
    else this.#spec.joins.push({ from: [...from], to });
    return this;
  }

  /** Route from a node by a function of the state (`pathMap` maps its results to nodes). */
  addConditionalEdges(
    from: string,
    router: Router<S, C>,
    pathMap?: readonly string[] | Readonly<Record<string, string>>,
  ): this {
    const map = Array.isArray(pathMap)
      ? Object.fromEntries(pathMap.map((n) => [n, n]))
      : (pathMap as Record<string, string> | undefined);
    this.#spec.conditionalEdges.push({ from, router: router as Router, pathMap: map });
    return this;
  }

  /**
   * How writes to `key` merge with its current value (default: the last write wins), and
   * optionally the value it has before any write (LangGraph's channel `default`): a new
   * thread's first checkpoint shows it, and the reducer's first call gets it.
   *
   * @example
   * new Graph<{ log: string[] }>().addReducer("log", (a, b) => [...a, ...b], { default: () => [] });
   */
  addReducer<K extends keyof S & string>(
    key: K,
    reducer: Reducer<S[K], any>,
    options: { default?: () => S[K] } = {},
  ): this {
    this.#spec.reducers.set(key, reducer);
    if (options.default) this.#spec.defaults.set(key, options.default);
    else this.#spec.defaults.delete(key);
    return this;
  }

  /** Validate the graph and build its XState machine. Throws `GraphValidationError`. */
  compile(options: CompileOptions = {}): CompiledGraph<S, C> {
    const { internals, machine } = compileGraph(this.#spec, options);
    return new CompiledGraph<S, C>(internals, machine, options);
  }
}

export { END, START };
