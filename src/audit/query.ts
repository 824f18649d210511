// Checking and applying an AuditQuery, the same for every log.
import { InvalidAuditRequestError } from "../errors/index.js";
import type { AuditQuery } from "./audit-log.js";
import type { AuditEntry } from "./entry.js";

/** The largest page `list` returns. */
export const MAX_AUDIT_PAGE = 1000;

/** Refuses a query the log cannot answer (`InvalidAuditRequestError`, saying which field). */
export function checkQuery(query: AuditQuery): void {
  if (query.since !== undefined && Number.isNaN(Date.parse(query.since))) {
    throw new InvalidAuditRequestError(
      `since must be a date and time in ISO 8601 (e.g. 2026-01-01T00:00:00Z); got ${JSON.stringify(query.since)}.`,
    );
  }
  if (query.limit !== undefined && !(Number.isInteger(query.limit) && query.limit > 0)) {
    throw new InvalidAuditRequestError(
      `limit must be a whole number ≥ 1; got ${JSON.stringify(query.limit)}.`,
    );
  }
  if (query.afterSeq !== undefined && !(Number.isInteger(query.afterSeq) && query.afterSeq >= 0)) {
    throw new InvalidAuditRequestError(
      `afterSeq must be a sequence number (a whole number ≥ 0); got ${JSON.stringify(query.afterSeq)}.`,
    );
  }
}

/** How many entries a `list` returns at most. */
export const pageSize = (query: AuditQuery) =>
  Math.min(query.limit ?? MAX_AUDIT_PAGE, MAX_AUDIT_PAGE);

/** The `since` bound as the ISO string entries are stored with (so text order is time order). */
export const sinceOf = (query: AuditQuery) =>
  query.since === undefined ? undefined : new Date(query.since).toISOString();

/** Whether an entry is one the query asks for (its limit aside). */
export function matches(entry: AuditEntry, query: AuditQuery): boolean {
  const since = sinceOf(query);
  return (
    (query.threadId === undefined || entry.threadId === query.threadId) &&
    (query.interruptId === undefined || entry.interruptId === query.interruptId) &&
    (query.kind === undefined || entry.kind === query.kind) &&
    (since === undefined || entry.at >= since) &&
    (query.afterSeq === undefined || entry.seq > query.afterSeq)
  );
}
