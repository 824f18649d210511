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

/**
 * A value entering a run (input, a node's write, an interrupt payload, a resume value, a
 * `Send` argument, an `updateState` value) is not JSON, with or without a checkpointer.
 * `path` names where, e.g. `state.cb`; `cause` is what was thrown when reading it threw.
 */
export class NonSerializableError extends StateweaverError {
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
  constructor(threadId: string, ns: string, expected: string | null, actual: string | null) {
    super(
      "CONCURRENT_UPDATE",
      `Thread "${threadId}"${ns ? ` (namespace "${ns}")` : ""} changed while this run was working: expected latest checkpoint ${expected ?? "<none>"} but found ${actual ?? "<none>"}. Reload the thread state with getState() and try again.`,
    );
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
