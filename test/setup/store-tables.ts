import { auditTables } from "../../src/audit/index.js";
import { tables } from "../../src/checkpoint/sql/statements.js";
import { runTables } from "../../src/runs/queues/postgres-schema.js";

/**
 * Drops every table (and the trigger function) of the SQL store with `prefix` (at the current schema) from a shared
 * PostgreSQL: what a test or bench that made its own prefix leaves behind.
 */
export async function dropStoreTables(
  pool: { query(text: string): Promise<unknown> },
  prefix: string,
): Promise<void> {
  const { prefix: _prefix, ...names } = tables(prefix);
  for (const table of Object.values(names))
    await pool.query(`drop table if exists ${table} cascade`);
  // The audit log's tables (src/audit) live beside them, under the same prefix.
  for (const table of Object.values(auditTables(prefix)))
    await pool.query(`drop table if exists ${table}`);
  // The server's revoked inbox sessions (src/server/auth), its crons, and the long-term
  // stores (src/store) of items and of assistants, too: each made on first use.
  for (const table of ["session_revocations", "crons", "store_items", "assistants_store_items"])
    await pool.query(`drop table if exists ${prefix}${table}`);
  // The schema's trigger function (migration 5) outlives its tables.
  await pool.query(`drop function if exists ${prefix}notify_thread_change()`);
}

/**
 * Drops what a `PostgresRunQueue` with `prefix` made: its run tables and graphile-worker's
 * schema (`<prefix>queue`).
 */
export async function dropRunQueueTables(
  pool: { query(text: string): Promise<unknown> },
  prefix: string,
): Promise<void> {
  const t = runTables(prefix);
  await pool.query(`drop table if exists ${t.runs}, ${t.workers}, ${t.deliveries}`);
  await pool.query(`drop schema if exists ${prefix}queue cascade`);
}

/**
 * Drops a test's whole deployment with `prefix` from the PostgreSQL at `connectionString`:
 * the store's tables (`dropStoreTables`) and the run queue's (`dropRunQueueTables`).
 */
export async function dropDeploymentTables(
  connectionString: string,
  prefix: string,
): Promise<void> {
  const { default: pg } = await import("pg");
  const pool = new pg.Pool({ connectionString });
  try {
    await dropStoreTables(pool, prefix);
    await dropRunQueueTables(pool, prefix);
  } finally {
    await pool.end();
  }
}
