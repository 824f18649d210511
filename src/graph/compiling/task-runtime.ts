// The runtime object a node (and its routers) is handed: one per task.
import type { NodeRuntime, RunConfig, WriterFn } from "../../runtime/node-runtime.js";
import type { Store } from "../../store/index.js";

/** Where a task's `runtime.signal` comes from: its step's cancellation, or its attempt's. */
export interface SignalSource {
  readonly signal: AbortSignal;
}

/**
 * A task's `NodeRuntime`. A class rather than an object literal: a literal with a `signal`
 * getter takes V8's slow path (about 2 µs per task on Node 20, more than running a simple
 * node). `signal` stays an own, enumerable accessor, made on first read, so spreading the
 * runtime (`{ ...runtime, tools }`, as agents do) copies it as before.
 */
export class TaskRuntime implements NodeRuntime {
  readonly interrupt: NodeRuntime["interrupt"];
  readonly config: RunConfig;
  readonly context: unknown;
  readonly store: Store | undefined;
  declare readonly signal: AbortSignal;
  readonly writer: WriterFn;
  readonly node: string;
  readonly step: number;
  readonly taskId: string;
  readonly #source: SignalSource;

  /** One shared accessor for every instance (a closure per task is what the literal cost). */
  static readonly #signal: PropertyDescriptor = {
    get(this: TaskRuntime) {
      return this.#source.signal;
    },
    enumerable: true,
    configurable: true,
  };

  constructor(fields: Omit<NodeRuntime, "signal">, source: SignalSource) {
    this.interrupt = fields.interrupt;
    this.config = fields.config;
    this.context = fields.context;
    this.store = fields.store;
    Object.defineProperty(this, "signal", TaskRuntime.#signal);
    this.writer = fields.writer;
    this.node = fields.node;
    this.step = fields.step;
    this.taskId = fields.taskId;
    this.#source = source;
  }

  /** The same runtime with `signal` from `source` (an attempt's, which a timeout aborts alone). */
  withSignalFrom(source: SignalSource): TaskRuntime {
    return new TaskRuntime(this, source);
  }
}
