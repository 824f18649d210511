// The in-process queue's deliveries (webhooks): kept on timers, attempted by this process.
import type { Delivery, DeliveryOutcome } from "../queue.js";

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

/**
 * Deliveries of `InProcessRunQueue`: each waits on a timer until it is due and a consumer
 * attempts it, again after a failure when the outcome asks. Nothing here outlives the
 * process (as the queue's runs do not).
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
  #attempt: Attempt | undefined;
  #running = 0;
  #closed = false;

  async add(delivery: Delivery): Promise<boolean> {
    if (this.#closed || this.#waiting.has(delivery.key) || this.#ended.has(delivery.key))
      return false;
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
    this.#dispatch();
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
      attempt(structuredClone(waiting.delivery), waiting.attempts)
        .catch((error: unknown): DeliveryOutcome => {
          // A handler that throws is treated as a failure worth another try, a second later.
          return { status: "failed", error: String(error), retryInMs: 1000 };
        })
        .then((outcome) => {
          this.#running--;
          if (outcome.status === "failed" && outcome.retryInMs !== undefined && !this.#closed) {
            waiting.timer = setTimeout(() => {
              waiting.due = true;
              this.#dispatch();
            }, outcome.retryInMs);
            waiting.timer.unref?.();
          } else {
            this.#end(waiting.delivery.key);
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
