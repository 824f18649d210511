/**
 * The audit log: an append-only, hash-chained record of every review decision, in the
 * database the deployment already uses, that `verify()` (and `stateweaver audit verify`)
 * checks for entries changed, removed or reordered after they were written.
 *
 * @example
 * import { auditLogFor } from "stateweaver/server";
 * const report = await auditLogFor(checkpointer).verify();
 * if (!report.ok) console.error(report.broken!.message);
 */
export type { AuditLog, AuditQuery } from "./audit-log.js";
export { auditLogFor } from "./audit-log-for.js";
export { canonicalJson, entryHash, GENESIS_HASH, nextEntry } from "./chain.js";
export type {
  AuditActor,
  AuditAuthentication,
  AuditDraft,
  AuditEntry,
  AuditKind,
} from "./entry.js";
export { AUDIT_EXPORT_FORMATS, exportLines } from "./export.js";
export { auditKeys, DEADLINE_ACTOR } from "./keys.js";
export { MemoryAuditLog } from "./memory-audit-log.js";
export { MAX_AUDIT_PAGE } from "./query.js";
export { SqlAuditLog, type SqlAuditLogOptions } from "./sql-audit-log.js";
export { auditTables } from "./sql-migrations.js";
export {
  type AuditBreak,
  type AuditVerification,
  type AuditVerifyOptions,
  verifyChain,
} from "./verify.js";
