/**
 * What a database driver supplies to back a `SqlCheckpointer`: a way to run a statement
 * and a transaction. `PGliteCheckpointer` and `PostgresCheckpointer` each implement it;
 * schema, statements and the optimistic-concurrency protocol live in this folder once.
 */

/** Runs one statement with `$1…$n` parameters. `rowCount` is the rows the statement touched. */
export type Query = (
  text: string,
  params?: unknown[],
) => Promise<{ rows: Array<Record<string, unknown>>; rowCount: number }>;

/** What a Postgres driver must provide to back a `SqlCheckpointer`. */
export interface SqlDriver {
  query: Query;
  /**
   * Optional: runs one of the store's hot statements (`put`, `putWrites`, `getLatest`,
   * `get`) like `query`, keeping it prepared on the connection so that it is parsed and
   * planned once, not on every call. Parameters are strings, numbers or null. Without it
   * the store uses `query`.
   */
  queryPrepared?: Query;
  /** Runs `fn` on one connection inside BEGIN…COMMIT; rolls back and rethrows if it throws. */
  transaction<T>(fn: (query: Query) => Promise<T>): Promise<T>;
}
