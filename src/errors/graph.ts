// A graph's errors: a definition compile refuses, and what goes wrong while a run runs.
import { brandError } from "./brand-error.js";

import { sentences } from "./sentences.js";
import { StateweaverError } from "./stateweaver-error.js";

/** The graph definition is inconsistent; thrown by `compile()` before anything runs. */
export class GraphValidationError extends StateweaverError {
  static {
    brandError(GraphValidationError);
  }

  constructor(message: string) {
    super("GRAPH_VALIDATION", message);
  }
}

/** Input or a node's update does not fit the graph's state (schema, or two writers to one key). */
export class InvalidUpdateError extends StateweaverError {
  static {
    brandError(InvalidUpdateError);
  }

  constructor(message: string) {
    super("INVALID_UPDATE", message);
  }
}

/** A resume value does not fit what the thread is waiting for. The thread is left untouched. */
export class InvalidResumeError extends StateweaverError {
  static {
    brandError(InvalidResumeError);
  }

  constructor(message: string) {
    super("INVALID_RESUME", message);
  }
}

/** The call's configuration is missing something it needs (thread id, checkpointer…). */
export class InvalidConfigError extends StateweaverError {
  static {
    brandError(InvalidConfigError);
  }

  constructor(message: string) {
    super("INVALID_CONFIG", message);
  }
}

/**
 * A value entering a run (input, a node's write, an interrupt payload, a resume value, a
 * `Send` argument, an `updateState` value) is not JSON, with or without a checkpointer.
 * `path` names where, e.g. `state.cb`; `cause` is what was thrown when reading it threw.
 */
export class NonSerializableError extends StateweaverError {
  static {
    brandError(NonSerializableError);
  }

  readonly path: string;
  constructor(path: string, what: string, options?: { cause?: unknown }) {
    super(
      "NON_SERIALIZABLE",
      `${path} is ${what}; only JSON (objects, arrays, strings, finite numbers, booleans, null) can go into a graph's state, payloads and resume values. Convert it to plain data before it enters the graph (give a class a toJSON(), or pass its fields).`,
      options,
    );
    this.path = path;
  }
}

/**
 * A value entering a run nests objects and arrays deeper than `limit` levels
 * (`MAX_JSON_DEPTH`, 1,000). Deeper values could not be checkpointed reliably, so they
 * are refused everywhere, with or without a checkpointer.
 *
 * @example
 * graph.invoke({ list: deeplyLinkedList }); // ValueTooDeepError: input.list nests … more than 1000 levels
 */
export class ValueTooDeepError extends StateweaverError {
  static {
    brandError(ValueTooDeepError);
  }

  readonly path: string;
  readonly limit: number;
  constructor(path: string, limit: number) {
    super(
      "VALUE_TOO_DEEP",
      `${path} nests objects and arrays more than ${limit} levels deep, the most a value in a graph may have. Flatten it (e.g. a list of nodes that point to each other by id instead of nested ones), or store it elsewhere and keep a reference in the state.`,
    );
    this.path = path;
    this.limit = limit;
  }
}

/** Node code caught the interrupt control signal instead of letting it propagate. */
export class InterruptSwallowedError extends StateweaverError {
  static {
    brandError(InterruptSwallowedError);
  }

  constructor(node: string) {
    super(
      "INTERRUPT_SWALLOWED",
      `Node "${node}" called interrupt() but returned normally: a try/catch in the node caught the interrupt signal. Call interrupt() outside try blocks, or rethrow errors for which isGraphInterrupt(error) is true.`,
    );
  }
}

/** On resume, a node reached its interrupts in a different order or with different payloads. */
export class InterruptReplayError extends StateweaverError {
  static {
    brandError(InterruptReplayError);
  }

  constructor(message: string) {
    super("INTERRUPT_REPLAY", message);
  }
}

/** The run took more super-steps than `recursionLimit` allows. */
export class RecursionLimitError extends StateweaverError {
  static {
    brandError(RecursionLimitError);
  }

  readonly limit: number;
  constructor(limit: number) {
    super(
      "RECURSION_LIMIT",
      `The run reached the recursion limit of ${limit} steps without finishing. Check for a cycle that never reaches END, or raise it with invoke(input, { recursionLimit }).`,
    );
    this.limit = limit;
  }
}

/**
 * A node threw. `node`, `step` and `cause` say where and why; `attempts` is how many times
 * it ran, counting retries (its `retryPolicy`), 1 without one.
 */
export class NodeError extends StateweaverError {
  static {
    brandError(NodeError);
  }

  readonly node: string;
  readonly step: number;
  readonly attempts: number;
  constructor(node: string, step: number, cause: unknown, attempts = 1) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    const tries = attempts > 1 ? ` after ${attempts} attempts` : "";
    super("NODE_FAILED", `Node "${node}" failed at step ${step}${tries}: ${reason}`, { cause });
    this.node = node;
    this.step = step;
    this.attempts = attempts;
  }
}

/**
 * One attempt of a node ran longer than its `timeout`. Its `runtime.signal` was aborted
 * with this error; a `retryPolicy` retries it like any other failure.
 *
 * @example
 * graph.addNode("fetch", fetchPrices, { timeout: 5_000, retryPolicy: { maxAttempts: 3 } });
 */
export class NodeTimeoutError extends StateweaverError {
  static {
    brandError(NodeTimeoutError);
  }

  readonly node: string;
  readonly timeoutMs: number;
  /**
   * The node returned, but after its timeout: it blocked the thread (synchronous work), so
   * it could not be stopped in time, and its result was refused.
   */
  readonly late: boolean;
  constructor(node: string, timeoutMs: number, facts: { late?: boolean } = {}) {
    super(
      "NODE_TIMEOUT",
      facts.late
        ? `Node "${node}" returned after its timeout of ${timeoutMs} ms, so its result was refused. It blocked the thread (synchronous work), which no timeout can interrupt in JavaScript: make the work asynchronous or move it to a worker thread, or raise addNode("${node}", fn, { timeout }).`
        : `Node "${node}" did not finish within its timeout of ${timeoutMs} ms, so its attempt was aborted. Make the node honour runtime.signal and finish sooner, or raise addNode("${node}", fn, { timeout }).`,
    );
    this.node = node;
    this.timeoutMs = timeoutMs;
    this.late = facts.late === true;
  }
}

/**
 * A stored checkpoint names a node this graph does not have: it was renamed or removed
 * in a new deploy, or the row is damaged. The thread is left as it was; `getState` still
 * reads it.
 */
export class CheckpointMismatchError extends StateweaverError {
  static {
    brandError(CheckpointMismatchError);
  }

  readonly threadId: string;
  readonly checkpointId: string;
  readonly node: string;
  constructor(graph: string, threadId: string, checkpointId: string, node: string) {
    super(
      "CHECKPOINT_MISMATCH",
      `Thread "${threadId}" is at checkpoint ${checkpointId}, which names node "${node}", but graph "${graph}" has no such node (renamed or removed since, or a damaged checkpoint). The thread is unchanged. Continue it as another node with updateState(config, values, "<node>"), or fork from an earlier checkpoint by passing its checkpoint_id (see getStateHistory(config)).`,
    );
    this.threadId = threadId;
    this.checkpointId = checkpointId;
    this.node = node;
  }
}

/**
 * A persisted snapshot given to `createActor(graph.machine, { snapshot })` names a node the
 * graph does not have: the actor fails at once with this as its error, and nothing runs.
 */
export class SnapshotMismatchError extends StateweaverError {
  static {
    brandError(SnapshotMismatchError);
  }

  readonly node: string;
  constructor(graph: string, node: string) {
    super(
      "CHECKPOINT_MISMATCH",
      `The snapshot given to createActor(graph.machine, { snapshot }) names node "${node}", but graph "${graph}" has no such node (renamed or removed since the snapshot was taken, or a snapshot of another graph). Nothing ran. Restore it with the graph that took it, or start a new actor with { input }.`,
    );
    this.node = node;
  }
}

/** The run was stopped through its AbortSignal. */
export class AbortError extends StateweaverError {
  static {
    brandError(AbortError);
  }

  constructor(reason?: unknown) {
    super(
      "ABORTED",
      sentences(
        `The run was aborted${reason instanceof Error ? `: ${reason.message}` : reason ? `: ${String(reason)}` : ""}`,
      ),
      { cause: reason },
    );
  }
}
