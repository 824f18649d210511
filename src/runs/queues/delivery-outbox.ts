// Where an in-process queue keeps its deliveries (webhooks) so they outlive the process.
import type { Checkpointer } from "../../checkpoint/index.js";
import { PGliteCheckpointer } from "../../checkpoint/index.js";
import type { Delivery } from "../queue.js";
import { SqlDeliveryOutbox } from "./sql-delivery-outbox.js";

/**
 * A delivery the outbox still holds, as a restarted process takes it up: how many attempts
 * were made, and when the next is due (ms since the epoch).
 *
 * @example
 * const kept: KeptDelivery = { delivery, attempts: 2, dueAt: Date.now() + 4000 };
 */
export interface KeptDelivery {
  delivery: Delivery;
  attempts: number;
  dueAt: number;
}

/**
 * The in-process queue's record of deliveries, in a database one process owns (PGlite):
 * a delivery is kept from the moment it is added until it arrived or was given up, with
 * its attempt count and next due time, so one waiting for a retry when the process stops
 * is attempted by the next process to start, and one that arrived is never sent again.
 *
 * Duties: `add` of a key seen before (delivered or not) keeps nothing and returns false;
 * `pending` lists only deliveries that have not ended.
 *
 * @example
 * const queue = new InProcessRunQueue({ outbox: deliveryOutboxFor(checkpointer) });
 */
export interface DeliveryOutbox {
  /** Keep a new delivery, due now; false when its key was added before. */
  add(delivery: Delivery): Promise<boolean>;
  /** The deliveries that have not ended, to take up after a restart. */
  pending(): Promise<KeptDelivery[]>;
  /** An attempt is about to be made: counted first, so one cut off by a crash still counts. */
  attempting(key: string, attempts: number): Promise<void>;
  /** The delivery arrived, or was given up (`error` says why). */
  end(key: string, status: "delivered" | "failed", error: string | null): Promise<void>;
  /** The attempt failed; the next is due at `dueAt`. */
  retryAt(key: string, dueAt: number, error: string): Promise<void>;
  /** Forget deliveries that ended before `before` (ms since the epoch); returns how many. */
  forget(before: number): Promise<number>;
}

/**
 * The outbox for an embedded server's in-process queue: a table in its PGlite database.
 * Only PGlite, whose data directory has one owner: processes sharing a PostgreSQL database
 * each with their own in-process queue would take up each other's deliveries (use
 * `PostgresRunQueue` there, which keeps deliveries itself).
 *
 * @example
 * const queue = new InProcessRunQueue({ outbox: deliveryOutboxFor(checkpointer) });
 */
export function deliveryOutboxFor(checkpointer: Checkpointer): DeliveryOutbox | undefined {
  return checkpointer instanceof PGliteCheckpointer
    ? new SqlDeliveryOutbox(() => checkpointer.sharedDriver(), checkpointer.tablePrefix)
    : undefined;
}
