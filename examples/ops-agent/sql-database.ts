// The database `execute_sql` queries: an in-memory PGlite (real PostgreSQL) filled with
// a month of demo orders. It is rebuilt at every start; only the sandbox files persist.
import { PGlite } from "@electric-sql/pglite";

const FIXTURE = `
CREATE TABLE orders (
  id int PRIMARY KEY,
  customer text NOT NULL,
  status text NOT NULL,
  amount_cents int NOT NULL,
  created_at date NOT NULL
);
INSERT INTO orders VALUES
  (1, 'Acme GmbH', 'paid', 129900, '2026-11-02'),
  (2, 'Globex', 'paid', 45000, '2026-11-05'),
  (3, 'Initech', 'refunded', 9900, '2026-11-09'),
  (4, 'Umbrella', 'paid', 250000, '2026-11-17'),
  (5, 'Hooli', 'pending', 30000, '2026-11-28'),
  (6, 'Acme GmbH', 'paid', 74900, '2026-10-30'),
  (7, 'Globex', 'paid', 18000, '2026-12-01');
`;

/** At most this many rows go back to the model. */
const MAX_ROWS = 50;

/**
 * One statement at a time against the demo orders database, opened on first use (PGlite
 * takes a few seconds to start).
 */
export class SqlDatabase {
  #db: Promise<PGlite> | undefined;

  async query(sql: string): Promise<{ rowCount: number; rows: Record<string, unknown>[] }> {
    this.#db ??= (async () => {
      const db = await PGlite.create();
      await db.exec(FIXTURE);
      return db;
    })();
    // query() refuses several statements in one string, so a query cannot smuggle in a second one.
    const result = await (await this.#db).query<Record<string, unknown>>(sql);
    const rows = result.rows.slice(0, MAX_ROWS).map(toJson);
    return { rowCount: result.rows.length || (result.affectedRows ?? 0), rows };
  }

  async close(): Promise<void> {
    const db = await this.#db;
    this.#db = undefined;
    await db?.close();
  }
}

// PostgreSQL hands back bigints, dates and bytes that JSON cannot hold as they are.
function toJson(row: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(row).map(([key, value]) => [
      key,
      typeof value === "bigint"
        ? value.toString()
        : value instanceof Date
          ? value.toISOString().slice(0, 10)
          : value instanceof Uint8Array
            ? `<${value.length} bytes>`
            : value,
    ]),
  );
}
