import type { Client, Notification, Pool, PoolClient, QueryResult } from "pg";
import { prepared } from "./prepared-statement.js";
import { DEFAULT_TABLE_PREFIX, type Query, SqlCheckpointer, type SqlDriver } from "./sql/index.js";
import { parseThreadChange, type ThreadChange, type ThreadChangeFeed } from "./thread-changes.js";

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
  /** See `Checkpointer.claimTtlMs` (default 4 s; `STATEWEAVER_CLAIM_TTL_MS` for the CLI). */
  claimTtlMs?: number;
};

/**
 * Checkpoints in a PostgreSQL server through `pg`, for many processes (on many machines)
 * sharing threads. Tables are created on first use; concurrent writers to one thread are
 * kept apart by `expectedLatestId` (`ConcurrentUpdateError` for the loser). Thread changes
 * made by any of them can be watched with `watchThreadChanges` (LISTEN/NOTIFY).
 *
 * @example
 * const checkpointer = new PostgresCheckpointer({ connectionString: process.env.DATABASE_URL! });
 * const graph = builder.compile({ checkpointer });
 * // …
 * await checkpointer.close();
 */
export class PostgresCheckpointer extends SqlCheckpointer implements ThreadChangeFeed {
  readonly #options: PostgresCheckpointerOptions;
  #owned: Pool | undefined;
  readonly #watchers = new Set<() => Promise<void>>();

  constructor(options: PostgresCheckpointerOptions) {
    super(
      options.tablePrefix ?? DEFAULT_TABLE_PREFIX,
      options.claimTtlMs === undefined ? {} : { claimTtlMs: options.claimTtlMs },
    );
    this.#options = options;
  }

  protected override async connect(): Promise<SqlDriver> {
    let pool = this.#options.pool;
    if (!pool) {
      const { Pool } = await import("pg");
      pool = this.#owned = new Pool({ connectionString: this.#options.connectionString });
      // An idle connection dropped by the server is an event, not a crash; the next query reconnects.
      pool.on("error", () => {});
      // So is one dropped while checked out between two queries: without a listener, `pg`
      // would raise it as an unhandled 'error' event and end the process.
      pool.on("connect", (client) => client.on("error", () => {}));
    }
    const target = pool;
    return {
      query: queryOn(target),
      // The store's hot statements (claim, read, write, release) are parsed once per connection.
      queryPrepared: async (text, params) => {
        const result: QueryResult = await target.query(prepared(text, params));
        return { rows: result.rows, rowCount: result.rowCount ?? 0 };
      },
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

  /**
   * Listens on the schema's `<prefix>thread_changes` channel on a connection of its own.
   * A dropped connection is opened again after a second; changes made meanwhile are not
   * replayed, so a listener that must not miss one re-reads what it shows on `released`
   * (sent to it after each reconnection, with an empty thread id).
   */
  async watchThreadChanges(
    listener: (event: { threadId: string; change: ThreadChange }) => void,
  ): Promise<() => Promise<void>> {
    const channel = `${this.#options.tablePrefix ?? DEFAULT_TABLE_PREFIX}thread_changes`;
    const onNotification = (n: Notification) => {
      if (n.channel !== channel) return;
      const event = parseThreadChange(n.payload);
      if (event) listener(event);
    };
    let stopped = false;
    let current: { client: Client | PoolClient; release: () => Promise<void> } | undefined;
    let retry: NodeJS.Timeout | undefined;
    const open = async (): Promise<void> => {
      const connection = await this.#listenConnection();
      connection.client.on("notification", onNotification);
      // A dropped connection is an event, not a crash: listen again on a new one.
      connection.client.on("error", () => {
        if (current !== connection) return;
        current = undefined;
        void connection.release().catch(() => undefined);
        if (!stopped) retry = setTimeout(reopen, 1000);
      });
      try {
        await connection.client.query(`listen ${channel}`);
      } catch (error) {
        await connection.release().catch(() => undefined);
        throw error;
      }
      // Stopped while this connection was opening: nobody will release it later.
      if (stopped) await connection.release();
      else current = connection;
    };
    const reopen = () => {
      open().then(
        () => listener({ threadId: "", change: "released" }),
        () => {
          if (!stopped) retry = setTimeout(reopen, 1000);
        },
      );
    };
    await open();
    const stop = async () => {
      stopped = true;
      clearTimeout(retry);
      this.#watchers.delete(stop);
      const connection = current;
      current = undefined;
      await connection?.release();
    };
    this.#watchers.add(stop);
    return stop;
  }

  async #listenConnection(): Promise<{
    client: Client | PoolClient;
    release: () => Promise<void>;
  }> {
    const { pool, connectionString } = this.#options;
    if (pool) {
      const client = await pool.connect();
      return {
        client,
        release: async () => {
          // Discard it: a pooled connection must not keep listening for its next user.
          client.release(true);
        },
      };
    }
    const { Client } = await import("pg");
    const client = new Client({ connectionString });
    await client.connect();
    return { client, release: () => client.end() };
  }

  protected override async disconnect(): Promise<void> {
    await Promise.all([...this.#watchers].map((stop) => stop()));
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
