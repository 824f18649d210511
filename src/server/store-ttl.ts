// The config file's `store.ttl` in a server or worker: how items expire, and the sweep.
import type { Store, StoreTtlConfig } from "../store/index.js";
import { Ticker } from "./ticker.js";

/**
 * LangGraph's `store.ttl` for the default store: `defaultTtl` (minutes) for puts that name
 * no `ttl`, `refreshOnRead` for reads that do not say, and every `sweepIntervalMinutes` the
 * expired items are deleted (they are invisible from the moment they expire either way).
 *
 * @example
 * const storeTtl: StoreTtlOptions = { defaultTtl: 10080, refreshOnRead: true, sweepIntervalMinutes: 120 };
 */
export interface StoreTtlOptions extends StoreTtlConfig {
  /** How often expired items are deleted, in minutes; without it, as puts pass by. */
  sweepIntervalMinutes?: number | null;
}

/**
 * The ticker that deletes `store`'s expired items every `sweepIntervalMinutes`, or undefined
 * when none is asked for (or the store cannot sweep). Not started.
 *
 * @example
 * const sweep = storeSweep(store, { sweepIntervalMinutes: 120 }, console.error);
 * sweep?.start();
 */
export function storeSweep(
  store: Store,
  ttl: StoreTtlOptions | undefined,
  report: (error: unknown) => void,
): Ticker | undefined {
  const minutes = ttl?.sweepIntervalMinutes;
  if (!minutes || !store.sweepExpired) return undefined;
  return new Ticker(minutes * 60_000, () => store.sweepExpired!(), report);
}
