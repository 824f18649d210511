// Crons in PostgreSQL / PGlite: one row each, in `<prefix>crons` beside the checkpointer's tables.
import { type SqlDriver, sideTable } from "../../checkpoint/sql/index.js";
import type { CronRecord, CronStore } from "./cron-store.js";

/**
 * `CronStore` on the checkpointer's connection. A row keeps the record as JSON and its
 * `next_run_date` in a column of its own, for the due query and the compare-and-set that
 * claims a firing.
 *
 * @example
 * const crons = new SqlCronStore(() => checkpointer.sharedDriver(), "stateweaver_");
 */
export class SqlCronStore implements CronStore {
  readonly #table: string;
  readonly #open: () => Promise<SqlDriver>;
  readonly #driver: () => Promise<SqlDriver>;
  #made = false;

  constructor(driver: () => Promise<SqlDriver>, tablePrefix: string) {
    this.#driver = driver;
    // The checkpointer's prefix, which it checked: letters, digits and _.
    this.#table = `${tablePrefix}crons`;
    this.#open = sideTable(
      driver,
      this.#table,
      `create table if not exists ${this.#table} (
         cron_id text primary key,
         record text not null,
         next_run_date text
       )`,
    );
  }

  async put(cron: CronRecord): Promise<void> {
    const db = await this.#open();
    await db.query(
      `insert into ${this.#table} (cron_id, record, next_run_date) values ($1, $2, $3)
       on conflict (cron_id) do update set record = excluded.record, next_run_date = excluded.next_run_date`,
      [cron.cron_id, JSON.stringify(cron), cron.enabled ? cron.next_run_date : null],
    );
  }

  async get(cronId: string): Promise<CronRecord | undefined> {
    const db = await this.#open();
    const { rows } = await db.query(`select record from ${this.#table} where cron_id = $1`, [
      cronId,
    ]);
    return rows[0] ? recordOf(rows[0]) : undefined;
  }

  async delete(cronId: string): Promise<boolean> {
    const db = await this.#open();
    const { rowCount } = await db.query(`delete from ${this.#table} where cron_id = $1`, [cronId]);
    return rowCount > 0;
  }

  async all(): Promise<CronRecord[]> {
    const db = await this.#open();
    const { rows } = await db.query(`select record from ${this.#table}`);
    return rows.map(recordOf);
  }

  async due(now: string): Promise<CronRecord[]> {
    // Through the checkpointer each time: once it is closed, this says so (CheckpointerClosedError).
    const driver = await this.#driver();
    // Asked every second by every server and worker: until some process made a cron, no table is made.
    if (!this.#made) {
      const { rows } = await driver.query("select to_regclass($1) is not null as made", [
        this.#table,
      ]);
      if (!rows[0]?.made) return [];
      this.#made = true;
    }
    const db = await this.#open();
    const { rows } = await db.query(`select record from ${this.#table} where next_run_date <= $1`, [
      now,
    ]);
    return rows.map(recordOf);
  }

  async advance(cronId: string, from: string, to: string | null): Promise<boolean> {
    const db = await this.#open();
    const { rowCount } = await db.query(
      `update ${this.#table} set next_run_date = $3,
         record = jsonb_set(record::jsonb, '{next_run_date}', coalesce(to_jsonb($3::text), 'null'))::text
       where cron_id = $1 and next_run_date = $2`,
      [cronId, from, to],
    );
    return rowCount > 0;
  }
}

function recordOf(row: Record<string, unknown>): CronRecord {
  return JSON.parse(row.record as string) as CronRecord;
}
