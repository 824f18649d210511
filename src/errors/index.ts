import { brandClass, hasBrand, isBrandedInstance } from "../control/brand.js";
import { clauses, sentences } from "./sentences.js";

/**
 * Every error stateweaver throws is a `StateweaverError`: it has a stable `code`
 * to switch on and a message that says what was wrong and what to do about it.
 *
 * @example
 * try { await graph.resume("yes", { config }) } catch (e) {
 *   if (e instanceof InvalidResumeError) showToUser(e.message);
 * }
 * // Across copies of stateweaver (a server and a user module), `instanceof` still holds;
 * // so does isStateweaverError(e).
 */
export class StateweaverError extends Error {
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
  }

  /** By brand, not by prototype: an error thrown by another copy of stateweaver is one too. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class on the right of instanceof (a subclass too)
    return isBrandedInstance(this, value);
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

/**
 * A node threw. `node`, `step` and `cause` say where and why; `attempts` is how many times
 * it ran, counting retries (its `retryPolicy`), 1 without one.
 */
export class NodeError extends StateweaverError {
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

/**
 * A persisted snapshot given to `createActor(graph.machine, { snapshot })` names a node the
 * graph does not have: the actor fails at once with this as its error, and nothing runs.
 */
export class SnapshotMismatchError extends StateweaverError {
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

// Stores

/** ` (namespace "ns")` for a subgraph's namespace, nothing for the top-level graph. */
function inNamespace(ns: string): string {
  return ns ? ` (namespace "${ns}")` : "";
}

/**
 * `put` was given a checkpoint id its (thread, ns) already has. Nothing was written.
 *
 * @example
 * await store.put(sameIdAgain, { expectedLatestId }); // DuplicateCheckpointError
 */
export class DuplicateCheckpointError extends StateweaverError {
  readonly threadId: string;
  readonly ns: string;
  readonly checkpointId: string;
  constructor(threadId: string, ns: string, checkpointId: string, options?: { cause?: unknown }) {
    super(
      "DUPLICATE_CHECKPOINT",
      `Thread "${threadId}"${inNamespace(ns)} already has a checkpoint with id ${checkpointId}; give every checkpoint a fresh id from checkpointId(). Nothing was written.`,
      options,
    );
    this.threadId = threadId;
    this.ns = ns;
    this.checkpointId = checkpointId;
  }
}

/** `putWrites` named a checkpoint the (thread, ns) does not have. Nothing was written. */
export class CheckpointNotFoundError extends StateweaverError {
  readonly threadId: string;
  readonly ns: string;
  readonly checkpointId: string;
  readonly taskId: string;
  constructor(
    threadId: string,
    ns: string,
    checkpointId: string,
    taskId: string,
    options?: { cause?: unknown },
  ) {
    super(
      "CHECKPOINT_NOT_FOUND",
      `Cannot store writes of task "${taskId}": thread "${threadId}"${inNamespace(ns)} has no checkpoint ${checkpointId}. Put the checkpoint first, or check that it was not deleted.`,
      options,
    );
    this.threadId = threadId;
    this.ns = ns;
    this.checkpointId = checkpointId;
    this.taskId = taskId;
  }
}

/** A store was used after its `close()`. `store` is its class name. */
export class CheckpointerClosedError extends StateweaverError {
  readonly store: string;
  constructor(store: string) {
    super(
      "CHECKPOINTER_CLOSED",
      `This ${store} was closed; create a new one to keep using the database.`,
    );
    this.store = store;
  }
}

/** The checkpoint tables were migrated by a newer stateweaver than this one. Nothing was changed. */
export class SchemaTooNewError extends StateweaverError {
  readonly tablePrefix: string;
  readonly version: number;
  readonly knownVersion: number;
  constructor(tablePrefix: string, version: number, knownVersion: number) {
    super(
      "SCHEMA_TOO_NEW",
      `The checkpoint tables "${tablePrefix}*" are at schema version ${version}, but this stateweaver only knows up to ${knownVersion}. Upgrade stateweaver in this process, or point it at another table prefix.`,
    );
    this.tablePrefix = tablePrefix;
    this.version = version;
    this.knownVersion = knownVersion;
  }
}

/**
 * A `searchThreads` option (or `graph.threads.search`'s) is out of range: `option` names
 * it, `expected` says what it may be. Nothing was read.
 *
 * @example
 * await store.searchThreads({ limit: 0 }); // InvalidSearchError: searchThreads option limit is 0; it must be …
 */
export class InvalidSearchError extends StateweaverError {
  readonly option: string;
  constructor(option: string, value: unknown, expected: string) {
    let shown: string;
    try {
      shown =
        typeof value === "string"
          ? JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value)
          : String(JSON.stringify(value) ?? value);
    } catch {
      shown = `a ${typeof value}`;
    }
    super(
      "INVALID_SEARCH",
      `searchThreads option ${option} is ${shown}; it must be ${expected}. Nothing was read.`,
    );
    this.option = option;
  }
}

/**
 * Which rule an id broke: `"type"` not a string, `"empty"`, `"surrogate"` an unpaired
 * UTF-16 surrogate, `"nul"` a NUL character, `"length"` over the byte limit.
 */
export type InvalidIdRule = "type" | "empty" | "surrogate" | "nul" | "length";

/**
 * A thread id, namespace, checkpoint id or task id given to a store breaks the id rules
 * (see docs/storage-limits.md). Every store refuses the same ids, before reading or
 * writing anything.
 *
 * @example
 * await store.getLatest("a\uD800"); // InvalidIdError: threadId "a\ud800" contains an unpaired surrogate …
 */
export class InvalidIdError extends StateweaverError {
  /** The argument or field, e.g. `threadId`, `ns`, `checkpointId`, `taskId`. */
  readonly field: string;
  readonly rule: InvalidIdRule;
  /** The most UTF-8 bytes an id may have. */
  readonly maxBytes: number;
  constructor(
    field: string,
    value: unknown,
    rule: InvalidIdRule,
    facts: { maxBytes: number; index?: number; bytes?: number },
  ) {
    const shown =
      typeof value === "string"
        ? JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)
        : String(value);
    const what = {
      type: `is ${value === null ? "null" : typeof value}, not a string`,
      empty: "is empty",
      surrogate: `contains an unpaired surrogate at index ${facts.index}, so it is not well-formed Unicode`,
      nul: `contains a NUL character at index ${facts.index}`,
      length: `is ${facts.bytes} UTF-8 bytes long`,
    }[rule];
    super(
      "INVALID_ID",
      `${field} ${rule === "type" ? "" : `${shown} `}${what}. Ids must be non-empty strings of at most ${facts.maxBytes} UTF-8 bytes, without NUL characters or unpaired surrogates${/(^|\.)ns$/.test(field) ? " (a namespace may also be the empty string, the top-level graph)" : ""}; use another id (a long key can be hashed). Nothing was read or written.`,
    );
    this.field = field;
    this.rule = rule;
    this.maxBytes = facts.maxBytes;
  }
}

/**
 * A stored checkpoint (or a task's pending writes stored with it) cannot be read back: its
 * row is not valid JSON, or not the shape the store wrote. The rest of the thread is
 * untouched; nothing was changed.
 */
export class CorruptCheckpointError extends StateweaverError {
  readonly threadId: string;
  readonly ns: string;
  readonly checkpointId: string;
  /** Set when the damaged row is a task's pending writes, not the checkpoint itself. */
  readonly taskId: string | undefined;
  /** The damaged checkpoint's parent, when the store knows it: a point to fork from. */
  readonly parentId: string | undefined;
  constructor(
    where: {
      threadId: string;
      ns: string;
      checkpointId: string;
      taskId?: string;
      parentId?: string;
    },
    problem: string,
    options?: { cause?: unknown },
  ) {
    const { threadId, ns, checkpointId, taskId, parentId } = where;
    const row = taskId
      ? `The pending writes of task "${taskId}" stored with checkpoint ${checkpointId}`
      : `Checkpoint ${checkpointId}`;
    const from = parentId ? ` (its parent is ${parentId})` : "";
    super(
      "CORRUPT_CHECKPOINT",
      sentences(
        `${row} of thread "${threadId}"${inNamespace(ns)} is damaged in the store: ${problem}`,
        `Fork the thread from an earlier checkpoint${from} by invoking with its checkpoint_id (getStateHistory() lists them), or delete the thread with the checkpointer's deleteThread(). Nothing was changed.`,
      ),
      options,
    );
    this.threadId = threadId;
    this.ns = ns;
    this.checkpointId = checkpointId;
    this.taskId = taskId;
    this.parentId = parentId;
  }
}

/**
 * A PGlite data directory is already open in another `PGliteCheckpointer`, in this process
 * or another. Two owners of one directory silently lose threads and corrupt its indexes,
 * so the second is refused.
 *
 * @example
 * new PGliteCheckpointer("./data").getLatest("t"); // DataDirectoryLockedError while another process has ./data open
 */
export class DataDirectoryLockedError extends StateweaverError {
  readonly dataDir: string;
  readonly lockFile: string;
  /** The owner's process id, when the lock file names one. */
  readonly ownerPid: number | undefined;
  constructor(dataDir: string, lockFile: string, owner: { pid?: number; here?: boolean }) {
    const who = owner.here
      ? `another PGliteCheckpointer in this process (pid ${owner.pid})`
      : owner.pid !== undefined
        ? `process ${owner.pid}`
        : "another process";
    super(
      "DATA_DIRECTORY_LOCKED",
      `The PGlite data directory "${dataDir}" is in use by ${who}: one process owns a data directory. Close the other one, run the stateweaver server and talk to it over HTTP, or use PostgresCheckpointer for several processes. If no such process is running, delete the lock file "${lockFile}".`,
    );
    this.dataDir = dataDir;
    this.lockFile = lockFile;
    this.ownerPid = owner.pid;
  }
}

// Retention and copies

/**
 * A `prune`, `pruneThreads` or `copyThread` argument is out of range: `option` names it,
 * `expected` says what it may be. Nothing was deleted or copied.
 *
 * @example
 * await store.prune("t1", { keep: 0 }); // InvalidRetentionError: prune option keep is 0; it must be …
 */
export class InvalidRetentionError extends StateweaverError {
  readonly method: "prune" | "pruneThreads" | "copyThread";
  readonly option: string;
  constructor(
    method: "prune" | "pruneThreads" | "copyThread",
    option: string,
    value: unknown,
    expected: string,
  ) {
    let shown: string;
    try {
      shown =
        value instanceof Date
          ? `the Date ${Number.isNaN(value.getTime()) ? "Invalid Date" : value.toISOString()}`
          : String(JSON.stringify(value) ?? value);
    } catch {
      shown = `a ${typeof value}`;
    }
    super(
      "INVALID_RETENTION",
      `${method} option ${option} is ${shown}; it must be ${expected}. Nothing was deleted or copied.`,
    );
    this.method = method;
    this.option = option;
  }
}

/**
 * `copyThread` was asked to copy a thread the store does not have (no top-level
 * checkpoint). Nothing was copied.
 */
export class ThreadNotFoundError extends StateweaverError {
  readonly threadId: string;
  constructor(threadId: string) {
    super(
      "THREAD_NOT_FOUND",
      `Thread "${threadId}" has no checkpoint in this store, so there is nothing to copy. Check the id (searchThreads() lists the threads there are). Nothing was copied.`,
    );
    this.threadId = threadId;
  }
}

/**
 * `copyThread` was asked to copy onto a thread id that already has checkpoints: a copy
 * never overwrites. Nothing was copied.
 */
export class ThreadExistsError extends StateweaverError {
  readonly threadId: string;
  constructor(threadId: string) {
    super(
      "THREAD_EXISTS",
      `Thread "${threadId}" already exists, and a copy never overwrites one. Copy to a fresh thread id, or delete that thread first with deleteThread("${threadId}"). Nothing was copied.`,
    );
    this.threadId = threadId;
  }
}

/**
 * `rewindThread` was given a checkpoint that is not one of the thread's top-level
 * checkpoints (a typo, another thread's, a subgraph's, or one pruned or rewound away).
 * Nothing was deleted.
 *
 * @example
 * await store.rewindThread("t1", "nope"); // RewindTargetNotFoundError: Thread "t1" has no top-level checkpoint "nope" …
 */
export class RewindTargetNotFoundError extends StateweaverError {
  readonly threadId: string;
  readonly checkpointId: string;
  constructor(threadId: string, checkpointId: string) {
    super(
      "REWIND_TARGET_NOT_FOUND",
      `Thread "${threadId}" has no top-level checkpoint "${checkpointId}" to rewind to. Pick one from its history (list("${threadId}") or getStateHistory()), or pass null to remove all of its checkpoints. Nothing was deleted.`,
    );
    this.threadId = threadId;
    this.checkpointId = checkpointId;
  }
}

/**
 * A model's structured output did not match the schema it was asked for, every time it was
 * asked (the first answer and each correction). `issues` are the last answer's problems;
 * `output` is that answer as the model wrote it.
 *
 * @example
 * try { await model.withStructuredOutput(Invoice).invoke(messages) } catch (e) {
 *   if (e instanceof StructuredOutputError) log(e.issues);
 * }
 */
export class StructuredOutputError extends StateweaverError {
  readonly attempts: number;
  readonly issues: string[];
  readonly output: string;
  constructor(schemaName: string, attempts: number, issues: string[], output: string) {
    super(
      "STRUCTURED_OUTPUT",
      `The model's answer did not match schema "${schemaName}" after ${attempts} ${attempts === 1 ? "try" : "tries"}: ${clauses(issues)} Describe the fields in the schema (.describe()), simplify it, or allow more corrections with { maxRetries }.`,
    );
    this.attempts = attempts;
    this.issues = issues;
    this.output = output;
  }
}

/**
 * A run id that no run service here knows: never created, or ended and forgotten. Nothing
 * was changed.
 *
 * @example
 * try { await graph.runs.join("nope") } catch (e) { if (e instanceof RunNotFoundError) … }
 */
export class RunNotFoundError extends StateweaverError {
  readonly runId: string;
  constructor(runId: string) {
    super(
      "RUN_NOT_FOUND",
      `Run "${runId}" is not known here. Check the id (graph.runs.list(threadId) lists a thread's runs); runs of another database are not visible.`,
    );
    this.runId = runId;
  }
}

/**
 * `graph.runs` was used on a graph no run service hosts. Background runs need a queue that
 * keeps them: bind one with `graph.withRuns(runs)`, or host the graph with `stateweaver serve`.
 */
export class RunsNotBoundError extends StateweaverError {
  constructor(graph: string) {
    super(
      "RUNS_NOT_BOUND",
      `Graph "${graph}" has no run service, so it cannot start background runs. Bind one: graph.withRuns(createRuns({ graphs: [graph] })) (see docs/scaling-out.md), or use invoke()/stream() to run in this call.`,
    );
  }
}

/**
 * A background run was asked for with something it cannot take (an unknown graph, a bad
 * strategy, input that is not JSON). Nothing was enqueued.
 */
export class InvalidRunError extends StateweaverError {
  constructor(message: string) {
    super("INVALID_RUN", message);
  }
}

/**
 * A long-term store call was given something it cannot take: an empty namespace or one with
 * a label containing `.`, a value that is not a JSON object, a bad TTL, filter or page.
 */
export class InvalidStoreRequestError extends StateweaverError {
  constructor(message: string) {
    super("INVALID_STORE_REQUEST", message);
  }
}

/**
 * An audit log call was given something it cannot take: a `since` that is not a date, a
 * bad page size or table prefix. Nothing was read or written.
 */
export class InvalidAuditRequestError extends StateweaverError {
  constructor(message: string) {
    super("INVALID_AUDIT_REQUEST", message);
  }
}

// Each error class carries its brand (`stateweaver.error.<Name>`), so `instanceof` answers for
// errors from any copy of stateweaver. A class added above must be listed here (a test checks).
const STATEWEAVER_ERROR = brandClass(StateweaverError, "error.StateweaverError");
for (const errorClass of [
  GraphValidationError,
  InvalidUpdateError,
  InvalidResumeError,
  InvalidConfigError,
  NonSerializableError,
  ValueTooDeepError,
  InterruptSwallowedError,
  InterruptReplayError,
  RecursionLimitError,
  NodeError,
  NodeTimeoutError,
  ConcurrentUpdateError,
  ThreadBusyError,
  CheckpointMismatchError,
  SnapshotMismatchError,
  AbortError,
  ModelError,
  ModelConfigError,
  AgentConfigError,
  NotAReviewError,
  DuplicateCheckpointError,
  CheckpointNotFoundError,
  CheckpointerClosedError,
  SchemaTooNewError,
  InvalidSearchError,
  InvalidIdError,
  CorruptCheckpointError,
  DataDirectoryLockedError,
  InvalidRetentionError,
  ThreadNotFoundError,
  ThreadExistsError,
  RewindTargetNotFoundError,
  StructuredOutputError,
  RunNotFoundError,
  RunsNotBoundError,
  InvalidRunError,
  InvalidStoreRequestError,
  InvalidAuditRequestError,
]) {
  brandClass(errorClass, `error.${errorClass.name}`);
}

/**
 * True for any error stateweaver throws, whichever copy of stateweaver threw it.
 *
 * @example
 * catch (e) { if (isStateweaverError(e)) console.log(e.code); else throw e; }
 */
export function isStateweaverError(value: unknown): value is StateweaverError {
  return hasBrand(value, STATEWEAVER_ERROR);
}
