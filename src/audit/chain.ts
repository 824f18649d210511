// The hash chain: how an entry's hash is computed from its fields and the previous hash.
import { createHash } from "node:crypto";
import type { AuditDraft, AuditEntry } from "./entry.js";

/** The `prevHash` of the first entry: 64 zeros. */
export const GENESIS_HASH = "0".repeat(64);

/**
 * JSON with object keys sorted and `undefined` fields left out, so the same entry hashes
 * the same whichever database stored it or in what key order it came back.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/**
 * The SHA-256 (hex) of an entry: of the canonical JSON of every field but `hash`, the
 * previous entry's hash included. Anyone can recompute it from an export.
 *
 * @example
 * entryHash(entry) === entry.hash; // true unless the entry was changed
 */
export function entryHash(entry: Omit<AuditEntry, "hash">): string {
  const { seq, at, kind, threadId, interruptId, actor, key, data, prevHash } = entry;
  const fields = { seq, at, kind, threadId, interruptId, actor, key, data, prevHash };
  return createHash("sha256").update(canonicalJson(fields)).digest("hex");
}

/** The entry that follows `previous` (undefined: the first), sealed with its hash. */
export function nextEntry(
  draft: AuditDraft,
  previous: Pick<AuditEntry, "seq" | "hash"> | undefined,
  at: Date = new Date(),
): AuditEntry {
  const unsealed = {
    seq: (previous?.seq ?? 0) + 1,
    at: at.toISOString(),
    kind: draft.kind,
    threadId: draft.threadId,
    interruptId: draft.interruptId,
    actor: { ...draft.actor },
    key: draft.key ?? null,
    data: draft.data,
    prevHash: previous?.hash ?? GENESIS_HASH,
  };
  return { ...unsealed, hash: entryHash(unsealed) };
}
