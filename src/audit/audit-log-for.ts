// The audit log that goes with a checkpointer: its database, or memory for a memory store.
import { besideCheckpointer } from "../checkpoint/sql/index.js";
import type { AuditLog } from "./audit-log.js";
import { MemoryAuditLog } from "./memory-audit-log.js";
import { SqlAuditLog } from "./sql-audit-log.js";

/**
 * The audit log beside a checkpointer: a `SqlAuditLog` on the same PGlite or PostgreSQL
 * connection (and table prefix) for the SQL checkpointers, else a `MemoryAuditLog`. The
 * same checkpointer gives the same log, so a server, its runs and its deadlines append to
 * the same chain.
 *
 * @example
 * const checkpointer = new PGliteCheckpointer("./.stateweaver");
 * const report = await auditLogFor(checkpointer).verify();
 */
export const auditLogFor = besideCheckpointer<AuditLog>(
  (driver, tablePrefix) => new SqlAuditLog({ driver, tablePrefix }),
  () => new MemoryAuditLog(),
);
