/**
 * What a store tells about threads changed by any process on its database: a thread's
 * status or pending interrupts changed, a run took or left it, or it was deleted. Stores
 * shared by several processes (PostgreSQL) implement it; one-process stores have no need.
 */
export type ThreadChange = "started" | "paused" | "finished" | "failed" | "released" | "deleted";

export interface ThreadChangeFeed {
  /**
   * Calls `listener` for every change committed on the database, by this process or any
   * other, until the returned function is called.
   *
   * @example
   * const stop = await checkpointer.watchThreadChanges((e) => console.log(e.threadId, e.change));
   * // …
   * await stop();
   */
  watchThreadChanges(
    listener: (event: { threadId: string; change: ThreadChange }) => void,
  ): Promise<() => Promise<void>>;
}

/** Whether a store reports other processes' thread changes (see {@link ThreadChangeFeed}). */
export function hasThreadChangeFeed(store: object): store is ThreadChangeFeed {
  return typeof (store as Partial<ThreadChangeFeed>).watchThreadChanges === "function";
}

const CHANGES: readonly string[] = [
  "started",
  "paused",
  "finished",
  "failed",
  "released",
  "deleted",
] satisfies ThreadChange[];

/** Reads one notification payload (JSON written by the schema's trigger); null if foreign. */
export function parseThreadChange(
  payload: string | undefined,
): { threadId: string; change: ThreadChange } | null {
  try {
    const v = JSON.parse(payload ?? "") as { threadId?: unknown; change?: unknown };
    if (typeof v.threadId !== "string" || typeof v.change !== "string") return null;
    if (!CHANGES.includes(v.change)) return null;
    return { threadId: v.threadId, change: v.change as ThreadChange };
  } catch {
    return null;
  }
}
