// Which inbox sessions were signed out or revoked: kept where every server of the deployment reads it.
import { besideCheckpointer } from "../../checkpoint/sql/index.js";
import { SqlSessionRevocations } from "./sql-session-revocations.js";

/**
 * What a revocation names: one session (`{ session }`, its id: a sign-out), every session
 * of a user (`{ identity }`), or every session there is (`{ everyone: true }`).
 *
 * @example
 * const subject: RevocationSubject = { identity: "ana" };
 */
export type RevocationSubject = { session: string } | { identity: string } | { everyone: true };

/** The key a subject is stored under. */
export const subjectKey = (subject: RevocationSubject): string =>
  "session" in subject
    ? `session:${subject.session}`
    : "identity" in subject
      ? `user:${subject.identity}`
      : "everyone";

/**
 * The revocations of a deployment: a session issued at or before the latest revocation
 * of its id, its user or everyone is refused. Only times are kept, so a revocation costs one
 * row per subject whatever the number of sessions it ends.
 *
 * Duties of every implementation: a revocation is seen by every server sharing the store
 * once `revoke` returns; a later revocation of the same subject never moves its time back;
 * rows older than a session's lifetime may be forgotten (every session they refuse has
 * expired by then).
 *
 * @example
 * await revocations.revoke({ identity: "ana" }, Date.now());
 * const at = await revocations.latest([{ session: sid }, { identity: "ana" }, { everyone: true }]);
 */
export interface SessionRevocations {
  /** Revoke every session of `subject` issued at or before `at` (ms since the epoch). */
  revoke(subject: RevocationSubject, at: number): Promise<void>;
  /** The latest revocation time of any of `subjects`, if one was revoked. */
  latest(subjects: RevocationSubject[]): Promise<number | undefined>;
}

/** Revocations in this process's memory: for a `MemoryCheckpointer`, whose threads are too. */
export class MemorySessionRevocations implements SessionRevocations {
  readonly #at = new Map<string, number>();

  async revoke(subject: RevocationSubject, at: number): Promise<void> {
    const key = subjectKey(subject);
    this.#at.set(key, Math.max(at, this.#at.get(key) ?? at));
  }

  async latest(subjects: RevocationSubject[]): Promise<number | undefined> {
    const times = subjects.map((s) => this.#at.get(subjectKey(s))).filter((t) => t !== undefined);
    return times.length === 0 ? undefined : Math.max(...times);
  }
}

// One store per checkpointer, so every server app on it sees the same revocations.
/**
 * The revocations beside a checkpointer: a table in its PGlite or PostgreSQL database
 * (`<prefix>session_revocations`), so servers sharing it refuse the same sessions; memory
 * for a `MemoryCheckpointer`.
 *
 * @example
 * await sessionRevocationsFor(checkpointer).revoke({ everyone: true }, Date.now());
 */
export const sessionRevocationsFor = besideCheckpointer<SessionRevocations>(
  (driver, prefix) => new SqlSessionRevocations(driver, prefix),
  () => new MemorySessionRevocations(),
);
