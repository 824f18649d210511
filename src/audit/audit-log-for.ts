// The audit log that goes with a checkpointer: its database, or memory for a memory store.
import type { Checkpointer } from "../checkpoint/index.js";
import { SqlCheckpointer } from "../checkpoint/sql/index.js";
import type { AuditLog } from "./audit-log.js";
import { MemoryAuditLog } from "./memory-audit-log.js";
import { SqlAuditLog } from "./sql-audit-log.js";

// One log per checkpointer, so a server, its runs and its deadlines append to the same chain.
const logs = new WeakMap<Checkpointer, AuditLog>();

/**
 * The audit log beside `checkpointer`: a `SqlAuditLog` on the same PGlite or PostgreSQL
 * connection (and table prefix) for the SQL checkpointers, else a `MemoryAuditLog`. The
 * same checkpointer gives the same log.
 *
 * @example
 * const checkpointer = new PGliteCheckpointer("./.stateweaver");
 * const report = await auditLogFor(checkpointer).verify();
 */
export function auditLogFor(checkpointer: Checkpointer): AuditLog {
  const known = logs.get(checkpointer);
  if (known) return known;
  const log =
    checkpointer instanceof SqlCheckpointer
      ? new SqlAuditLog({
          driver: () => checkpointer.sharedDriver(),
          tablePrefix: checkpointer.tablePrefix,
        })
      : new MemoryAuditLog();
  logs.set(checkpointer, log);
  return log;
}
