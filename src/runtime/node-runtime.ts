/**
 * The contract between the runtime and node code: what a node (or router) is handed
 * besides the state. The runtime owns it; graphs re-export it.
 */

import type { Store } from "../store/index.js";

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
  /**
   * The graph's long-term store (`compile({ store })`, or the server's), for what outlives
   * a thread: `await runtime.store?.get(["users", id], "prefs")`. Undefined without one.
   */
  store: Store | undefined;
  /** This task's node name, super-step and id. */
  node: string;
  step: number;
  taskId: string;
}
