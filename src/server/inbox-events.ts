/**
 * Why a thread's pending set may have changed: it paused, a decision was taken, its run
 * ended, it was deleted, or a review's deadline passed.
 */
export type InboxChange =
  | "paused"
  | "decided"
  | "finished"
  | "failed"
  | "deleted"
  | "started"
  | "deadline";

/**
 * Tells inbox pages (through `GET /inbox/events`) that a thread's pending set changed, so
 * they fetch it again. In-process: with several servers on one database, each page sees
 * the changes made through its own server.
 *
 * @example
 * const events = new InboxEvents();
 * const stop = events.subscribe((e) => console.log(e.threadId, e.reason));
 */
export class InboxEvents {
  readonly #listeners = new Set<(e: { threadId: string; reason: InboxChange }) => void>();

  publish(threadId: string, reason: InboxChange): void {
    for (const listener of this.#listeners) listener({ threadId, reason });
  }

  subscribe(listener: (e: { threadId: string; reason: InboxChange }) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  get listenerCount(): number {
    return this.#listeners.size;
  }
}
