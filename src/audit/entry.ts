// What one audit entry is: who did what to which review, when, and its link in the hash chain.

/**
 * How the actor of an entry was known: `auth_handler` (the deployment's auth file verified
 * them), `shared_token` (a holder of the shared token, with a name they typed: unverified),
 * or `system` (the deployment itself: a review deadline, a hand-off, a tool's result).
 */
export type AuditAuthentication = "auth_handler" | "shared_token" | "system";

/**
 * Who an entry is about.
 *
 * @example
 * const actor: AuditActor = { identity: "ana", displayName: "Ana", authenticatedBy: "auth_handler" };
 */
export interface AuditActor {
  identity: string;
  displayName: string;
  authenticatedBy: AuditAuthentication;
}

/**
 * What an entry records:
 * - `decision`: a review was decided and is resumed (data: the decision, the proposal, the diff);
 * - `approval`: one person's approval of a review that needs several;
 * - `hand_off`, `overdue`: what a passed deadline did when it did not reject;
 * - `tool_result`: what the calls a decision allowed returned (linked to the decision);
 * - `not_applied`: a recorded decision that could not be applied (linked to it, with the reason).
 */
export type AuditKind =
  | "decision"
  | "approval"
  | "hand_off"
  | "overdue"
  | "tool_result"
  | "not_applied";

/**
 * An entry as its writer gives it: the log adds the sequence number, the time and the hashes.
 * `key` makes the append idempotent: an entry with a key already in the log is not appended
 * again (the one there is returned), so a retried request or job records once.
 *
 * @example
 * const draft: AuditDraft = { kind: "decision", threadId: "t1", interruptId: "a1",
 *   actor: { identity: "ana", displayName: "Ana", authenticatedBy: "auth_handler" },
 *   key: "decision:t1:k1", data: { answer: { decisions: [{ type: "approve" }] } } };
 */
export interface AuditDraft {
  kind: AuditKind;
  threadId: string;
  interruptId: string;
  actor: AuditActor;
  key?: string;
  /** The entry's facts (JSON): what was proposed, decided, returned… by kind. */
  data: Record<string, unknown>;
}

/**
 * An entry in the log. `seq` counts from 1 per deployment without gaps; `prevHash` is the
 * previous entry's `hash` (`GENESIS_HASH` for the first); `hash` is the SHA-256 of this
 * entry's other fields (see `entryHash`), so changing, removing or reordering an entry
 * breaks the chain at that point.
 *
 * @example
 * const entry: AuditEntry = { seq: 1, at: "2026-01-01T00:00:00.000Z", kind: "decision",
 *   threadId: "t1", interruptId: "a1", key: "decision:t1:k1",
 *   actor: { identity: "ana", displayName: "Ana", authenticatedBy: "auth_handler" },
 *   data: {}, prevHash: GENESIS_HASH, hash: "9f2c…" };
 */
export interface AuditEntry {
  seq: number;
  /** When it was appended (ISO 8601, the appending process's clock). */
  at: string;
  kind: AuditKind;
  threadId: string;
  interruptId: string;
  actor: AuditActor;
  key: string | null;
  data: Record<string, unknown>;
  prevHash: string;
  hash: string;
}
