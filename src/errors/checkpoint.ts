// A checkpointer's errors: refused writes and ids, damaged rows, closed or locked stores, concurrent updates.
import { brandError } from "./brand-error.js";

import { sentences } from "./sentences.js";
import { StateweaverError } from "./stateweaver-error.js";

/** ` (namespace "ns")` for a subgraph's namespace, nothing for the top-level graph. */
function inNamespace(ns: string): string {
  return ns ? ` (namespace "${ns}")` : "";
}

/** Someone else wrote to the thread since this run read it (optimistic concurrency). */
export class ConcurrentUpdateError extends StateweaverError {
  static {
    brandError(ConcurrentUpdateError);
  }

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
    options?: { cause?: unknown },
  ) {
    super("CONCURRENT_UPDATE", message, options);
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
  static {
    brandError(ThreadBusyError);
  }

  /** `cause`: the database's error, when it ended this call to let another on the thread go on. */
  constructor(threadId: string, latest: string | null, options?: { cause?: unknown }) {
    super(
      threadId,
      "",
      latest,
      latest,
      `Thread "${threadId}" is busy: another run holds it, so this call ran nothing. Wait for that run to end (or, if its process died, for its claim to expire), reload the thread with getState() and try again.`,
      options,
    );
  }
}

/**
 * `put` was given a checkpoint id its (thread, ns) already has. Nothing was written.
 *
 * @example
 * await store.put(sameIdAgain, { expectedLatestId }); // DuplicateCheckpointError
 */
export class DuplicateCheckpointError extends StateweaverError {
  static {
    brandError(DuplicateCheckpointError);
  }

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
  static {
    brandError(CheckpointNotFoundError);
  }

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
  static {
    brandError(CheckpointerClosedError);
  }

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
  static {
    brandError(SchemaTooNewError);
  }

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
  static {
    brandError(InvalidSearchError);
  }

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
  static {
    brandError(InvalidIdError);
  }

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
  static {
    brandError(CorruptCheckpointError);
  }

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
  static {
    brandError(DataDirectoryLockedError);
  }

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
