/**
 * The audit log in PostgreSQL or PGlite: one table, `<prefix>audit_log`, beside the
 * checkpointer's tables and on its connection (`auditLogFor(checkpointer)`).
 */
import { assertJson } from "../checkpoint/index.js";
import type { Query, SqlDriver } from "../checkpoint/sql/index.js";
import { DEFAULT_TABLE_PREFIX } from "../checkpoint/sql/index.js";
import { InvalidAuditRequestError } from "../errors/index.js";
import type { AuditLog, AuditQuery } from "./audit-log.js";
import { nextEntry } from "./chain.js";
import type { AuditDraft, AuditEntry } from "./entry.js";
import { checkQuery, pageSize, sinceOf } from "./query.js";
import { auditTables, migrateAudit } from "./sql-migrations.js";
import { type AuditVerification, type AuditVerifyOptions, verifyChain } from "./verify.js";

/** Options of `SqlAuditLog`. */
export interface SqlAuditLogOptions {
  /** The connection to use; called once (a shared, lazily opened driver). */
  driver: () => Promise<SqlDriver>;
  /** Table name prefix, as the checkpointer's (default `stateweaver_`). */
  tablePrefix?: string;
}

const UNIQUE_VIOLATION = "23505";
const DUPLICATE_TABLE = "42P07";
/** Appends tried before giving up on a seq another writer keeps taking (never, with the lock). */
const APPEND_ATTEMPTS = 5;
/** Entries written by one append transaction at most (ten parameters each). */
const BATCH_LIMIT = 100;

const sqlState = (error: unknown) => (error as { code?: unknown } | null)?.code;

const COLUMNS = "seq, at, kind, thread_id, interrupt_id, entry_key, actor, data, prev_hash, hash";

/**
 * An `AuditLog` over SQL. An append takes the table's write lock for its transaction, reads
 * the last entry and writes the next, so appenders in any number of processes or machines
 * form one chain; `seq` is the primary key besides, so even a writer that skipped the lock
 * could not fork it (its insert fails and is retried). Appends made while one is being
 * written go together in the next transaction, in the order they were made: the lock is
 * held once for all of them (a burst of 200 review answers otherwise queued 200
 * transactions, one after another, on that lock).
 *
 * Once a log has written or read the last entry, its next append is one statement: the
 * insert of the entries that follow it, made only while that entry is still in the table
 * (`seq` and `hash`). Another writer's entry in between takes the `seq` (a unique
 * violation), a key already in the log its `entry_key` (the same), and a last entry no
 * longer there (a restored database) lets nothing be inserted: each of these goes the
 * locked way above, which reads what is there.
 *
 * @example
 * const log = new SqlAuditLog({ driver: () => checkpointer.sharedDriver(), tablePrefix: checkpointer.tablePrefix });
 * const report = await log.verify();
 */
export class SqlAuditLog implements AuditLog {
  readonly #driver: () => Promise<SqlDriver>;
  readonly #t: ReturnType<typeof auditTables>;
  /**
   * Inserts the entries given column by column ($1…$10, arrays) only while the entry they
   * follow ($11 `seq`, $12 `hash`) is in the log; `seq` and `entry_key` are unique.
   */
  readonly #appendAfterSql: string;
  #ready: Promise<SqlDriver> | undefined;
  /** Appends not yet written, in the order they were made. */
  #waiting: Array<{
    draft: AuditDraft;
    resolve: (entry: AuditEntry) => void;
    reject: (error: unknown) => void;
  }> = [];
  /** The loop writing `#waiting`, while it runs. */
  #writing: Promise<void> | undefined;
  /** The log's last entry as this log last wrote or read it; the next append follows it. */
  #last: Link | undefined;

  constructor(options: SqlAuditLogOptions) {
    const prefix = options.tablePrefix ?? DEFAULT_TABLE_PREFIX;
    if (!/^[a-z_][a-z0-9_]*$/i.test(prefix)) {
      throw new InvalidAuditRequestError(
        `tablePrefix must be letters, digits and _; got ${JSON.stringify(prefix)}.`,
      );
    }
    this.#driver = options.driver;
    this.#t = auditTables(prefix);
    const t = this.#t.log;
    this.#appendAfterSql = `insert into ${t} (${COLUMNS})
      select * from unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[],
        $6::text[], $7::text[], $8::text[], $9::text[], $10::text[])
      where exists (select 1 from ${t} where seq = $11 and hash = $12)`;
  }

  /** The audit table's name (`<prefix>audit_log`). */
  get table(): string {
    return this.#t.log;
  }

  #open(): Promise<SqlDriver> {
    if (this.#ready) return this.#ready;
    const starting = this.#driver().then(async (driver) => {
      try {
        await driver.transaction((query) => migrateAudit(query, this.#t));
      } catch (error) {
        // Another process created the version table between our check and our create.
        const state = sqlState(error);
        if (state !== UNIQUE_VIOLATION && state !== DUPLICATE_TABLE) throw error;
        await driver.transaction((query) => migrateAudit(query, this.#t));
      }
      return driver;
    });
    starting.catch(() => {
      if (this.#ready === starting) this.#ready = undefined;
    });
    this.#ready = starting;
    return starting;
  }

  async append(draft: AuditDraft): Promise<AuditEntry> {
    assertJson(draft.data, "audit entry data");
    return new Promise((resolve, reject) => {
      this.#waiting.push({ draft, resolve, reject });
      this.#writing ??= this.#writeWaiting();
    });
  }

  async #writeWaiting(): Promise<void> {
    while (this.#waiting.length > 0) {
      const batch = this.#waiting.splice(0, BATCH_LIMIT);
      try {
        const db = await this.#open();
        const drafts = batch.map((b) => b.draft);
        const entries =
          (await this.#appendAfterLast(db, drafts)) ?? (await this.#appendWithRetry(db, drafts));
        for (const [i, b] of batch.entries()) b.resolve(entries[i]!);
      } catch (error) {
        for (const b of batch) b.reject(error);
      }
    }
    this.#writing = undefined;
  }

  /**
   * The append as one statement after the last entry this log knows: undefined when it
   * knows none, or when the log moved on without it (the caller then appends the locked way).
   */
  async #appendAfterLast(db: SqlDriver, drafts: AuditDraft[]): Promise<AuditEntry[] | undefined> {
    const last = this.#last;
    // Forgotten until the statement is known to have run: a failure may have written or not.
    this.#last = undefined;
    if (!last) return undefined;
    const chained = chain(drafts, last, new Map());
    const columns: unknown[][] = Array.from({ length: 10 }, () => []);
    for (const entry of chained.written) {
      for (const [i, value] of rowOf(entry).entries()) columns[i]!.push(value);
    }
    try {
      const { rowCount } = await (db.queryPrepared ?? db.query)(this.#appendAfterSql, [
        ...columns,
        last.seq,
        last.hash,
      ]);
      if (rowCount !== chained.written.length) return undefined;
    } catch (error) {
      if (sqlState(error) === UNIQUE_VIOLATION) return undefined;
      throw error;
    }
    this.#last = chained.last;
    return copies(chained.entries);
  }

  async #appendWithRetry(db: SqlDriver, drafts: AuditDraft[]): Promise<AuditEntry[]> {
    for (let attempt = 1; ; attempt++) {
      try {
        const { entries, last } = await db.transaction((query) => this.#appendIn(query, drafts));
        this.#last = last;
        return copies(entries);
      } catch (error) {
        if (sqlState(error) !== UNIQUE_VIOLATION || attempt >= APPEND_ATTEMPTS) throw error;
      }
    }
  }

  async #appendIn(
    query: Query,
    drafts: AuditDraft[],
  ): Promise<{ entries: AuditEntry[]; last: Link | undefined }> {
    const t = this.#t.log;
    // Readers go on; other appenders wait here until this transaction ends.
    await query(`lock table ${t} in share row exclusive mode`);
    // An entry with a key is written once: a later append with that key gets it back.
    const byKey = new Map<string, AuditEntry>();
    const keys = drafts.flatMap((d) => (d.key === undefined ? [] : [d.key]));
    if (keys.length > 0) {
      const { rows } = await query(`select ${COLUMNS} from ${t} where entry_key = any($1)`, [keys]);
      for (const row of rows) byKey.set(String(row.entry_key), entryOf(row));
    }
    const { rows } = await query(`select seq, hash from ${t} order by seq desc limit 1`);
    const last = rows[0] && { seq: Number(rows[0].seq), hash: String(rows[0].hash) };
    const chained = chain(drafts, last, byKey);
    if (chained.written.length > 0) {
      const params: unknown[] = [];
      const values = chained.written.map((entry) => {
        const at = params.length;
        params.push(...rowOf(entry));
        return `(${Array.from({ length: 10 }, (_, i) => `$${at + i + 1}`).join(", ")})`;
      });
      await query(`insert into ${t} (${COLUMNS}) values ${values.join(", ")}`, params);
    }
    return { entries: chained.entries, last: chained.last };
  }

  async find(key: string): Promise<AuditEntry | undefined> {
    const db = await this.#open();
    const { rows } = await db.query(`select ${COLUMNS} from ${this.#t.log} where entry_key = $1`, [
      key,
    ]);
    return rows[0] ? entryOf(rows[0]) : undefined;
  }

  async list(query: AuditQuery = {}): Promise<AuditEntry[]> {
    checkQuery(query);
    const params: unknown[] = [];
    const where: string[] = [];
    const at = (value: unknown) => {
      params.push(value);
      return `$${params.length}`;
    };
    if (query.threadId !== undefined) where.push(`thread_id = ${at(query.threadId)}`);
    if (query.interruptId !== undefined) where.push(`interrupt_id = ${at(query.interruptId)}`);
    if (query.kind !== undefined) where.push(`kind = ${at(query.kind)}`);
    const since = sinceOf(query);
    if (since !== undefined) where.push(`at >= ${at(since)}`);
    if (query.afterSeq !== undefined) where.push(`seq > ${at(query.afterSeq)}`);
    const db = await this.#open();
    const { rows } = await db.query(
      `select ${COLUMNS} from ${this.#t.log}
        ${where.length > 0 ? `where ${where.join(" and ")}` : ""}
        order by seq limit ${at(pageSize(query))}`,
      params,
    );
    return rows.map(entryOf);
  }

  async *entries(query: Omit<AuditQuery, "limit" | "afterSeq"> = {}): AsyncIterable<AuditEntry> {
    let afterSeq = 0;
    for (;;) {
      const page = await this.list({ ...query, afterSeq });
      yield* page;
      if (page.length < pageSize({})) return;
      afterSeq = page.at(-1)!.seq;
    }
  }

  verify(options?: AuditVerifyOptions): Promise<AuditVerification> {
    return verifyChain(this.entries(), options);
  }
}

/** An entry as far as the next one needs it. */
type Link = Pick<AuditEntry, "seq" | "hash">;

/**
 * The entries for `drafts` after `last`: each draft's, in order, the one already logged
 * for its key (`byKey`, which gets the new ones too) or a new one; `written`, the new
 * ones; `last`, the log's last entry after them.
 */
function chain(
  drafts: AuditDraft[],
  last: Link | undefined,
  byKey: Map<string, AuditEntry>,
): { entries: AuditEntry[]; written: AuditEntry[]; last: Link | undefined } {
  const entries: AuditEntry[] = [];
  const written: AuditEntry[] = [];
  for (const draft of drafts) {
    const known = draft.key === undefined ? undefined : byKey.get(draft.key);
    if (known) {
      entries.push(known);
      continue;
    }
    const entry = nextEntry(draft, last);
    last = entry;
    if (draft.key !== undefined) byKey.set(draft.key, entry);
    entries.push(entry);
    written.push(entry);
  }
  return { entries, written, last: last && { seq: last.seq, hash: last.hash } };
}

/** An entry's column values, in `COLUMNS` order. */
function rowOf(entry: AuditEntry): unknown[] {
  return [
    entry.seq,
    entry.at,
    entry.kind,
    entry.threadId,
    entry.interruptId,
    entry.key,
    JSON.stringify(entry.actor),
    JSON.stringify(entry.data),
    entry.prevHash,
    entry.hash,
  ];
}

/** Each caller gets its own copy: nothing handed back is shared with another append. */
function copies(entries: AuditEntry[]): AuditEntry[] {
  return entries.map((entry) => JSON.parse(JSON.stringify(entry)) as AuditEntry);
}

/**
 * A row as an entry. A row whose JSON no longer parses (edited by hand) reads with its text
 * kept as is, so `verify` reports it as changed instead of failing to read the log.
 */
function entryOf(row: Record<string, unknown>): AuditEntry {
  const json = (text: unknown) => {
    try {
      return JSON.parse(String(text));
    } catch {
      return String(text);
    }
  };
  return {
    seq: Number(row.seq),
    at: String(row.at),
    kind: String(row.kind) as AuditEntry["kind"],
    threadId: String(row.thread_id),
    interruptId: String(row.interrupt_id),
    actor: json(row.actor),
    key: row.entry_key === null || row.entry_key === undefined ? null : String(row.entry_key),
    data: json(row.data),
    prevHash: String(row.prev_hash),
    hash: String(row.hash),
  };
}
