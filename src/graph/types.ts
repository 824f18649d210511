import type { Command, GotoTarget } from "./command.js";

/** Any graph state: a plain object of channels. */
export type State = Record<string, any>;

/** What a node may return: a partial update, a `Command`, or nothing. */
// biome-ignore lint/suspicious/noConfusingVoidType: a node written as `() => { … }` returns void
export type NodeResult<S extends State> = Partial<S> | Command<Partial<S>> | undefined | void;

/** A custom stream event a node emits through `runtime.writer`. */
export type WriterFn = (chunk: unknown) => void;

/** Call options: LangGraph's config shape. `thread_id` names the thread. */
export interface RunConfig {
  configurable?: {
    thread_id?: string;
    checkpoint_id?: string;
    checkpoint_ns?: string;
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

/**
 * The second argument of every node and router.
 *
 * @example
 * .addNode("ask", (state, runtime) => ({ answer: runtime.interrupt("Name?") }))
 */
export interface NodeRuntime<C = unknown> {
  /** Pause this task until resumed; returns the resume value (works without AsyncLocalStorage). */
  interrupt<R = any>(value: unknown): R;
  /** The call's config (thread id, checkpoint id…). */
  config: RunConfig;
  /** The `context` given to `invoke`, or `{}` (not checkpointed: services, user ids…). */
  context: C;
  /** Aborted when the run is aborted or the task is cancelled. */
  signal: AbortSignal;
  /** Emit a custom event to `stream()` consumers. */
  writer: WriterFn;
  /** This task's node name, super-step and id. */
  node: string;
  step: number;
  taskId: string;
}

export type NodeFn<S extends State = State, C = unknown> = (
  state: S,
  runtime: NodeRuntime<C>,
) => NodeResult<S> | Promise<NodeResult<S>>;

/** A conditional edge's router: returns node names, `END`, or `Send`s. */
export type Router<S extends State = State, C = unknown> = (
  state: S,
  runtime: NodeRuntime<C>,
) => GotoTarget | Promise<GotoTarget>;

/** A reducer merges a written value into the channel's current value. */
export type Reducer<V = any, U = any> = (existing: V, update: U) => V;
