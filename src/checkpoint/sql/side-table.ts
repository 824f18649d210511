// A table of another layer's kept beside the checkpointer's, on its connection, made on first use.
import type { SqlDriver } from "./driver.js";

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
