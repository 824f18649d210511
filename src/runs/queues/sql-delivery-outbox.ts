// The delivery outbox as one table, `<prefix>delivery_outbox`, beside the checkpointer's.
import { type SqlDriver, sideTable } from "../../checkpoint/sql/index.js";
import type { DeliveryOutbox, KeptDelivery } from "./delivery-outbox.js";

/**
 * `DeliveryOutbox` over SQL (PGlite), on the checkpointer's connection, its table made on
 * first use. Times are ms since the epoch; a row's `status` is `pending` until it ends
 * (`delivered` or `failed`).
 *
 * @example
 * const outbox = new SqlDeliveryOutbox(() => checkpointer.sharedDriver(), "stateweaver_");
 */
export class SqlDeliveryOutbox implements DeliveryOutbox {
  readonly #table: string;
  readonly #open: () => Promise<SqlDriver>;

  constructor(driver: () => Promise<SqlDriver>, tablePrefix: string) {
    // The checkpointer's prefix, which it checked: letters, digits and _.
    this.#table = `${tablePrefix}delivery_outbox`;
    this.#open = sideTable(
      driver,
      this.#table,
      `create table if not exists ${this.#table} (
          key text primary key,
          payload text not null,
          status text not null default 'pending',
          attempts integer not null default 0,
          due_at bigint not null,
          last_error text,
          updated_at bigint not null
        )`,
    );
  }

  async add(delivery: KeptDelivery["delivery"]): Promise<boolean> {
    const db = await this.#open();
    const now = Date.now();
    const { rowCount } = await db.query(
      `insert into ${this.#table} (key, payload, due_at, updated_at) values ($1, $2, $3, $3)
       on conflict (key) do nothing`,
      [delivery.key, JSON.stringify(delivery.payload), now],
    );
    return rowCount > 0;
  }

  async pending(): Promise<KeptDelivery[]> {
    const db = await this.#open();
    const { rows } = await db.query(
      `select key, payload, attempts, due_at from ${this.#table} where status = 'pending' order by due_at`,
    );
    return rows.map((row) => ({
      delivery: { key: String(row.key), payload: JSON.parse(String(row.payload)) },
      attempts: Number(row.attempts),
      dueAt: Number(row.due_at),
    }));
  }

  async attempting(key: string, attempts: number): Promise<void> {
    const db = await this.#open();
    await db.query(`update ${this.#table} set attempts = $2, updated_at = $3 where key = $1`, [
      key,
      attempts,
      Date.now(),
    ]);
  }

  async end(key: string, status: "delivered" | "failed", error: string | null): Promise<void> {
    const db = await this.#open();
    await db.query(
      `update ${this.#table} set status = $2, last_error = $3, updated_at = $4 where key = $1`,
      [key, status, error, Date.now()],
    );
  }

  async retryAt(key: string, dueAt: number, error: string): Promise<void> {
    const db = await this.#open();
    await db.query(
      `update ${this.#table} set due_at = $2, last_error = $3, updated_at = $4 where key = $1`,
      [key, dueAt, error, Date.now()],
    );
  }

  async forget(before: number): Promise<number> {
    const db = await this.#open();
    const { rowCount } = await db.query(
      `delete from ${this.#table} where status <> 'pending' and updated_at < $1`,
      [before],
    );
    return rowCount;
  }
}
