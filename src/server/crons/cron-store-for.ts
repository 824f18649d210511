// The cron store beside a checkpointer: its database for the SQL stores, memory otherwise.
import { besideCheckpointer } from "../../checkpoint/sql/index.js";
import { type CronStore, MemoryCronStore } from "./cron-store.js";
import { SqlCronStore } from "./sql-cron-store.js";

/**
 * The crons kept beside a checkpointer (one store per checkpointer, so every server and
 * route on it shares them).
 *
 * @example
 * const crons = cronStoreFor(new PGliteCheckpointer("./.stateweaver"));
 */
export const cronStoreFor = besideCheckpointer<CronStore>(
  (driver, prefix) => new SqlCronStore(driver, prefix),
  () => new MemoryCronStore(),
);
