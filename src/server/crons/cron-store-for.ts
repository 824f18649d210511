// The cron store beside a checkpointer: its database for the SQL stores, memory otherwise.
import type { Checkpointer } from "../../checkpoint/index.js";
import { SqlCheckpointer } from "../../checkpoint/sql/index.js";
import { type CronStore, MemoryCronStore } from "./cron-store.js";
import { SqlCronStore } from "./sql-cron-store.js";

const stores = new WeakMap<Checkpointer, CronStore>();

/**
 * The crons kept beside `checkpointer` (one store per checkpointer, so every server and
 * route on it shares them).
 *
 * @example
 * const crons = cronStoreFor(new PGliteCheckpointer("./.stateweaver"));
 */
export function cronStoreFor(checkpointer: Checkpointer): CronStore {
  const known = stores.get(checkpointer);
  if (known) return known;
  const store =
    checkpointer instanceof SqlCheckpointer
      ? new SqlCronStore(() => checkpointer.sharedDriver(), checkpointer.tablePrefix)
      : new MemoryCronStore();
  stores.set(checkpointer, store);
  return store;
}
