// The database `execute_sql` queries: a PGlite (real PostgreSQL) in `<dataDir>/orders`
// holding a month of demo orders, made on first use; it persists, as the sandbox does.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { PGlite } from "@electric-sql/pglite";

/** At most this many rows go back to the model. */
const MAX_ROWS = 50;

/** As the server's store: a small buffer pool keeps the second PGlite at ~30 MB of RSS. */
const START_SETTINGS = ["-c", "shared_buffers=1MB"];

/**
 * One statement at a time against the demo orders database in `dir`, opened on first use.
 * A new database is made by a child process (orders-fixture.ts), so that the server that
 * hosts the demo never holds PGlite's initdb in its memory (docs/benchmarks.md, "The
 * server's weight").
 *
 * @example
 * const orders = new SqlDatabase("./.stateweaver/orders");
 * await orders.query("SELECT count(*) FROM orders"); // { rowCount: 1, rows: [{ count: "7" }] }
 */
export class SqlDatabase {
  readonly #dir: string;
  #db: Promise<PGlite> | undefined;

  constructor(dir: string) {
    this.#dir = dir;
  }

  async query(sql: string): Promise<{ rowCount: number; rows: Record<string, unknown>[] }> {
    this.#db ??= this.#open();
    // query() refuses several statements in one string, so a query cannot smuggle in a second one.
    const result = await (await this.#db).query<Record<string, unknown>>(sql);
    const rows = result.rows.slice(0, MAX_ROWS).map(toJson);
    return { rowCount: result.rows.length || (result.affectedRows ?? 0), rows };
  }

  async close(): Promise<void> {
    const db = await this.#db?.catch(() => undefined);
    this.#db = undefined;
    await db?.close();
  }

  async #open(): Promise<PGlite> {
    if (!existsSync(this.#dir)) {
      await mkdir(dirname(this.#dir), { recursive: true });
      await createInChildProcess(this.#dir);
    }
    return new PGlite(this.#dir, {
      startParams: [...PGlite.defaultStartParams, ...START_SETTINGS],
    });
  }
}

const execFileAsync = promisify(execFile);

/** Runs orders-fixture beside this file: `.js` when built, `.ts` (through tsx) from the sources. */
async function createInChildProcess(dir: string): Promise<void> {
  const self = fileURLToPath(import.meta.url);
  const script = self.replace(/sql-database\.(ts|js)$/, "orders-fixture.$1");
  const loader = script.endsWith(".ts") ? ["--import", "tsx"] : [];
  await execFileAsync(process.execPath, [...loader, script, dir]);
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
