// Session revocations in PostgreSQL / PGlite: one row per subject, on the checkpointer's connection.
import { type SqlDriver, sideTable } from "../../checkpoint/sql/index.js";
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
  readonly #table: string;
  readonly #open: () => Promise<SqlDriver>;

  constructor(driver: () => Promise<SqlDriver>, tablePrefix: string) {
    // The prefix is the checkpointer's, already checked to be letters, digits and _.
    this.#table = `${tablePrefix}session_revocations`;
    this.#open = sideTable(
      driver,
      this.#table,
      `create table if not exists ${this.#table} (subject text primary key, revoked_at bigint not null)`,
    );
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
