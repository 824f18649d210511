// What other layers keep beside a checkpointer: one instance each, and tables on its connection.
import type { Checkpointer } from "../checkpointer.js";
import type { SqlDriver } from "./driver.js";
import { SqlCheckpointer } from "./store.js";

/**
 * Open `table` on the checkpointer's driver, creating it with `ddl` the first time: under an
 * advisory lock, since two processes opening one new database would race on
 * `create table if not exists`. The returned function opens once and retries after a failure.
 *
 * @example
 * const open = sideTable(() => checkpointer.sharedDriver(), "stateweaver_outbox",
 *   "create table if not exists stateweaver_outbox (key text primary key)");
 * const db = await open();
 */
export function sideTable(
  driver: () => Promise<SqlDriver>,
  table: string,
  ddl: string,
): () => Promise<SqlDriver> {
  let ready: Promise<SqlDriver> | undefined;
  return () => {
    if (ready) return ready;
    const starting = driver().then(async (db) => {
      await db.transaction(async (query) => {
        await query("select pg_advisory_xact_lock(hashtext($1))", [`stateweaver:${table}`]);
        await query(ddl);
      });
      return db;
    });
    starting.catch(() => {
      if (ready === starting) ready = undefined;
    });
    ready = starting;
    return starting;
  };
}

/**
 * One `T` per checkpointer, kept beside it: made with `sql` on its connection and table
 * prefix for the SQL checkpointers (PGlite, PostgreSQL), with `memory` otherwise. The same
 * checkpointer always gives the same `T`, so a server, its runs and its routes share it.
 *
 * @example
 * const cronStoreFor = besideCheckpointer(
 *   (driver, prefix) => new SqlCronStore(driver, prefix),
 *   () => new MemoryCronStore(),
 * );
 */
export function besideCheckpointer<T>(
  sql: (driver: () => Promise<SqlDriver>, tablePrefix: string) => T,
  memory: () => T,
): (checkpointer: Checkpointer) => T {
  const made = new WeakMap<Checkpointer, T>();
  return (checkpointer) => {
    let found = made.get(checkpointer);
    if (found === undefined) {
      found =
        checkpointer instanceof SqlCheckpointer
          ? sql(() => checkpointer.sharedDriver(), checkpointer.tablePrefix)
          : memory();
      made.set(checkpointer, found);
    }
    return found;
  };
}
