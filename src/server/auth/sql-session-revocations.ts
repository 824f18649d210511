// Session revocations in PostgreSQL / PGlite: one row per subject, on the checkpointer's connection.
import type { SqlDriver } from "../../checkpoint/sql/index.js";
import {
  type RevocationSubject,
  type SessionRevocations,
  subjectKey,
} from "./session-revocations.js";
import { USER_SESSION_SECONDS } from "./user-session.js";

/**
 * Rows are forgotten this long after their time: a session lives `USER_SESSION_SECONDS`,
 * and an hour more covers clocks of servers that disagree.
 */
const KEEP_MS = (USER_SESSION_SECONDS + 60 * 60) * 1000;

/**
 * `SessionRevocations` in the table `<prefix>session_revocations`, made on first use. A
 * revocation is an upsert that keeps the later time; each also forgets rows whose time
 * every session they could refuse has outlived, so the table holds about a day's worth.
 *
 * @example
 * const revocations = new SqlSessionRevocations(() => checkpointer.sharedDriver(), "stateweaver_");
 */
export class SqlSessionRevocations implements SessionRevocations {
  readonly #driver: () => Promise<SqlDriver>;
  readonly #table: string;
  #ready: Promise<SqlDriver> | undefined;

  constructor(driver: () => Promise<SqlDriver>, tablePrefix: string) {
    this.#driver = driver;
    // The prefix is the checkpointer's, already checked to be letters, digits and _.
    this.#table = `${tablePrefix}session_revocations`;
  }

  #open(): Promise<SqlDriver> {
    if (this.#ready) return this.#ready;
    const starting = this.#driver().then(async (driver) => {
      // Two processes creating the table at once would race on "if not exists": the lock orders them.
      await driver.transaction(async (query) => {
        await query("select pg_advisory_xact_lock(hashtext($1))", [`stateweaver:${this.#table}`]);
        await query(
          `create table if not exists ${this.#table} (subject text primary key, revoked_at bigint not null)`,
        );
      });
      return driver;
    });
    starting.catch(() => {
      if (this.#ready === starting) this.#ready = undefined;
    });
    this.#ready = starting;
    return starting;
  }

  async revoke(subject: RevocationSubject, at: number): Promise<void> {
    const db = await this.#open();
    await db.query(
      `insert into ${this.#table} (subject, revoked_at) values ($1, $2)
       on conflict (subject) do update set revoked_at = greatest(${this.#table}.revoked_at, excluded.revoked_at)`,
      [subjectKey(subject), at],
    );
    await db.query(`delete from ${this.#table} where revoked_at < $1`, [Date.now() - KEEP_MS]);
  }

  async latest(subjects: RevocationSubject[]): Promise<number | undefined> {
    const db = await this.#open();
    const { rows } = await db.query(
      `select max(revoked_at) as at from ${this.#table} where subject = any($1)`,
      [subjects.map(subjectKey)],
    );
    const at = rows[0]?.at;
    return at === null || at === undefined ? undefined : Number(at);
  }
}
