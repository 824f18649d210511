// The in-process queue's deliveries (webhooks): kept on timers, attempted by this process.
import type { Delivery, DeliveryOutcome } from "../queue.js";
import type { DeliveryOutbox } from "./delivery-outbox.js";

/** Keys remembered after their delivery ended, so an event seen twice is delivered once. */
const KEPT_KEYS = 10_000;
/** Deliveries attempted at once: a slow receiver must not hold up the others. */
const AT_ONCE = 8;

type Attempt = (delivery: Delivery, attempt: number) => Promise<DeliveryOutcome>;

interface Waiting {
  delivery: Delivery;
  attempts: number;
  due: boolean;
  timer: ReturnType<typeof setTimeout> | undefined;
}

/** Writes to the outbox may fail (the database went away): the delivery goes on in memory. */
const keepGoing = () => undefined;

/**
 * Deliveries of `InProcessRunQueue`: each waits on a timer until it is due and a consumer
 * attempts it, again after a failure when the outcome asks. Without an `outbox` nothing
 * here outlives the process (as the queue's runs do not); with one, each delivery and its
 * attempts are written there, and the first consumer takes up those a previous process
 * left waiting.
 *
 * @example
 * const deliveries = new InProcessDeliveries();
 * deliveries.consume(async (d) => ({ status: "delivered" }));
 * await deliveries.add({ key: "k", payload: {} });
 */
export class InProcessDeliveries {
  readonly #waiting = new Map<string, Waiting>();
  /** Keys of ended deliveries, oldest first. */
  readonly #ended = new Set<string>();
  readonly #outbox: DeliveryOutbox | undefined;
  #attempt: Attempt | undefined;
  #running = 0;
  #closed = false;
  #restored = false;

  constructor(outbox?: DeliveryOutbox) {
    this.#outbox = outbox;
  }

  #known(key: string): boolean {
    return this.#closed || this.#waiting.has(key) || this.#ended.has(key);
  }

  async add(delivery: Delivery): Promise<boolean> {
    if (this.#known(delivery.key)) return false;
    // A key the outbox has seen was added before this process started: not again.
    if (this.#outbox && !(await this.#outbox.add(delivery).catch(() => true))) return false;
    if (this.#known(delivery.key)) return false;
    this.#waiting.set(delivery.key, {
      delivery: structuredClone(delivery),
      attempts: 0,
      due: true,
      timer: undefined,
    });
    queueMicrotask(() => this.#dispatch());
    return true;
  }

  /** Attempt deliveries with `attempt` from now on; `undefined` stops attempting. */
  consume(attempt: Attempt | undefined): void {
    this.#attempt = attempt;
    if (attempt && this.#outbox && !this.#restored) {
      this.#restored = true;
      void this.#restore(this.#outbox);
    }
    this.#dispatch();
  }

  /** Take up what the outbox holds from an earlier process: each due when it was due. */
  async #restore(outbox: DeliveryOutbox): Promise<void> {
    const kept = await outbox.pending().catch(() => []);
    for (const { delivery, attempts, dueAt } of kept) {
      if (this.#known(delivery.key)) continue;
      const waiting: Waiting = { delivery, attempts, due: false, timer: undefined };
      this.#waiting.set(delivery.key, waiting);
      this.#dueAt(waiting, dueAt - Date.now());
    }
    this.#dispatch();
  }

  /** Make `waiting` due in `ms` (now, when not positive). */
  #dueAt(waiting: Waiting, ms: number): void {
    if (ms <= 0) {
      waiting.due = true;
      return;
    }
    waiting.timer = setTimeout(() => {
      waiting.due = true;
      this.#dispatch();
    }, ms);
    waiting.timer.unref?.();
  }

  /** Forget ended deliveries the outbox kept from before `before` (ms since the epoch). */
  async forget(before: number): Promise<void> {
    await this.#outbox?.forget(before).catch(keepGoing);
  }

  close(): void {
    this.#closed = true;
    this.#attempt = undefined;
    for (const waiting of this.#waiting.values()) clearTimeout(waiting.timer);
    this.#waiting.clear();
  }

  #dispatch(): void {
    const attempt = this.#attempt;
    if (!attempt || this.#closed) return;
    for (const waiting of this.#waiting.values()) {
      if (this.#running >= AT_ONCE) return;
      if (!waiting.due) continue;
      waiting.due = false;
      waiting.attempts++;
      this.#running++;
      const { key } = waiting.delivery;
      const counted = this.#outbox?.attempting(key, waiting.attempts).catch(keepGoing);
      Promise.resolve(counted)
        .then(() => attempt(structuredClone(waiting.delivery), waiting.attempts))
        .catch((error: unknown): DeliveryOutcome => {
          // A handler that throws is treated as a failure worth another try, a second later.
          return { status: "failed", error: String(error), retryInMs: 1000 };
        })
        .then((outcome) => {
          this.#running--;
          if (outcome.status === "failed" && outcome.retryInMs !== undefined) {
            void this.#outbox
              ?.retryAt(key, Date.now() + outcome.retryInMs, outcome.error)
              .catch(keepGoing);
            if (!this.#closed) this.#dueAt(waiting, outcome.retryInMs);
          } else {
            const error = outcome.status === "failed" ? outcome.error : null;
            void this.#outbox?.end(key, outcome.status, error).catch(keepGoing);
            this.#end(key);
          }
          this.#dispatch();
        });
    }
  }

  #end(key: string): void {
    this.#waiting.delete(key);
    this.#ended.add(key);
    if (this.#ended.size > KEPT_KEYS) {
      const oldest = this.#ended.values().next().value;
      if (oldest !== undefined) this.#ended.delete(oldest);
    }
  }
}
