/** What a thread's stream sends as `state_update`: the thread's state after the update. */
export interface StateUpdate {
  state: unknown;
  thread_id: string;
}

type Listener = (update: StateUpdate) => void;

/**
 * Tells the thread streams joined in this process (`GET /threads/:id/stream`) that a
 * thread's state was updated outside a run (`threads.updateState`, supersteps), as
 * LangGraph's server publishes a `state_update` event. Updates made through another
 * server process are not heard here.
 *
 * @example
 * const stop = updates.subscribe("t1", (u) => send("state_update", u));
 * if (updates.listening("t1")) updates.publish("t1", { state, thread_id: "t1" });
 */
export class ThreadStateUpdates {
  readonly #listeners = new Map<string, Set<Listener>>();

  /** Whether a stream of the thread listens (so the state need not be read for nobody). */
  listening(threadId: string): boolean {
    return this.#listeners.has(threadId);
  }

  subscribe(threadId: string, listener: Listener): () => void {
    const set = this.#listeners.get(threadId) ?? new Set<Listener>();
    this.#listeners.set(threadId, set);
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.#listeners.delete(threadId);
    };
  }

  publish(threadId: string, update: StateUpdate): void {
    for (const listener of this.#listeners.get(threadId) ?? []) listener(update);
  }
}
