// An audit log in this process's memory: for tests and the in-memory checkpointer.
import { assertJson } from "../checkpoint/index.js";
import type { AuditLog, AuditQuery } from "./audit-log.js";
import { nextEntry } from "./chain.js";
import type { AuditDraft, AuditEntry } from "./entry.js";
import { checkQuery, matches, pageSize } from "./query.js";
import { type AuditVerification, type AuditVerifyOptions, verifyChain } from "./verify.js";

/**
 * An `AuditLog` kept in memory: gone when the process ends, so it proves nothing to anyone
 * later; use the SQL log (`auditLogFor` a PGlite or PostgreSQL checkpointer) for a record.
 * Entries are copies, in and out.
 *
 * @example
 * const log = new MemoryAuditLog();
 * await log.append({ kind: "decision", threadId: "t1", interruptId: "a1", actor, data: {} });
 */
export class MemoryAuditLog implements AuditLog {
  readonly #entries: AuditEntry[] = [];
  readonly #byKey = new Map<string, AuditEntry>();

  async append(draft: AuditDraft): Promise<AuditEntry> {
    assertJson(draft.data, "audit entry data");
    const known = draft.key === undefined ? undefined : this.#byKey.get(draft.key);
    if (known) return structuredClone(known);
    const data = JSON.parse(JSON.stringify(draft.data)) as Record<string, unknown>;
    const entry = nextEntry({ ...draft, data }, this.#entries.at(-1));
    this.#entries.push(entry);
    if (entry.key !== null) this.#byKey.set(entry.key, entry);
    return structuredClone(entry);
  }

  async find(key: string): Promise<AuditEntry | undefined> {
    const entry = this.#byKey.get(key);
    return entry && structuredClone(entry);
  }

  async list(query: AuditQuery = {}): Promise<AuditEntry[]> {
    checkQuery(query);
    const limit = pageSize(query);
    const out: AuditEntry[] = [];
    for (const entry of this.#entries) {
      if (out.length >= limit) break;
      if (matches(entry, query)) out.push(structuredClone(entry));
    }
    return out;
  }

  async *entries(query: Omit<AuditQuery, "limit" | "afterSeq"> = {}): AsyncIterable<AuditEntry> {
    checkQuery(query);
    for (const entry of this.#entries) if (matches(entry, query)) yield structuredClone(entry);
  }

  verify(options?: AuditVerifyOptions): Promise<AuditVerification> {
    return verifyChain(this.entries(), options);
  }
}
