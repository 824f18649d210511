// The errors of a checkpointer's retention and copies: prune, copyThread, rewindThread.
import { brandError } from "./brand-error.js";
import { StateweaverError } from "./stateweaver-error.js";

/**
 * A `prune`, `pruneThreads` or `copyThread` argument is out of range: `option` names it,
 * `expected` says what it may be. Nothing was deleted or copied.
 *
 * @example
 * await store.prune("t1", { keep: 0 }); // InvalidRetentionError: prune option keep is 0; it must be …
 */
export class InvalidRetentionError extends StateweaverError {
  static {
    brandError(InvalidRetentionError);
  }

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
  static {
    brandError(ThreadNotFoundError);
  }

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
  static {
    brandError(ThreadExistsError);
  }

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
  static {
    brandError(RewindTargetNotFoundError);
  }

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
