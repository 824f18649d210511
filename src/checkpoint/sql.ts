import {
  ConcurrentUpdateError,
  InvalidConfigError,
  StateweaverError,
  ThreadBusyError,
} from "../errors/index.js";
import type {
  Checkpoint,
  Checkpointer,
  CheckpointTuple,
  ListOptions,
  PendingWrite,
  PutOptions,
  ThreadClaim,
} from "./checkpointer.js";

/**
 * The SQL shared by `PGliteCheckpointer` and `PostgresCheckpointer`. Each driver only
 * supplies a way to run a statement and a transaction; schema, statements and the
 * optimistic-concurrency protocol live here once.
 *
 * Every call a run makes on its hot path is one statement, one round trip: `put` (the
 * head-row check and the checkpoint insert in one statement, no transaction), `putWrites`,
 * `getLatest` and `get` (the checkpoint and its writes in one result).
 */

/** Runs one statement with `$1…$n` parameters. `rowCount` is the rows the statement touched. */
export type Query = (
  text: string,
  params?: unknown[],
) => Promise<{ rows: Array<Record<string, unknown>>; rowCount: number }>;

/** What a Postgres driver must provide to back a `SqlCheckpointer`. */
export interface SqlDriver {
  query: Query;
  /**
   * Optional: runs one of the store's hot statements (`put`, `putWrites`, `getLatest`,
   * `get`) like `query`, keeping it prepared on the connection so that it is parsed and
   * planned once, not on every call. Parameters are strings, numbers or null. Without it
   * the store uses `query`.
   */
  queryPrepared?: Query;
  /** Runs `fn` on one connection inside BEGIN…COMMIT; rolls back and rethrows if it throws. */
  transaction<T>(fn: (query: Query) => Promise<T>): Promise<T>;
}

export const DEFAULT_TABLE_PREFIX = "stateweaver_";

interface Tables {
  prefix: string;
  version: string;
  threads: string;
  checkpoints: string;
  writes: string;
  claims: string;
}

function tables(prefix: string): Tables {
  // Names are spliced into SQL, so only plain lower-case identifiers are accepted.
  if (!/^[a-z_][a-z0-9_]{0,39}$/.test(prefix)) {
    throw new InvalidConfigError(
      `Table prefix "${prefix}" is not allowed: use at most 40 lower-case letters, digits and underscores, starting with a letter or underscore (e.g. "stateweaver_").`,
    );
  }
  return {
    prefix,
    version: `${prefix}schema_version`,
    threads: `${prefix}threads`,
    checkpoints: `${prefix}checkpoints`,
    writes: `${prefix}writes`,
    claims: `${prefix}claims`,
  };
}

/**
 * Schema migrations; migration N brings the schema to version N. Append, never edit:
 * databases already at a version skip everything up to it.
 */
const migrations: Array<(t: Tables) => string[]> = [
  (t) => [
    // One head row per (thread, ns): the row `put` locks to check `expectedLatestId`.
    `create table ${t.threads} (
      thread_id text not null,
      ns text not null,
      latest_id text not null,
      primary key (thread_id, ns)
    )`,
    `create table ${t.checkpoints} (
      thread_id text not null,
      ns text not null,
      id text not null,
      seq bigint generated always as identity,
      parent_id text,
      step integer,
      source text,
      created_at timestamptz not null,
      payload text not null,
      primary key (thread_id, ns, id)
    )`,
    `create index ${t.prefix}checkpoints_history on ${t.checkpoints} (thread_id, ns, seq)`,
    // One row per task: a task that finished with no writes still has to be recorded.
    `create table ${t.writes} (
      thread_id text not null,
      ns text not null,
      checkpoint_id text not null,
      task_id text not null,
      node text not null,
      seq bigint generated always as identity,
      payload text not null,
      primary key (thread_id, ns, checkpoint_id, task_id),
      foreign key (thread_id, ns, checkpoint_id)
        references ${t.checkpoints} (thread_id, ns, id) on delete cascade
    )`,
  ],
  (t) => [
    // One row per thread a run holds (see Checkpointer.claimThread); times are the database's.
    `create table ${t.claims} (
      thread_id text primary key,
      run_id text not null,
      expires_at timestamptz not null
    )`,
  ],
];

/** Brings the schema up to date. Safe when several processes start at once on one database. */
async function migrate(driver: SqlDriver, t: Tables): Promise<void> {
  await driver.transaction(async (query) => {
    // Serialises concurrent initialisers; released at commit.
    await query("select pg_advisory_xact_lock(hashtext($1))", [`stateweaver:${t.prefix}`]);
    await query(
      `create table if not exists ${t.version} (
        version integer primary key,
        applied_at timestamptz not null default now()
      )`,
    );
    const { rows } = await query(`select coalesce(max(version), 0) as version from ${t.version}`);
    const current = Number(rows[0]?.version ?? 0);
    if (current > migrations.length) {
      throw new StateweaverError(
        "SCHEMA_TOO_NEW",
        `The checkpoint tables "${t.prefix}*" are at schema version ${current}, but this stateweaver only knows up to ${migrations.length}. Upgrade stateweaver in this process, or point it at another table prefix.`,
      );
    }
    for (let version = current + 1; version <= migrations.length; version++) {
      for (const statement of migrations[version - 1]!(t)) await query(statement);
      await query(`insert into ${t.version} (version) values ($1)`, [version]);
    }
  });
}

function statements(t: Tables) {
  // Checkpoint row first (kind 0), then its writes in insertion order: one round trip.
  const tuple = (where: string) => `
    with c as (select id, payload from ${t.checkpoints} where ${where})
    select 0 as kind, 0::bigint as seq, c.payload from c
    union all
    select 1, w.seq, w.payload from ${t.writes} w join c on w.checkpoint_id = c.id
      where w.thread_id = $1 and w.ns = $2
    order by kind, seq`;
  // A checkpoint write is ONE autocommitted statement: the head-row claim or advance in a
  // data-modifying CTE, and the checkpoint insert selecting from it. The insert writes a row
  // only when the head row was claimed/advanced (`head` returned one), so the statement's
  // row count is 1 on success and 0 when `expectedLatestId` was not the latest. A unique
  // violation in the insert aborts the whole statement, head change included.
  const insertCheckpointFrom = `insert into ${t.checkpoints}
      (thread_id, ns, id, parent_id, step, source, created_at, payload)
      select $1, $2, $3, $4::text, $5::integer, $6::text, $7::timestamptz, $8::text from head`;
  return {
    // ON CONFLICT DO NOTHING waits for a concurrent claim of the same (thread, ns) to end:
    // if it commits, this one claims nothing; only one first checkpoint of a thread wins.
    claimAndInsert: `with head as (
        insert into ${t.threads} (thread_id, ns, latest_id) values ($1, $2, $3)
        on conflict do nothing
        returning 1)
      ${insertCheckpointFrom}`,
    // Under READ COMMITTED an UPDATE blocked on the head row's lock re-evaluates its WHERE
    // against the row the other writer committed, so of two writers expecting the same
    // latest exactly one matches. No head row (new or deleted thread): nothing matches.
    advanceAndInsert: `with head as (
        update ${t.threads} set latest_id = $3
        where thread_id = $1 and ns = $2 and latest_id = $9
        returning 1)
      ${insertCheckpointFrom}`,
    latestId: `select latest_id from ${t.threads} where thread_id = $1 and ns = $2`,
    upsertWrite: `insert into ${t.writes} (thread_id, ns, checkpoint_id, task_id, node, payload)
      values ($1, $2, $3, $4, $5, $6)
      on conflict (thread_id, ns, checkpoint_id, task_id)
      do update set node = excluded.node, payload = excluded.payload`,
    latestTuple: tuple("thread_id = $1 and ns = $2 order by seq desc limit 1"),
    tupleById: tuple("thread_id = $1 and ns = $2 and id = $3"),
    list: `select payload from ${t.checkpoints}
      where thread_id = $1 and ns = $2
        and ($3::text is null
          or seq < (select seq from ${t.checkpoints} where thread_id = $1 and ns = $2 and id = $3))
      order by seq desc
      limit $4`,
    // Inserted only while the thread's latest top-level checkpoint is the one expected
    // (none: no head row); an existing claim is taken over only once it has expired.
    claim: `insert into ${t.claims} (thread_id, run_id, expires_at)
      select $1, $2, now() + $4::integer * interval '1 millisecond'
      where coalesce((select latest_id from ${t.threads} where thread_id = $1 and ns = ''), '')
        = coalesce($3::text, '')
      on conflict (thread_id) do update
        set run_id = excluded.run_id, expires_at = excluded.expires_at
        where ${t.claims}.expires_at <= now()`,
    renewClaim: `insert into ${t.claims} (thread_id, run_id, expires_at)
      values ($1, $2, now() + $3::integer * interval '1 millisecond')
      on conflict (thread_id) do update
        set run_id = excluded.run_id, expires_at = excluded.expires_at
        where ${t.claims}.run_id = excluded.run_id or ${t.claims}.expires_at <= now()`,
    liveClaim: `select 1 from ${t.claims} where thread_id = $1 and expires_at > now()`,
    releaseClaim: `delete from ${t.claims} where thread_id = $1 and run_id = $2`,
    deleteClaim: `delete from ${t.claims} where thread_id = $1`,
    deleteWrites: `delete from ${t.writes} where thread_id = $1`,
    deleteCheckpoints: `delete from ${t.checkpoints} where thread_id = $1`,
    deleteThreads: `delete from ${t.threads} where thread_id = $1`,
  };
}

const UNIQUE_VIOLATION = "23505";
const FOREIGN_KEY_VIOLATION = "23503";

function sqlState(error: unknown): unknown {
  return (error as { code?: unknown } | null)?.code;
}

/**
 * A `Checkpointer` over PostgreSQL SQL. Subclasses say how to connect; the first call
 * connects and creates or migrates the tables, later calls reuse that connection.
 */
export abstract class SqlCheckpointer implements Checkpointer {
  readonly #tables: Tables;
  readonly #sql: ReturnType<typeof statements>;
  #driver: Promise<SqlDriver> | undefined;
  #closed = false;

  constructor(tablePrefix: string = DEFAULT_TABLE_PREFIX) {
    this.#tables = tables(tablePrefix);
    this.#sql = statements(this.#tables);
  }

  /** Opens the connection (pool, embedded database…) the store will use. */
  protected abstract connect(): Promise<SqlDriver>;
  /** Releases what `connect` opened, if this store owns it. */
  protected abstract disconnect(): Promise<void>;

  #ready(): Promise<SqlDriver> {
    if (this.#closed) {
      throw new StateweaverError(
        "CHECKPOINTER_CLOSED",
        `This ${this.constructor.name} was closed; create a new one to keep using the database.`,
      );
    }
    if (this.#driver) return this.#driver;
    const starting = this.connect().then(async (driver) => {
      await migrate(driver, this.#tables);
      return driver;
    });
    // A failed start (database down, bad URL) is retried by the next call instead of sticking.
    starting.catch(() => {
      if (this.#driver === starting) this.#driver = undefined;
    });
    this.#driver = starting;
    return starting;
  }

  async put(checkpoint: Checkpoint, options: PutOptions): Promise<void> {
    const payload = JSON.stringify(checkpoint);
    const { threadId, ns, id, metadata } = checkpoint;
    const expected = options.expectedLatestId;
    const sql = this.#sql;
    const driver = await this.#ready();
    const params = [
      threadId,
      ns,
      id,
      checkpoint.parentId,
      typeof metadata?.step === "number" ? metadata.step : null,
      typeof metadata?.source === "string" ? metadata.source : null,
      checkpoint.createdAt,
      payload,
    ];
    const query = driver.queryPrepared ?? driver.query;
    let written: number;
    try {
      written =
        expected === null
          ? (await query(sql.claimAndInsert, params)).rowCount
          : (await query(sql.advanceAndInsert, [...params, expected])).rowCount;
    } catch (error) {
      if (sqlState(error) !== UNIQUE_VIOLATION) throw error;
      throw new StateweaverError(
        "DUPLICATE_CHECKPOINT",
        `Thread "${threadId}" already has a checkpoint with id ${id}; give every checkpoint a fresh id from checkpointId().`,
        { cause: error },
      );
    }
    if (written !== 1) {
      // Failure path only: read what the latest is, for the error.
      const { rows } = await driver.query(sql.latestId, [threadId, ns]);
      const actual = (rows[0]?.latest_id as string | undefined) ?? null;
      throw new ConcurrentUpdateError(threadId, ns, expected, actual);
    }
  }

  async putWrites(
    threadId: string,
    ns: string,
    checkpointId: string,
    write: PendingWrite,
  ): Promise<void> {
    const payload = JSON.stringify(write);
    const driver = await this.#ready();
    try {
      await (driver.queryPrepared ?? driver.query)(this.#sql.upsertWrite, [
        threadId,
        ns,
        checkpointId,
        write.taskId,
        write.node,
        payload,
      ]);
    } catch (error) {
      if (sqlState(error) !== FOREIGN_KEY_VIOLATION) throw error;
      throw new StateweaverError(
        "CHECKPOINT_NOT_FOUND",
        `Cannot store writes of task "${write.taskId}": thread "${threadId}"${ns ? ` (namespace "${ns}")` : ""} has no checkpoint ${checkpointId}. Put the checkpoint first, or check that it was not deleted.`,
        { cause: error },
      );
    }
  }

  async getLatest(threadId: string, ns = ""): Promise<CheckpointTuple | undefined> {
    const driver = await this.#ready();
    const query = driver.queryPrepared ?? driver.query;
    return toTuple(await query(this.#sql.latestTuple, [threadId, ns]));
  }

  async get(threadId: string, ns: string, id: string): Promise<CheckpointTuple | undefined> {
    const driver = await this.#ready();
    const query = driver.queryPrepared ?? driver.query;
    return toTuple(await query(this.#sql.tupleById, [threadId, ns, id]));
  }

  async list(threadId: string, options: ListOptions = {}): Promise<Checkpoint[]> {
    const driver = await this.#ready();
    const { rows } = await driver.query(this.#sql.list, [
      threadId,
      options.ns ?? "",
      options.before ?? null,
      options.limit ?? null,
    ]);
    return rows.map((row) => JSON.parse(row.payload as string) as Checkpoint);
  }

  async claimThread(threadId: string, claim: ThreadClaim): Promise<void> {
    const sql = this.#sql;
    const driver = await this.#ready();
    const { rowCount } = await (driver.queryPrepared ?? driver.query)(sql.claim, [
      threadId,
      claim.runId,
      claim.expectedLatestId,
      Math.ceil(claim.ttlMs),
    ]);
    if (rowCount === 1) return;
    // Failure path only: say why.
    const { rows } = await driver.query(sql.latestId, [threadId, ""]);
    const actual = (rows[0]?.latest_id as string | undefined) ?? null;
    if ((await driver.query(sql.liveClaim, [threadId])).rows.length > 0) {
      throw new ThreadBusyError(threadId, actual);
    }
    throw new ConcurrentUpdateError(threadId, "", claim.expectedLatestId, actual);
  }

  async renewThreadClaim(threadId: string, runId: string, ttlMs: number): Promise<void> {
    const driver = await this.#ready();
    const { rowCount } = await driver.query(this.#sql.renewClaim, [
      threadId,
      runId,
      Math.ceil(ttlMs),
    ]);
    if (rowCount !== 1) throw new ThreadBusyError(threadId, null);
  }

  async releaseThread(threadId: string, runId: string): Promise<void> {
    const driver = await this.#ready();
    await (driver.queryPrepared ?? driver.query)(this.#sql.releaseClaim, [threadId, runId]);
  }

  async deleteThread(threadId: string): Promise<void> {
    const sql = this.#sql;
    const driver = await this.#ready();
    await driver.transaction(async (query) => {
      // Head rows first: that locks them, so a concurrent put (which must update or claim
      // a head row) waits for this delete and then fails or starts a fresh thread, instead
      // of slipping a checkpoint in between and leaving it without a head.
      await query(sql.deleteThreads, [threadId]);
      await query(sql.deleteWrites, [threadId]);
      await query(sql.deleteCheckpoints, [threadId]);
      await query(sql.deleteClaim, [threadId]);
    });
  }

  /** Closes the connection if this store opened it. Later calls throw. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const starting = this.#driver;
    this.#driver = undefined;
    // Let an in-flight start finish so what it opened is closed too.
    if (starting) await starting.catch(() => undefined);
    await this.disconnect();
  }
}

function toTuple(result: { rows: Array<Record<string, unknown>> }): CheckpointTuple | undefined {
  const [first, ...writes] = result.rows;
  if (!first) return undefined;
  return {
    checkpoint: JSON.parse(first.payload as string) as Checkpoint,
    pendingWrites: writes.map((row) => JSON.parse(row.payload as string) as PendingWrite),
  };
}
