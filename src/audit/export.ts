// Exporting the log as JSON Lines: one entry per line, as stored, for other tools to check.
import type { AuditLog, AuditQuery } from "./audit-log.js";

/** The export formats there are. */
export const AUDIT_EXPORT_FORMATS = ["jsonl"] as const;

/**
 * The entries that match, oldest first, each as one line of JSON (every field, hashes
 * included, so the chain can be checked again from the file alone).
 *
 * @example
 * for await (const line of exportLines(log, { since: "2026-01-01T00:00:00Z" })) out.write(line);
 */
export async function* exportLines(
  log: AuditLog,
  query: Omit<AuditQuery, "limit" | "afterSeq"> = {},
): AsyncIterable<string> {
  for await (const entry of log.entries(query)) yield `${JSON.stringify(entry)}\n`;
}
