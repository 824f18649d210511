import { mkdir } from "node:fs/promises";
import type { PGliteInterface, Results } from "@electric-sql/pglite";
import { DEFAULT_TABLE_PREFIX, type Query, SqlCheckpointer, type SqlDriver } from "./sql.js";

export interface PGliteCheckpointerOptions {
  /**
   * Where PGlite keeps its files: `"memory://"` (the default) for an in-memory database,
   * or a directory path, created if missing.
   */
  dataDir?: string;
  /** An already open PGlite instance to use instead; `close()` leaves it open. */
  db?: PGliteInterface;
  /** Prefix of the table names; `"stateweaver_"` by default. */
  tablePrefix?: string;
}

/**
 * Checkpoints in PGlite, an embedded PostgreSQL: durable with a data directory, no
 * server to run. Starts lazily (PGlite is loaded and the tables are created on first use).
 *
 * @example
 * const checkpointer = new PGliteCheckpointer("./data/threads");
 * const graph = builder.compile({ checkpointer });
 * // …
 * await checkpointer.close();
 */
export class PGliteCheckpointer extends SqlCheckpointer {
  readonly #dataDir: string;
  readonly #given: PGliteInterface | undefined;
  #owned: PGliteInterface | undefined;

  constructor(options: string | PGliteCheckpointerOptions = {}) {
    const {
      dataDir = "memory://",
      db,
      tablePrefix = DEFAULT_TABLE_PREFIX,
    } = typeof options === "string" ? { dataDir: options } : options;
    super(tablePrefix);
    this.#dataDir = dataDir;
    this.#given = db;
  }

  protected override async connect(): Promise<SqlDriver> {
    let db = this.#given;
    if (!db) {
      // A URL-style dataDir (memory://, file://…) is PGlite's business; a plain path is ours to create.
      if (!/^[a-z]+:\/\//i.test(this.#dataDir)) await mkdir(this.#dataDir, { recursive: true });
      const { PGlite } = await import("@electric-sql/pglite");
      db = this.#owned = new PGlite(this.#dataDir);
    }
    await db.waitReady;
    const target = db;
    return {
      query: queryOn(target),
      transaction: (fn) => target.transaction((tx) => fn(queryOn(tx))),
    };
  }

  protected override async disconnect(): Promise<void> {
    const db = this.#owned;
    this.#owned = undefined;
    if (db && !db.closed) await db.close();
  }
}

function queryOn(target: {
  query<T>(text: string, params?: unknown[]): Promise<Results<T>>;
}): Query {
  return async (text, params) => {
    const result = await target.query<Record<string, unknown>>(text, params);
    return { rows: result.rows, rowCount: result.rowCount ?? result.affectedRows ?? 0 };
  };
}
