import type { Pool, PoolClient, QueryResult } from "pg";
import { DEFAULT_TABLE_PREFIX, type Query, SqlCheckpointer, type SqlDriver } from "./sql/index.js";

export type PostgresCheckpointerOptions = (
  | {
      /** e.g. `postgres://user:password@host:5432/db`; the store creates and owns a pool. */
      connectionString: string;
      pool?: never;
    }
  | {
      /** A pool you manage; `close()` leaves it open. */
      pool: Pool;
      connectionString?: never;
    }
) & {
  /** Prefix of the table names; `"stateweaver_"` by default. */
  tablePrefix?: string;
};

/**
 * Checkpoints in a PostgreSQL server through `pg`, for many processes (on many machines)
 * sharing threads. Tables are created on first use; concurrent writers to one thread are
 * kept apart by `expectedLatestId` (`ConcurrentUpdateError` for the loser).
 *
 * @example
 * const checkpointer = new PostgresCheckpointer({ connectionString: process.env.DATABASE_URL! });
 * const graph = builder.compile({ checkpointer });
 * // …
 * await checkpointer.close();
 */
export class PostgresCheckpointer extends SqlCheckpointer {
  readonly #options: PostgresCheckpointerOptions;
  #owned: Pool | undefined;

  constructor(options: PostgresCheckpointerOptions) {
    super(options.tablePrefix ?? DEFAULT_TABLE_PREFIX);
    this.#options = options;
  }

  protected override async connect(): Promise<SqlDriver> {
    let pool = this.#options.pool;
    if (!pool) {
      const { Pool } = await import("pg");
      pool = this.#owned = new Pool({ connectionString: this.#options.connectionString });
      // An idle connection dropped by the server is an event, not a crash; the next query reconnects.
      pool.on("error", () => {});
    }
    const target = pool;
    return {
      query: queryOn(target),
      transaction: async (fn) => {
        const client = await target.connect();
        let broken: Error | undefined;
        try {
          await client.query("begin");
          const result = await fn(queryOn(client));
          await client.query("commit");
          return result;
        } catch (error) {
          await client.query("rollback").catch((rollbackError: Error) => {
            broken = rollbackError;
          });
          throw error;
        } finally {
          // A connection that could not roll back is discarded rather than reused.
          client.release(broken);
        }
      },
    };
  }

  protected override async disconnect(): Promise<void> {
    const pool = this.#owned;
    this.#owned = undefined;
    if (pool && !pool.ended) await pool.end();
  }
}

function queryOn(target: Pool | PoolClient): Query {
  return async (text, params) => {
    const result: QueryResult = await target.query(text, params);
    return { rows: result.rows, rowCount: result.rowCount ?? 0 };
  };
}
