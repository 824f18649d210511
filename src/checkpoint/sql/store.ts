// The SQL checkpointer: its connection and migrations, checkpoint writes and reads; claims, thread records and retention are delegated to their own files.
//
// Lock order. Every call that locks more than one row of a thread takes them in this order:
//   1. the thread's top-level head row (threads, ns = ''), which serves as the thread's lock;
//   2. its claim row (claims);
//   3. the rest: subgraph head rows (by namespace), checkpoints, pending writes, channel values.
// A call that locks several threads (pruneThreads) takes every head row by thread id, then
// every claim by thread id. Two calls on one thread then queue on its head row instead of
// each holding a row the other waits for, which PostgreSQL settles by killing one of them
// with `deadlock detected`. The head row comes first because the hot path's statements
// must read or advance it before they may touch the claim (the claim is taken only at the
// latest checkpoint the head names); the rare calls (rewind, prune, copy, delete, a failed
// run's release) lock it first at no cost in statements. Claims lock it `for no key update`,
// not `for share`: two claims sharing it, one then updating it (claimThread's metadata),
// would wait for each other. Call by call (statements.ts):
//   claimThread, claimLatest        head (for no key update) → claim → [head: metadata]
//   put, putAndRelease              head (update) → [claim, deleted] → new checkpoint, values
//   putPause                        head (update; top level only) → claim → writes
//                                   (their checkpoint's key share, at the statement's end)
//   releaseThread                   claim only; with an error, head → claim → head update
//   putWrites, renewThreadClaim     one row each (a write, and its checkpoint's key share; the claim)
//   createThread, updateThreadMetadata, patchCheckpointMetadata  one row each
//   prune, rewindThread, copyThread hold: head (for update) → claim; then subgraph heads
//                                   (by namespace) → checkpoints, writes, values
//   pruneThreads                    the batch's heads (by id) → their claims (by id) → the rest
//   deleteThread                    heads (top level first) → claim → the rest
// A thread with no head row yet (a claim taken before its first checkpoint) has nothing to
// take first, so a hold of one takes only its claim, and pruneThreads holds only threads
// whose head row it locked. (Left open: a rewind of such a thread that meets a
// first checkpoint put without a claim, then a claim, between its statements.) The protocol
// expects READ COMMITTED (PostgreSQL's default): should the server still end a call over a
// lock conflict (that case, a session of the user's own, or a stricter default isolation),
// the call fails with ThreadBusyError (lock-conflict.ts).
// PGlite has one connection, whose calls run one after another: there the order changes nothing.
import {
  CheckpointerClosedError,
  CheckpointNotFoundError,
  ConcurrentUpdateError,
  DuplicateCheckpointError,
  ThreadBusyError,
} from "../../errors/index.js";
import type {
  Checkpoint,
  Checkpointer,
  CheckpointMetadata,
  CheckpointTuple,
  InterruptRecord,
  LatestClaim,
  ListOptions,
  PendingWrite,
  PruneOptions,
  PruneThreadsOptions,
  PutOptions,
  RewindOptions,
  SearchThreadsOptions,
  ThreadClaim,
  ThreadPage,
  ThreadRecord,
  ThreadRelease,
} from "../checkpointer.js";
import {
  assertListArguments,
  assertNamespace,
  assertPutIds,
  assertStoreId,
  assertWriteIds,
} from "../limits.js";
import { readStoredWrite } from "../read-stored.js";
import { stringifyStored } from "../serde.js";
import { compactWrites, KnownValues } from "../stored-values.js";
import { assertThreadMetadata, storedStatusOf } from "../thread-records.js";
import * as claims from "./claims.js";
import type { Query, SqlDriver } from "./driver.js";
import { busyOnLockConflict, isLockConflict } from "./lock-conflict.js";
import { type MigrationOptions, migrate } from "./migrations.js";
import * as retention from "./retention.js";
import { assemblyOf, columnsOf, INCOMPLETE, readRow, toTuple, versionsOf } from "./rows.js";
import { FOREIGN_KEY_VIOLATION, sqlState, UNIQUE_VIOLATION } from "./sql-state.js";
import {
  DEFAULT_TABLE_PREFIX,
  type Statements,
  statements,
  type Tables,
  tables,
} from "./statements.js";
import type { StoreParts } from "./store-parts.js";
import * as threads from "./threads.js";

/** The row kind `claimLatest`'s statement adds when it took the claim (see statements.ts). */
const CLAIMED = 3;

/** How often `claimLatest` runs again when it met a checkpoint committed after it began. */
const CLAIM_ATTEMPTS = 3;

/**
 * A `Checkpointer` over PostgreSQL SQL. Subclasses say how to connect; the first call
 * connects and creates or migrates the tables, later calls reuse that connection.
 *
 * Every call a run makes on its hot path is one statement, one round trip: `put` (the
 * head-row check, the thread record and the checkpoint insert in one statement, no
 * transaction), `putWrites`, `getLatest` and `get` (the checkpoint and its writes in one
 * result), `claimLatest` (the claim and that read together), `claimThread`, `releaseThread`
 * and `putAndRelease`.
 */
export abstract class SqlCheckpointer implements Checkpointer {
  readonly #tables: Tables;
  readonly #sql: Statements;
  #driver: Promise<SqlDriver> | undefined;
  #closed = false;
  /** The last checkpoint written or read per (thread, ns): the next one stores what changed. */
  readonly #known = new KnownValues();
  /** What the delegated operations (claims, threads, retention) use of this store. */
  readonly #parts: StoreParts;

  /** See `Checkpointer.claimTtlMs`. */
  readonly claimTtlMs: number | undefined;

  constructor(tablePrefix: string = DEFAULT_TABLE_PREFIX, options: { claimTtlMs?: number } = {}) {
    this.#tables = tables(tablePrefix);
    this.#sql = statements(this.#tables);
    this.claimTtlMs = claims.checkedClaimTtl(options.claimTtlMs);
    this.#parts = {
      tables: this.#tables,
      sql: this.#sql,
      known: this.#known,
      ready: () => this.#ready(),
      afterDelete: (rows) => this.afterDelete(rows),
    };
  }

  /** What this store's database gets of the migrations (see `MigrationOptions`). */
  protected get migrationOptions(): MigrationOptions {
    return { threadChanges: true };
  }

  /** Opens the connection (pool, embedded database…) the store will use. */
  protected abstract connect(): Promise<SqlDriver>;
  /** Releases what `connect` opened, if this store owns it. */
  protected abstract disconnect(): Promise<void>;

  /** The prefix of this store's tables (`stateweaver_` unless given). */
  get tablePrefix(): string {
    return this.#tables.prefix;
  }

  /**
   * This store's connection, opened and migrated on first use: for layers that keep tables
   * of their own in the same database (the long-term store), so one PGlite directory or one
   * pool serves both.
   */
  sharedDriver(): Promise<SqlDriver> {
    return this.#ready();
  }

  #ready(): Promise<SqlDriver> {
    if (this.#closed) {
      throw new CheckpointerClosedError(this.constructor.name);
    }
    if (this.#driver) return this.#driver;
    const starting = this.connect().then(async (driver) => {
      await migrate(driver, this.#tables, this.migrationOptions);
      return driver;
    });
    // A failed start (database down, bad URL) is retried by the next call instead of sticking.
    starting.catch(() => {
      if (this.#driver === starting) this.#driver = undefined;
    });
    this.#driver = starting;
    return starting;
  }

  put(checkpoint: Checkpoint, options: PutOptions): Promise<void> {
    return this.#put(checkpoint, options, undefined);
  }

  /** See `Checkpointer.putAndRelease`: the put's statement also deletes the run's claim. */
  putAndRelease(checkpoint: Checkpoint, options: PutOptions, runId: string): Promise<void> {
    return this.#put(checkpoint, options, runId);
  }

  async #put(
    checkpoint: Checkpoint,
    options: PutOptions,
    release: string | undefined,
  ): Promise<void> {
    assertPutIds(checkpoint, options);
    const thread = options.thread;
    if (thread?.graph !== undefined) assertStoreId("thread.graph", thread.graph);
    if (thread?.metadata !== undefined) assertThreadMetadata("thread.metadata", thread.metadata);
    const { threadId, ns, id, metadata } = checkpoint;
    const top = ns === "";
    const expected = options.expectedLatestId;
    // A new thread's first checkpoint is stored whole, whatever is remembered of the id it
    // follows (the thread may have been deleted by another process).
    const encoded = this.#known.encode(checkpoint, expected !== null);
    // Small values stay in the row; the others hold their key's place as null, so the
    // checkpoint reads back in its key order.
    const payload = stringifyStored(
      {
        ...checkpoint,
        values: encoded.inline,
        metadata: compactWrites(checkpoint, encoded.stored),
      },
      "checkpoint",
    );
    const channels = Object.keys(encoded.versions);
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
      // The thread record: only a top-level checkpoint is the thread's latest.
      (top && thread?.graph) || null,
      top ? storedStatusOf(checkpoint) : null,
      top ? JSON.stringify(checkpoint.interrupts) : null,
      top && thread?.metadata ? JSON.stringify(thread.metadata) : null,
      channels,
      channels.map((channel) => encoded.versions[channel]),
      ...columnsOf(encoded.stored),
    ];
    const query = driver.queryPrepared ?? driver.query;
    // A checkpoint's shape picks the statement; the claim's run id, if it goes too, comes last.
    const [text, shaped] =
      expected === null
        ? [sql.claimAndInsert, params]
        : checkpoint.parentId === expected
          ? [release ? sql.advanceAndInsertReleasing : sql.advanceAndInsert, [...params, expected]]
          : [
              release ? sql.forkAndInsertReleasing : sql.forkAndInsert,
              [...params, expected, ...encoded.kept],
            ];
    // A thread's first checkpoint is released on its own (see statements.ts, `releasing`).
    if (release !== undefined && expected !== null) shaped.push(release);
    let written: number;
    try {
      written = (await query(text, shaped)).rowCount;
    } catch (error) {
      if (isLockConflict(error)) throw new ThreadBusyError(threadId, null, { cause: error });
      if (sqlState(error) !== UNIQUE_VIOLATION) throw error;
      throw new DuplicateCheckpointError(threadId, ns, id, { cause: error });
    }
    if (written !== 1) {
      // Failure path only: read what the latest is, for the error.
      const { rows } = await driver.query(sql.latestId, [threadId, ns]);
      const actual = (rows[0]?.latest_id as string | undefined) ?? null;
      if (actual === expected && checkpoint.parentId !== expected && encoded.kept[0].length > 0) {
        // The versions it kept are gone (pruned elsewhere): store it whole instead.
        this.#known.forget(threadId);
        return this.#put(checkpoint, options, release);
      }
      throw new ConcurrentUpdateError(threadId, ns, expected, actual);
    }
    this.#known.remember(checkpoint, encoded.versions, encoded.bases);
    if (release !== undefined && expected === null) await this.releaseThread(threadId, release);
  }

  async putWrites(
    threadId: string,
    ns: string,
    checkpointId: string,
    write: PendingWrite,
  ): Promise<void> {
    assertWriteIds(threadId, ns, checkpointId, write);
    const payload = stringifyStored(write, "pending write");
    const driver = await this.#ready();
    try {
      await (driver.queryPrepared ?? driver.query)(this.#sql.upsertWrite, [
        threadId,
        ns,
        checkpointId,
        write.taskId,
        write.node,
        payload,
        write.runId ?? null,
      ]);
    } catch (error) {
      if (isLockConflict(error)) throw new ThreadBusyError(threadId, null, { cause: error });
      if (sqlState(error) !== FOREIGN_KEY_VIOLATION) throw error;
      throw new CheckpointNotFoundError(threadId, ns, checkpointId, write.taskId, { cause: error });
    }
  }

  async putPause(
    threadId: string,
    ns: string,
    checkpointId: string,
    pause: { writes: PendingWrite[]; interrupts: InterruptRecord[] },
    releasing?: string,
  ): Promise<void> {
    for (const write of pause.writes) assertWriteIds(threadId, ns, checkpointId, write);
    const { writes } = pause;
    const payloads = writes.map((w) => stringifyStored(w, "pending write"));
    const interrupts = stringifyStored(pause.interrupts, "interrupts");
    const driver = await this.#ready();
    try {
      await (driver.queryPrepared ?? driver.query)(this.#sql.putPause, [
        threadId,
        ns,
        checkpointId,
        writes.map((w) => w.taskId),
        writes.map((w) => w.node),
        payloads,
        writes.map((w) => w.runId ?? null),
        interrupts,
        releasing ?? null,
      ]);
    } catch (error) {
      if (isLockConflict(error)) throw new ThreadBusyError(threadId, null, { cause: error });
      if (sqlState(error) !== FOREIGN_KEY_VIOLATION) throw error;
      const taskId = writes[0]?.taskId ?? "";
      throw new CheckpointNotFoundError(threadId, ns, checkpointId, taskId, { cause: error });
    }
  }

  async listWrites(
    threadId: string,
    ns: string,
    checkpointIds: readonly string[],
  ): Promise<Map<string, PendingWrite[]>> {
    assertStoreId("threadId", threadId);
    assertNamespace("ns", ns);
    const out = new Map<string, PendingWrite[]>();
    if (checkpointIds.length === 0) return out;
    const driver = await this.#ready();
    const { rows } = await driver.query(this.#sql.writesOf, [threadId, ns, [...checkpointIds]]);
    for (const row of rows) {
      const id = row.checkpoint_id as string;
      const at = { threadId, ns, checkpointId: id, taskId: row.task_id as string };
      const write = readStoredWrite(row.payload, at);
      const list = out.get(id);
      if (list) list.push(write);
      else out.set(id, [write]);
    }
    return out;
  }

  async getLatest(threadId: string, ns = ""): Promise<CheckpointTuple | undefined> {
    assertStoreId("threadId", threadId);
    assertNamespace("ns", ns);
    const { latestTuple, latestTupleWalk } = this.#sql;
    return this.#readTuple([latestTuple, latestTupleWalk], [threadId, ns]);
  }

  async get(threadId: string, ns: string, id: string): Promise<CheckpointTuple | undefined> {
    assertStoreId("threadId", threadId);
    assertNamespace("ns", ns);
    assertStoreId("id", id);
    const { tupleById, tupleByIdWalk } = this.#sql;
    return this.#readTuple([tupleById, tupleByIdWalk], [threadId, ns, id]);
  }

  /** One checkpoint with its writes and values; remembered, so the next put stores what changed. */
  async #readTuple(
    [range, walk]: [string, string],
    params: [string, string, ...string[]],
  ): Promise<CheckpointTuple | undefined> {
    const driver = await this.#ready();
    const query = driver.queryPrepared ?? driver.query;
    return this.#tupleOf(await query(range, params), query, walk, params);
  }

  /** A tuple read (`rows`), completed by `walk` if a chain's link fell outside its range. */
  async #tupleOf(
    rows: { rows: Array<Record<string, unknown>> },
    query: Query,
    walk: string,
    params: [string, string, ...string[]],
  ): Promise<CheckpointTuple | undefined> {
    const [threadId, ns] = params;
    let read = toTuple(rows, threadId, ns, false);
    // A link outside its chain's range (see statements.ts): follow the chains link by link.
    if (read === INCOMPLETE) read = toTuple(await query(walk, params), threadId, ns, true);
    if (!read || read === INCOMPLETE) return undefined;
    this.#known.remember(read.tuple.checkpoint, read.versions, read.bases);
    return read.tuple;
  }

  /**
   * See `Checkpointer.claimLatest`: the claim and the read of the checkpoint it holds the
   * thread at, one statement. Only a refusal reads why: busy, or the statement met a run's
   * last checkpoint committed after it began (then it runs again, seeing that checkpoint).
   */
  async claimLatest(threadId: string, claim: LatestClaim): Promise<CheckpointTuple | undefined> {
    assertStoreId("threadId", threadId);
    const sql = this.#sql;
    const driver = await this.#ready();
    const query = driver.queryPrepared ?? driver.query;
    const params = [threadId, "", claim.runId, Math.ceil(claim.ttlMs)];
    for (let attempt = 1; ; attempt++) {
      const read = await query(sql.claimLatest, params).catch(busyOnLockConflict(threadId));
      if (read.rows.at(-1)?.kind === CLAIMED) {
        const id = read.rows[0]?.kind === 0 ? (read.rows[0].key as string) : undefined;
        if (id === undefined) return undefined;
        return this.#tupleOf(read, query, sql.tupleByIdWalk, [threadId, "", id]);
      }
      const { rows } = await driver.query(sql.latestId, [threadId, ""]);
      const actual = (rows[0]?.latest_id as string | undefined) || null;
      if ((await driver.query(sql.liveClaim, [threadId])).rows.length > 0) {
        throw new ThreadBusyError(threadId, actual);
      }
      // The head names a checkpoint that is not there: only a passing race, so a few tries.
      if (attempt >= CLAIM_ATTEMPTS) throw new ConcurrentUpdateError(threadId, "", null, actual);
    }
  }

  async list(threadId: string, options: ListOptions = {}): Promise<Checkpoint[]> {
    assertListArguments(threadId, options);
    const ns = options.ns ?? "";
    const params = [threadId, ns, options.before ?? null, options.limit ?? null];
    const driver = await this.#ready();
    const page = (rows: Array<Record<string, unknown>>) => ({
      checkpoints: rows.filter((row) => row.kind === 0),
      assembly: assemblyOf(
        rows.filter((row) => row.kind === 2),
        threadId,
        ns,
      ),
    });
    let { checkpoints, assembly } = page((await driver.query(this.#sql.list, params)).rows);
    // Each row's versions are parsed once, for the completeness check and the read.
    let versions = checkpoints.map((row) => versionsOf(row, threadId, ns));
    if (versions.some((v) => v && !assembly.complete(v))) {
      ({ checkpoints, assembly } = page((await driver.query(this.#sql.listWalk, params)).rows));
      versions = checkpoints.map((row) => versionsOf(row, threadId, ns));
    }
    return checkpoints.map((row, i) => readRow(row, versions[i], threadId, ns, assembly));
  }

  claimThread(threadId: string, claim: ThreadClaim): Promise<void> {
    return claims.claimThread(this.#parts, threadId, claim);
  }

  renewThreadClaim(threadId: string, runId: string, ttlMs: number): Promise<void> {
    return claims.renewThreadClaim(this.#parts, threadId, runId, ttlMs);
  }

  releaseThread(threadId: string, runId: string, release?: ThreadRelease): Promise<void> {
    return claims.releaseThread(this.#parts, threadId, runId, release);
  }

  getThread(threadId: string): Promise<ThreadRecord | undefined> {
    return threads.getThread(this.#parts, threadId);
  }

  latestCheckpointId(threadId: string): Promise<string | undefined> {
    return threads.latestCheckpointId(this.#parts, threadId);
  }

  createThread(threadId: string, metadata: Record<string, unknown>): Promise<boolean> {
    return threads.createThread(this.#parts, threadId, metadata);
  }

  updateThreadMetadata(
    threadId: string,
    metadata: Record<string, unknown>,
  ): Promise<ThreadRecord | undefined> {
    return threads.updateThreadMetadata(this.#parts, threadId, metadata);
  }

  async patchCheckpointMetadata(
    threadId: string,
    ns: string,
    checkpointId: string,
    metadata: Record<string, unknown>,
  ): Promise<CheckpointMetadata | undefined> {
    if (!(await threads.patchCheckpointMetadata(this.#parts, threadId, ns, checkpointId, metadata)))
      return undefined;
    // Read back whole: the stored metadata keeps what each node wrote in a compact form.
    return (await this.get(threadId, ns, checkpointId))?.checkpoint.metadata;
  }

  searchThreads(options?: SearchThreadsOptions): Promise<ThreadPage> {
    return threads.searchThreads(this.#parts, options);
  }

  deleteThread(threadId: string): Promise<void> {
    return threads.deleteThread(this.#parts, threadId);
  }

  prune(threadId: string, options: PruneOptions): Promise<number> {
    return retention.prune(this.#parts, threadId, options);
  }

  rewindThread(
    threadId: string,
    toCheckpointId: string | null,
    options?: RewindOptions,
  ): Promise<number> {
    return retention.rewindThread(this.#parts, threadId, toCheckpointId, options);
  }

  pruneThreads(options: PruneThreadsOptions): Promise<number> {
    return retention.pruneThreads(this.#parts, options);
  }

  copyThread(from: string, to: string): Promise<void> {
    return retention.copyThread(this.#parts, from, to);
  }

  /**
   * Called after `deleteThread`, `prune`, `pruneThreads` or `rewindThread` removed `rows` rows. A database without autovacuum
   * (PGlite) uses it to decide when to run `vacuumStatement`; PostgreSQL needs nothing.
   */
  protected afterDelete(_rows: number): void {}

  /** `VACUUM` of this store's tables; must run outside a transaction. */
  protected get vacuumStatement(): string {
    return this.#sql.vacuum;
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
