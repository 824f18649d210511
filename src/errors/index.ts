/**
 * Every error stateweaver throws is a `StateweaverError`: it has a stable `code`
 * to switch on and a message that says what was wrong and what to do about it.
 *
 * @example
 * try { await graph.resume("yes", { config }) } catch (e) {
 *   if (e instanceof InvalidResumeError) showToUser(e.message);
 * }
 */
export class StateweaverError extends Error {
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
  }
}

/** The graph definition is inconsistent; thrown by `compile()` before anything runs. */
export class GraphValidationError extends StateweaverError {
  constructor(message: string) {
    super("GRAPH_VALIDATION", message);
  }
}

/** Input or a node's update does not fit the graph's state (schema, or two writers to one key). */
export class InvalidUpdateError extends StateweaverError {
  constructor(message: string) {
    super("INVALID_UPDATE", message);
  }
}

/** A resume value does not fit what the thread is waiting for. The thread is left untouched. */
export class InvalidResumeError extends StateweaverError {
  constructor(message: string) {
    super("INVALID_RESUME", message);
  }
}

/** The call's configuration is missing something it needs (thread id, checkpointer…). */
export class InvalidConfigError extends StateweaverError {
  constructor(message: string) {
    super("INVALID_CONFIG", message);
  }
}

/** A value that would be stored is not plain JSON. `path` names where, e.g. `state.cb`. */
export class NonSerializableError extends StateweaverError {
  readonly path: string;
  constructor(path: string, what: string) {
    super(
      "NON_SERIALIZABLE",
      `${path} is ${what}; only JSON (objects, arrays, strings, finite numbers, booleans, null) can be checkpointed. Convert it to plain data before returning it from a node.`,
    );
    this.path = path;
  }
}

/** Node code caught the interrupt control signal instead of letting it propagate. */
export class InterruptSwallowedError extends StateweaverError {
  constructor(node: string) {
    super(
      "INTERRUPT_SWALLOWED",
      `Node "${node}" called interrupt() but returned normally: a try/catch in the node caught the interrupt signal. Call interrupt() outside try blocks, or rethrow errors for which isGraphInterrupt(error) is true.`,
    );
  }
}

/** On resume, a node reached its interrupts in a different order or with different payloads. */
export class InterruptReplayError extends StateweaverError {
  constructor(message: string) {
    super("INTERRUPT_REPLAY", message);
  }
}

/** The run took more super-steps than `recursionLimit` allows. */
export class RecursionLimitError extends StateweaverError {
  readonly limit: number;
  constructor(limit: number) {
    super(
      "RECURSION_LIMIT",
      `The run reached the recursion limit of ${limit} steps without finishing. Check for a cycle that never reaches END, or raise it with invoke(input, { recursionLimit }).`,
    );
    this.limit = limit;
  }
}

/** A node threw. `node`, `step` and `cause` say where and why. */
export class NodeError extends StateweaverError {
  readonly node: string;
  readonly step: number;
  constructor(node: string, step: number, cause: unknown) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super("NODE_FAILED", `Node "${node}" failed at step ${step}: ${reason}`, { cause });
    this.node = node;
    this.step = step;
  }
}

/** Someone else wrote to the thread since this run read it (optimistic concurrency). */
export class ConcurrentUpdateError extends StateweaverError {
  readonly threadId: string;
  readonly ns: string;
  /** The latest checkpoint this run read (`null`: none, a new thread). */
  readonly expectedLatestId: string | null;
  /** The latest checkpoint the store has (`null`: none). */
  readonly actualLatestId: string | null;
  constructor(
    threadId: string,
    ns: string,
    expected: string | null,
    actual: string | null,
    message = `Thread "${threadId}"${ns ? ` (namespace "${ns}")` : ""} changed while this run was working: expected latest checkpoint ${expected ?? "<none>"} but found ${actual ?? "<none>"}. Reload the thread state with getState() and try again.`,
  ) {
    super("CONCURRENT_UPDATE", message);
    this.threadId = threadId;
    this.ns = ns;
    this.expectedLatestId = expected;
    this.actualLatestId = actual;
  }
}

/**
 * Another run holds the thread (a concurrent `invoke`, `resume` or `updateState`). Nothing
 * of this call ran. A `ConcurrentUpdateError`, so one `catch` handles both.
 */
export class ThreadBusyError extends ConcurrentUpdateError {
  constructor(threadId: string, latest: string | null) {
    super(
      threadId,
      "",
      latest,
      latest,
      `Thread "${threadId}" is busy: another run holds it, so this call ran nothing. Wait for that run to end (or, if its process died, for its claim to expire), reload the thread with getState() and try again.`,
    );
  }
}

/**
 * A stored checkpoint names a node this graph does not have: it was renamed or removed
 * in a new deploy, or the row is damaged. The thread is left as it was; `getState` still
 * reads it.
 */
export class CheckpointMismatchError extends StateweaverError {
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

/** The run was stopped through its AbortSignal. */
export class AbortError extends StateweaverError {
  constructor(reason?: unknown) {
    super(
      "ABORTED",
      `The run was aborted${reason instanceof Error ? `: ${reason.message}` : reason ? `: ${String(reason)}` : ""}.`,
      { cause: reason },
    );
  }
}

/**
 * A chat model call failed: the provider answered with an error (401, 429, 5xx…), could
 * not be reached, or sent something unusable such as tool-call arguments that are not
 * JSON. `status` is the HTTP status when there was one; `providerMessage` is the
 * provider's own explanation.
 *
 * @example
 * try { await model.invoke(messages) } catch (e) {
 *   if (e instanceof ModelError && e.status === 429) await backOff();
 * }
 */
export class ModelError extends StateweaverError {
  readonly provider: string;
  readonly model: string;
  readonly status: number | undefined;
  readonly providerMessage: string | undefined;
  constructor(
    provider: string,
    model: string,
    message: string,
    options: { status?: number; providerMessage?: string; cause?: unknown } = {},
  ) {
    super("MODEL_ERROR", message, { cause: options.cause });
    this.provider = provider;
    this.model = model;
    this.status = options.status;
    this.providerMessage = options.providerMessage;
  }
}

/**
 * The model layer was set up wrongly: an unknown provider prefix, a missing API key, or a
 * tool that providers would reject. Thrown when the model or tool is created, not later.
 *
 * @example
 * initChatModel("gpt-5.4"); // ModelConfigError: … write it as "<provider>:<model>" …
 */
export class ModelConfigError extends StateweaverError {
  constructor(message: string) {
    super("MODEL_CONFIG", message);
  }
}

/**
 * An agent was set up wrongly: a review policy without `allowedDecisions`, an unknown
 * decision type, two tools or middleware with one name, an `interruptOn` entry for a tool
 * the agent does not have. Thrown by `createAgent`/`defineAgent`/`humanInTheLoop`, before
 * anything runs.
 *
 * @example
 * humanInTheLoop({ interruptOn: { send_email: { description: "Check it" } } });
 * // AgentConfigError: … give it allowedDecisions, e.g. ["approve", "reject"] …
 */
export class AgentConfigError extends StateweaverError {
  constructor(message: string) {
    super("AGENT_CONFIG", message);
  }
}

/**
 * `HITL.fromInterrupt` was given an interrupt that is not a tool review (a static
 * breakpoint, or a node's own `interrupt(value)`). Check with `HITL.isReview` first.
 *
 * @example
 * if (HITL.isReview(r.interrupt)) render(HITL.fromInterrupt(r.interrupt));
 */
export class NotAReviewError extends StateweaverError {
  constructor(message: string) {
    super("NOT_A_REVIEW", message);
  }
}
