// The audit log's tables in PostgreSQL / PGlite, created and upgraded by numbered migrations.
import type { Query } from "../checkpoint/sql/index.js";

/** The audit log's table names for a prefix. */
export function auditTables(prefix: string) {
  return { log: `${prefix}audit_log`, schema: `${prefix}audit_schema` };
}

type AuditTables = ReturnType<typeof auditTables>;

/**
 * Migration N brings the audit tables to version N. Append, never edit: a database at a
 * version skips everything up to it.
 */
const migrations: Array<(t: AuditTables) => string[]> = [
  (t) => [
    // Fields are stored as the text the hash was computed over, not jsonb, so an export
    // reads back exactly what was hashed. `seq` as primary key: two appenders that read the
    // same last entry cannot both write the next one (the second fails and retries).
    `create table ${t.log} (
      seq bigint primary key,
      at text not null,
      kind text not null,
      thread_id text not null,
      interrupt_id text not null,
      entry_key text unique,
      actor text not null,
      data text not null,
      prev_hash text not null,
      hash text not null
    )`,
    `create index ${t.log}_thread on ${t.log} (thread_id, seq)`,
    `create index ${t.log}_interrupt on ${t.log} (interrupt_id, seq)`,
    `create index ${t.log}_at on ${t.log} (at)`,
  ],
];

/** The newest version these migrations know. */
export const AUDIT_SCHEMA_VERSION = migrations.length;

/**
 * Brings the audit tables up to date inside the caller's transaction. An advisory lock, as
 * the checkpointer's migrations take, makes two processes opening the same database at once
 * migrate one after the other: taken before the first `create`, since two concurrent
 * `create table if not exists` can both try to create it. Returns the version the database
 * was at.
 */
export async function migrateAudit(query: Query, t: AuditTables): Promise<number> {
  await query("select pg_advisory_xact_lock(hashtext($1))", [`stateweaver:${t.schema}`]);
  await query(`create table if not exists ${t.schema} (version integer not null)`);
  const { rows } = await query(`select version from ${t.schema}`);
  const at = rows.length === 0 ? 0 : Number(rows[0]!.version);
  for (let version = at + 1; version <= migrations.length; version++) {
    for (const statement of migrations[version - 1]!(t)) await query(statement);
  }
  if (rows.length === 0) {
    await query(`insert into ${t.schema} (version) values ($1)`, [migrations.length]);
  } else if (at < migrations.length) {
    await query(`update ${t.schema} set version = $1`, [migrations.length]);
  }
  return at;
}
