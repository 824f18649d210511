import { hasThreadChangeFeed, type ThreadChangeFeed } from "../checkpoint/index.js";

/**
 * Why a thread's pending set may have changed: it paused, a decision was taken, its run
 * ended, a run took or left it, it was deleted, or a review's deadline passed.
 */
export type InboxChange =
  | "paused"
  | "decided"
  | "approved"
  | "finished"
  | "failed"
  | "deleted"
  | "started"
  | "released"
  | "deadline";

type Listener = (e: { threadId: string; reason: InboxChange }) => void;

/**
 * Tells inbox pages (through `GET /inbox/events`) that a thread's pending set changed, so
 * they fetch it again. Changes made through this server are published here directly; with
 * a store shared by several processes (PostgreSQL, see `ThreadChangeFeed`), the changes
 * any of them commits arrive too, so every page sees every server's work. A change may
 * then arrive twice; pages fetch once per burst.
 *
 * @example
 * const events = new InboxEvents(checkpointer);
 * await events.ready; // listening on the database, if the store can tell
 * const stop = events.subscribe((e) => console.log(e.threadId, e.reason));
 */
export class InboxEvents {
  readonly #listeners = new Set<Listener>();
  readonly #stop: Promise<(() => Promise<void>) | undefined>;
  /** Settles once the store's change feed is listened to (at once without one). */
  readonly ready: Promise<void>;

  constructor(store?: object, onError: (error: unknown) => void = () => {}) {
    const feed: ThreadChangeFeed | undefined =
      store && hasThreadChangeFeed(store) ? store : undefined;
    this.#stop = feed
      ? feed
          .watchThreadChanges((e) => this.publish(e.threadId, e.change))
          .catch((error: unknown) => {
            // Pages still hear this server's own changes; the others' need the database.
            onError(error);
            return undefined;
          })
      : Promise.resolve(undefined);
    this.ready = this.#stop.then(() => undefined);
  }

  publish(threadId: string, reason: InboxChange): void {
    for (const listener of this.#listeners) listener({ threadId, reason });
  }

  subscribe(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  get listenerCount(): number {
    return this.#listeners.size;
  }

  /** Stops listening to the store's change feed. */
  async close(): Promise<void> {
    await (await this.#stop)?.();
  }
}
