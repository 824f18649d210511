// A graph's definition as the builder records it and compile reads it: nodes, edges, joins, reducers.
import type { z } from "zod";
import type { Checkpointer } from "../../checkpoint/checkpointer.js";
import type { Store } from "../../store/index.js";
import type { NodePolicy } from "./retry-policy.js";
import type { NodeFn, Reducer, Router } from "./types.js";

/**
 * A compiled graph as a node of another graph (a subgraph): what the parent's compiler asks
 * of it. Declared here, below `CompiledGraph`, so the definition need not import the class
 * that is built from it.
 *
 * @example
 * const sub: SubgraphNode = inner.compile(); // a CompiledGraph is one
 */
export interface SubgraphNode {
  /** This graph as a node of a parent graph: it runs nested and hands back its writes. */
  asNode(name: string): NodeFn<any, any>;
}

export interface NodeSpec {
  name: string;
  /** A function node, or a compiled graph used as a subgraph. */
  run: NodeFn<any, any> | SubgraphNode;
  /** Every node this node may `Command.goto`. */
  ends: readonly string[] | undefined;
  /** Its retry policy and timeout, if it has either. */
  policy?: NodePolicy | undefined;
}

export interface ConditionalEdgeSpec {
  from: string;
  router: Router<any, any>;
  /** Router result -> node; absent: the router returns node names itself. */
  pathMap: Readonly<Record<string, string>> | undefined;
}

/** The graph's definition, as `compile()` reads it. */
export interface GraphSpec {
  name: string;
  schema: z.ZodObject | undefined;
  /** What `runtime.context` holds, as given to `new Graph({ context })`: described, not checked. */
  contextSchema?: z.ZodObject | undefined;
  nodes: Map<string, NodeSpec>;
  edges: Array<{ from: string; to: string }>;
  joins: Array<{ from: readonly string[]; to: string }>;
  conditionalEdges: ConditionalEdgeSpec[];
  reducers: Map<string, Reducer>;
  /** A key's value before anything is written to it (`addReducer`'s `default`). */
  defaults: Map<string, () => unknown>;
}

export interface CompileOptions {
  /** Where checkpoints go; needed for interrupts, resume and time travel. */
  checkpointer?: Checkpointer;
  /** The long-term store nodes reach as `runtime.store` (e.g. `new MemoryStore()`, `storeFor(checkpointer)`). */
  store?: Store;
  /** Static breakpoints: pause before these nodes run. */
  interruptBefore?: readonly string[];
  /** Static breakpoints: pause after these nodes ran. */
  interruptAfter?: readonly string[];
}
