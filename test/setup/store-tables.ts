import { tables } from "../../src/checkpoint/sql/statements.js";

/**
 * Drops every table of the SQL store with `prefix` (at the current schema) from a shared
 * PostgreSQL: what a test or bench that made its own prefix leaves behind.
 */
export async function dropStoreTables(
  pool: { query(text: string): Promise<unknown> },
  prefix: string,
): Promise<void> {
  const { prefix: _prefix, ...names } = tables(prefix);
  for (const table of Object.values(names))
    await pool.query(`drop table if exists ${table} cascade`);
}
