// The audit log's contract: append-only, hash-chained, one chain per deployment.
import type { AuditDraft, AuditEntry, AuditKind } from "./entry.js";
import type { AuditVerification, AuditVerifyOptions } from "./verify.js";

/**
 * Which entries to read, in `seq` order. Every field narrows; none reads the whole log.
 *
 * @example
 * const query: AuditQuery = { threadId: "t1", kind: "decision" };
 */
export interface AuditQuery {
  threadId?: string;
  interruptId?: string;
  kind?: AuditKind;
  /** Entries appended at or after this time (ISO 8601). */
  since?: string;
  /** Entries after this sequence number (a page's last `seq`). */
  afterSeq?: number;
  /** At most this many (default and maximum 1000). */
  limit?: number;
}

/**
 * An append-only record of who decided what, in the database the deployment already uses.
 * Each entry carries the hash of the one before it (see `entryHash`), so `verify()` finds
 * an entry changed, removed or put out of order after it was written.
 *
 * Duties of every implementation: appends are serialized across every process writing to
 * the same log (one chain, never a fork: numbers without gaps, each `prevHash` the hash of
 * the entry before); an append with a `key` already in the log appends nothing and returns
 * the entry that has it; the log never offers a way to change or remove an entry.
 *
 * @example
 * const log = auditLogFor(checkpointer);
 * await log.append({ kind: "decision", threadId: "t1", interruptId: "a1", actor, data: { answer } });
 * const report = await log.verify(); // { ok: true, entries: 1, head: { seq: 1, hash: "…" } }
 */
export interface AuditLog {
  /** Append an entry (or, for a `key` already used, return the entry that has it). */
  append(draft: AuditDraft): Promise<AuditEntry>;
  /** The entry appended with `key`, if any. */
  find(key: string): Promise<AuditEntry | undefined>;
  /** The entries that match, oldest first. */
  list(query?: AuditQuery): Promise<AuditEntry[]>;
  /** Every entry that matches, oldest first, read page by page. */
  entries(query?: Omit<AuditQuery, "limit" | "afterSeq">): AsyncIterable<AuditEntry>;
  /**
   * Walk the chain from the first entry and report the first broken link, if any; with
   * `expectHead`, also that the head recorded earlier is still in it (not cut off).
   */
  verify(options?: AuditVerifyOptions): Promise<AuditVerification>;
}
