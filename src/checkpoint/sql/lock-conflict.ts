// A lock conflict that PostgreSQL settled by ending a call's transaction, told as a busy thread.
import { ThreadBusyError } from "../../errors/index.js";
import { DEADLOCK_DETECTED, SERIALIZATION_FAILURE, sqlState } from "./sql-state.js";

/**
 * True when PostgreSQL ended the statement's transaction to settle a conflict with another
 * on the same rows (`deadlock detected`, or a serialization failure under an isolation
 * stricter than the default READ COMMITTED): it rolled back, and trying again is the fix.
 */
export function isLockConflict(error: unknown): boolean {
  const state = sqlState(error);
  return state === DEADLOCK_DETECTED || state === SERIALIZATION_FAILURE;
}

/**
 * A `catch` handler for a call on one thread: a lock conflict is rethrown as the thread's
 * `ThreadBusyError` (the driver's error as its cause), anything else as it is.
 *
 * @example
 * return this.#put(checkpoint, options).catch(busyOnLockConflict(checkpoint.threadId));
 */
export function busyOnLockConflict(threadId: string): (error: unknown) => never {
  return (error) => {
    if (isLockConflict(error)) throw new ThreadBusyError(threadId, null, { cause: error });
    throw error;
  };
}
