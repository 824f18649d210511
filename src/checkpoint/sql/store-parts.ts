// What a SQL store's operations share: its tables and statements, its connection, what it remembers.
import type { KnownValues } from "../stored-values.js";
import type { SqlDriver } from "./driver.js";
import type { Statements, Tables } from "./statements.js";

/**
 * The parts of one `SqlCheckpointer` that its operations (claims, threads, retention) use:
 * the class keeps them private and hands this view to the functions it delegates to.
 *
 * @example
 * claimThread(parts, "t1", { runId, expectedLatestId: null, ttlMs: 4_000 });
 */
export interface StoreParts {
  readonly tables: Tables;
  readonly sql: Statements;
  /** The last checkpoint written or read per (thread, ns): the next put stores what changed. */
  readonly known: KnownValues;
  /** The connection, opened and migrated on first use; `CheckpointerClosedError` after `close()`. */
  ready(): Promise<SqlDriver>;
  /** Tells the store `rows` rows were deleted (PGlite vacuums after enough of them). */
  afterDelete(rows: number): void;
}
