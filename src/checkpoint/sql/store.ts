import { randomUUID } from "node:crypto";
import {
  CheckpointerClosedError,
  CheckpointNotFoundError,
  ConcurrentUpdateError,
  DuplicateCheckpointError,
  InvalidConfigError,
  RewindTargetNotFoundError,
  ThreadBusyError,
  ThreadExistsError,
  ThreadNotFoundError,
} from "../../errors/index.js";
import type {
  Checkpoint,
  Checkpointer,
  CheckpointTuple,
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
  ThreadStatus,
} from "../checkpointer.js";
import {
  assertCopyArguments,
  assertListArguments,
  assertNamespace,
  assertPutIds,
  assertRewindArguments,
  assertStoreId,
  assertWriteIds,
  readPruneArguments,
  readPruneThreadsOptions,
} from "../limits.js";
import {
  corruptValue,
  readStoredCheckpoint,
  readStoredValue,
  readStoredVersions,
  readStoredWrite,
  type StoredRow,
} from "../read-stored.js";
import { planPrune } from "../retention.js";
import { stringifyStored } from "../serde.js";
import {
  type ChannelVersions,
  KnownValues,
  type StoredValue,
  ValueAssembly,
} from "../stored-values.js";
import {
  assertThreadMetadata,
  cursorAfter,
  readSearchOptions,
  storedStatusOf,
} from "../thread-records.js";
import type { Query, SqlDriver } from "./driver.js";
import { type MigrationOptions, migrate } from "./migrations.js";
import {
  DEFAULT_TABLE_PREFIX,
  type Statements,
  searchThreadsQuery,
  statements,
  type Tables,
  tables,
} from "./statements.js";

const UNIQUE_VIOLATION = "23505";
/** Threads per `pruneThreads` transaction: short transactions, few round trips. */
const PRUNE_THREADS_BATCH = 100;
/** Checkpoints `copyThread` reads and rewrites per round trip (bounds its memory). */
const COPY_BATCH = 200;
const FOREIGN_KEY_VIOLATION = "23503";

function sqlState(error: unknown): unknown {
  return (error as { code?: unknown } | null)?.code;
}

/**
 * A `Checkpointer` over PostgreSQL SQL. Subclasses say how to connect; the first call
 * connects and creates or migrates the tables, later calls reuse that connection.
 *
 * Every call a run makes on its hot path is one statement, one round trip: `put` (the
 * head-row check, the thread record and the checkpoint insert in one statement, no
 * transaction), `putWrites`, `getLatest` and `get` (the checkpoint and its writes in one
 * result), `claimThread` and `releaseThread`.
 */
export abstract class SqlCheckpointer implements Checkpointer {
  readonly #tables: Tables;
  readonly #sql: Statements;
  #driver: Promise<SqlDriver> | undefined;
  #closed = false;
  /** The last checkpoint written or read per (thread, ns): the next one stores what changed. */
  readonly #known = new KnownValues();

  /** See `Checkpointer.claimTtlMs`. */
  readonly claimTtlMs: number | undefined;

  constructor(tablePrefix: string = DEFAULT_TABLE_PREFIX, options: { claimTtlMs?: number } = {}) {
    this.#tables = tables(tablePrefix);
    this.#sql = statements(this.#tables);
    this.claimTtlMs = checkedClaimTtl(options.claimTtlMs);
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

  async put(checkpoint: Checkpoint, options: PutOptions): Promise<void> {
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
    const payload = stringifyStored({ ...checkpoint, values: encoded.inline }, "checkpoint");
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
    let written: number;
    try {
      written =
        expected === null
          ? (await query(sql.claimAndInsert, params)).rowCount
          : checkpoint.parentId === expected
            ? (await query(sql.advanceAndInsert, [...params, expected])).rowCount
            : (await query(sql.forkAndInsert, [...params, expected, ...encoded.kept])).rowCount;
    } catch (error) {
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
        return this.put(checkpoint, options);
      }
      throw new ConcurrentUpdateError(threadId, ns, expected, actual);
    }
    this.#known.remember(checkpoint, encoded.versions, encoded.bases);
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
      if (sqlState(error) !== FOREIGN_KEY_VIOLATION) throw error;
      throw new CheckpointNotFoundError(threadId, ns, checkpointId, write.taskId, { cause: error });
    }
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
    const [threadId, ns] = params;
    const driver = await this.#ready();
    const query = driver.queryPrepared ?? driver.query;
    let read = toTuple(await query(range, params), threadId, ns, false);
    // A link outside its chain's range (see statements.ts): follow the chains link by link.
    if (read === INCOMPLETE) read = toTuple(await query(walk, params), threadId, ns, true);
    if (!read || read === INCOMPLETE) return undefined;
    this.#known.remember(read.tuple.checkpoint, read.versions, read.bases);
    return read.tuple;
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

  async claimThread(threadId: string, claim: ThreadClaim): Promise<void> {
    assertStoreId("threadId", threadId);
    if (claim.metadata !== undefined) assertThreadMetadata("claim.metadata", claim.metadata);
    const sql = this.#sql;
    const driver = await this.#ready();
    const { rows: claimed } = await (driver.queryPrepared ?? driver.query)(sql.claim, [
      threadId,
      claim.runId,
      claim.expectedLatestId,
      Math.ceil(claim.ttlMs),
      claim.metadata ? JSON.stringify(claim.metadata) : null,
    ]);
    if (claimed.length === 1) return;
    // Failure path only: say why.
    const { rows } = await driver.query(sql.latestId, [threadId, ""]);
    const actual = (rows[0]?.latest_id as string | undefined) ?? null;
    if ((await driver.query(sql.liveClaim, [threadId])).rows.length > 0) {
      throw new ThreadBusyError(threadId, actual);
    }
    throw new ConcurrentUpdateError(threadId, "", claim.expectedLatestId, actual);
  }

  async renewThreadClaim(threadId: string, runId: string, ttlMs: number): Promise<void> {
    assertStoreId("threadId", threadId);
    const driver = await this.#ready();
    const { rowCount } = await driver.query(this.#sql.renewClaim, [
      threadId,
      runId,
      Math.ceil(ttlMs),
    ]);
    if (rowCount !== 1) throw new ThreadBusyError(threadId, null);
  }

  async releaseThread(threadId: string, runId: string, release?: ThreadRelease): Promise<void> {
    assertStoreId("threadId", threadId);
    const error = release?.error;
    const driver = await this.#ready();
    await (driver.queryPrepared ?? driver.query)(this.#sql.releaseClaim, [
      threadId,
      runId,
      error ? JSON.stringify({ name: String(error.name), message: String(error.message) }) : null,
    ]);
  }

  async getThread(threadId: string): Promise<ThreadRecord | undefined> {
    assertStoreId("threadId", threadId);
    const driver = await this.#ready();
    const { rows } = await driver.query(this.#sql.getThread, [threadId]);
    return rows[0] && toRecord(rows[0]);
  }

  async createThread(threadId: string, metadata: Record<string, unknown>): Promise<boolean> {
    assertStoreId("threadId", threadId);
    assertThreadMetadata("metadata", metadata);
    const driver = await this.#ready();
    const { rowCount } = await driver.query(this.#sql.createThread, [
      threadId,
      JSON.stringify(metadata),
    ]);
    return rowCount === 1;
  }

  async updateThreadMetadata(
    threadId: string,
    metadata: Record<string, unknown>,
  ): Promise<ThreadRecord | undefined> {
    assertStoreId("threadId", threadId);
    assertThreadMetadata("metadata", metadata);
    const driver = await this.#ready();
    const { rows } = await driver.query(this.#sql.updateThreadMetadata, [
      threadId,
      JSON.stringify(metadata),
    ]);
    return rows[0] && toRecord(rows[0]);
  }

  async searchThreads(options?: SearchThreadsOptions): Promise<ThreadPage> {
    const search = readSearchOptions(options);
    const driver = await this.#ready();
    const { text, params } = searchThreadsQuery(this.#tables, search);
    const { rows } = await driver.query(text, params);
    const threads = rows.slice(0, search.limit).map(toRecord);
    const more = rows.length > search.limit;
    return { threads, nextCursor: more ? cursorAfter(threads.at(-1)!) : null };
  }

  async deleteThread(threadId: string): Promise<void> {
    assertStoreId("threadId", threadId);
    const sql = this.#sql;
    const driver = await this.#ready();
    const rows = await driver.transaction(async (query) => {
      // Head rows first: that locks them, so a concurrent put (which must update or claim
      // a head row) waits for this delete and then fails or starts a fresh thread, instead
      // of slipping a checkpoint in between and leaving it without a head.
      const heads = await query(sql.deleteThreads, [threadId]);
      const writes = await query(sql.deleteWrites, [threadId]);
      const checkpoints = await query(sql.deleteCheckpoints, [threadId]);
      const values = await query(sql.deleteValues, [threadId]);
      await query(sql.deleteClaim, [threadId]);
      return heads.rowCount + writes.rowCount + checkpoints.rowCount + values.rowCount;
    });
    this.#known.forget(threadId);
    if (rows > 0) this.afterDelete(rows);
  }

  async prune(threadId: string, options: PruneOptions): Promise<number> {
    const keep = readPruneArguments(threadId, options);
    const sql = this.#sql;
    const driver = await this.#ready();
    const { checkpoints, rows } = await driver.transaction(async (query) => {
      const runId = await this.#hold(query, threadId);
      // Only metadata and links are planned from: the values are not assembled.
      const read = (row: Record<string, unknown>, ns: string) =>
        readStoredCheckpoint(row.payload, rowOf(row, threadId, ns), {});
      const top = (await query(sql.pruneTop, [threadId, keep])).rows.map((row) => read(row, ""));
      if (top.length === 0) {
        await query(sql.unhold, [[threadId], runId]);
        return { checkpoints: 0, rows: 0 };
      }
      const heads = (await query(sql.pruneNamespaceHeads, [threadId])).rows;
      const plan = planPrune(
        top,
        heads.map((row) => ({ ns: row.ns as string, latest: read(row, row.ns as string) })),
      );
      const kept = [...plan].flatMap(([ns, ids]) => [...ids].map((id) => [ns, id] as const));
      const pairs = [threadId, kept.map(([ns]) => ns), kept.map(([, id]) => id)];
      const writes = await query(sql.pruneWrites, pairs);
      const gone = await query(sql.pruneCheckpoints, pairs);
      const values = await query(sql.pruneValues, [threadId]);
      const namespaces = await query(sql.pruneNamespaces, [threadId, [...plan.keys()]]);
      await query(sql.unhold, [[threadId], runId]);
      return {
        checkpoints: gone.rowCount,
        rows: writes.rowCount + gone.rowCount + values.rowCount + namespaces.rowCount,
      };
    });
    this.#known.forget(threadId);
    if (rows > 0) this.afterDelete(rows);
    return checkpoints;
  }

  async rewindThread(
    threadId: string,
    toCheckpointId: string | null,
    options?: RewindOptions,
  ): Promise<number> {
    assertRewindArguments(threadId, toCheckpointId, options);
    const sql = this.#sql;
    const driver = await this.#ready();
    const { checkpoints, rows } = await driver.transaction(async (query) => {
      const runId = await this.#hold(query, threadId);
      await query(sql.lockHeads, [threadId]);
      // Seqs start at 1: a cut at 0 leaves nothing.
      let cut = "0";
      let head: Checkpoint | undefined;
      if (toCheckpointId !== null) {
        const target = (await query(sql.rewindTarget, [threadId, toCheckpointId])).rows[0];
        // Thrown inside the transaction: it rolls back, hold included.
        if (!target) throw new RewindTargetNotFoundError(threadId, toCheckpointId);
        cut = target.seq as string;
        // Only its interrupts are read: the values are not assembled.
        head = readStoredCheckpoint(target.payload, rowOf(target, threadId, ""), {});
      }
      const writes = await query(sql.rewindWrites, [threadId, cut]);
      const values = await query(sql.rewindValues, [threadId, cut]);
      const gone = await query(sql.rewindCheckpoints, [threadId, cut]);
      const own =
        options?.runId === undefined
          ? { rowCount: 0 }
          : await query(sql.rewindRunWrites, [threadId, options.runId]);
      await query(sql.rewindNamespaceHeads, [threadId]);
      const heads = await query(sql.rewindEmptyHeads, [threadId]);
      if (head) {
        await query(sql.rewindRecord, [
          threadId,
          head.id,
          storedStatusOf(head),
          JSON.stringify(head.interrupts),
        ]);
      }
      await query(sql.unhold, [[threadId], runId]);
      return {
        checkpoints: gone.rowCount,
        rows: writes.rowCount + values.rowCount + gone.rowCount + own.rowCount + heads.rowCount,
      };
    });
    this.#known.forget(threadId);
    if (rows > 0) this.afterDelete(rows);
    return checkpoints;
  }

  async pruneThreads(options: PruneThreadsOptions): Promise<number> {
    const { idleBefore, statuses, graph } = readPruneThreadsOptions(options);
    const sql = this.#sql;
    const driver = await this.#ready();
    let deleted = 0;
    for (const status of statuses) {
      // Keyset through threads_by_status: threads skipped (held, or written meanwhile) are
      // passed, never read again, so the walk ends.
      let after: [string, string] = ["-infinity", ""];
      for (;;) {
        const { rows: batch } = await driver.query(sql.staleThreads, [
          status,
          idleBefore,
          ...after,
          PRUNE_THREADS_BATCH,
          graph ?? null,
        ]);
        if (batch.length === 0) break;
        const last = batch.at(-1)!;
        after = [last.at as string, last.thread_id as string];
        const ids = batch.map((row) => row.thread_id as string);
        const { threads, rows } = await driver.transaction(async (query) => {
          const runId = randomUUID();
          const held = (await query(sql.hold, [ids, runId])).rows.map((r) => r.thread_id);
          const heads = await query(sql.deleteStaleHeads, [held, statuses, idleBefore]);
          const doomed = heads.rows.map((r) => r.thread_id as string);
          const subgraphHeads = await query(sql.deleteThreadsRows, [doomed]);
          const writes = await query(sql.deleteThreadsWrites, [doomed]);
          const checkpoints = await query(sql.deleteThreadsCheckpoints, [doomed]);
          const values = await query(sql.deleteThreadsValues, [doomed]);
          await query(sql.unhold, [held, runId]);
          for (const id of doomed) this.#known.forget(id);
          const rows = heads.rowCount + subgraphHeads.rowCount + writes.rowCount;
          return { threads: doomed.length, rows: rows + checkpoints.rowCount + values.rowCount };
        });
        deleted += threads;
        if (rows > 0) this.afterDelete(rows);
        if (batch.length < PRUNE_THREADS_BATCH) break;
      }
    }
    return deleted;
  }

  async copyThread(from: string, to: string): Promise<void> {
    assertCopyArguments(from, to);
    const sql = this.#sql;
    const driver = await this.#ready();
    await driver.transaction(async (query) => {
      if ((await query(sql.threadExists, [from, false])).rows.length === 0) {
        throw new ThreadNotFoundError(from);
      }
      if ((await query(sql.threadExists, [to, true])).rows.length > 0) {
        throw new ThreadExistsError(to);
      }
      // Held, so no run writes `from` while it is read: the copy is one consistent state.
      const runId = await this.#hold(query, from);
      try {
        await query(sql.copyHeads, [from, to]);
      } catch (error) {
        // Another copyThread or a first put made `to` meanwhile.
        if (sqlState(error) !== UNIQUE_VIOLATION) throw error;
        throw new ThreadExistsError(to);
      }
      // Payloads name their thread: each is rewritten, a batch at a time, so the copy
      // reads back as its own (and memory stays bounded by the batch).
      for (let seq = "0"; ; ) {
        const { rows } = await query(sql.copySource, [from, seq, COPY_BATCH]);
        if (rows.length === 0) break;
        const payloads = rows.map((row) => {
          const where = rowOf(row, from, row.ns as string);
          if (row.channels === null) {
            const checkpoint = readStoredCheckpoint(row.payload, where);
            return stringifyStored({ ...checkpoint, threadId: to }, "checkpoint");
          }
          // Values stay in the row and in their versions, copied as they are.
          const checkpoint = readStoredCheckpoint(row.payload, where, {});
          return stringifyStored({ ...checkpoint, threadId: to }, "checkpoint");
        });
        await query(sql.copyCheckpoints, [
          from,
          to,
          rows.map((row) => row.ns),
          rows.map((row) => row.id),
          payloads,
        ]);
        seq = String(rows.at(-1)!.seq);
        if (rows.length < COPY_BATCH) break;
      }
      await query(sql.copyWrites, [from, to]);
      await query(sql.copyValues, [from, to]);
      await query(sql.unhold, [[from], runId]);
    });
    this.#known.forget(to);
  }

  /**
   * Holds the thread with a claim of this transaction's own (see `hold` in statements.ts)
   * and returns its run id; `ThreadBusyError` (rolling the transaction back) if a run holds it.
   */
  async #hold(query: Query, threadId: string): Promise<string> {
    const runId = randomUUID();
    if ((await query(this.#sql.hold, [[threadId], runId])).rows.length === 1) return runId;
    const { rows } = await query(this.#sql.latestId, [threadId, ""]);
    throw new ThreadBusyError(threadId, (rows[0]?.latest_id as string | undefined) ?? null);
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

interface ReadTuple {
  tuple: CheckpointTuple;
  /** The checkpoint's channel versions and their chains' bases; none for an older row. */
  versions: ChannelVersions | undefined;
  bases: ChannelVersions | undefined;
}

/** A read whose value rows missed a link of a chain: read again link by link. */
const INCOMPLETE = Symbol("incomplete");

function toTuple(
  result: { rows: Array<Record<string, unknown>> },
  threadId: string,
  ns: string,
  final: boolean,
): ReadTuple | typeof INCOMPLETE | undefined {
  const first = result.rows[0];
  if (first?.kind !== 0) return undefined;
  const checkpointId = first.key as string;
  const writes: PendingWrite[] = [];
  const values: Array<Record<string, unknown>> = [];
  for (const row of result.rows) {
    if (row.kind === 1) {
      writes.push(
        readStoredWrite(row.payload, { threadId, ns, checkpointId, taskId: row.key as string }),
      );
    } else if (row.kind === 2) values.push(row);
  }
  const assembly = assemblyOf(values, threadId, ns);
  const versions = versionsOf(first, threadId, ns);
  if (!final && versions && !assembly.complete(versions)) return INCOMPLETE;
  return {
    tuple: { checkpoint: readRow(first, versions, threadId, ns, assembly), pendingWrites: writes },
    versions,
    bases: versions && assembly.bases(versions),
  };
}

/** A checkpoint row's channel versions; undefined for a row from before them. */
function versionsOf(
  row: Record<string, unknown>,
  threadId: string,
  ns: string,
): ChannelVersions | undefined {
  if (row.channels === null || row.channels === undefined) return undefined;
  return readStoredVersions(row.channels, row.versions, rowOf(row, threadId, ns));
}

/** A checkpoint row, its values assembled from their versions (or, in an older row, its payload). */
function readRow(
  row: Record<string, unknown>,
  versions: ChannelVersions | undefined,
  threadId: string,
  ns: string,
  assembly: ValueAssembly,
): Checkpoint {
  const where = rowOf(row, threadId, ns);
  if (!versions) return readStoredCheckpoint(row.payload, where);
  const missing = (channel: string, version: string) =>
    corruptValue(
      where,
      `the value of channel "${channel}" at version ${version} is missing or damaged`,
    );
  return readStoredCheckpoint(row.payload, where, assembly.values(versions, missing));
}

/** The channel versions a page of rows brought, parsed on first use. */
function assemblyOf(
  rows: Array<Record<string, unknown>>,
  threadId: string,
  ns: string,
): ValueAssembly {
  const stored: StoredValue[] = rows.map((row) => ({
    channel: row.channel as string,
    version: row.key as string,
    prev: (row.prev as string | null) ?? null,
    keep: (row.keep as number | null) ?? null,
    base: (row.base as string | null) ?? null,
    payload: row.payload as string,
  }));
  return new ValueAssembly(stored, (value) =>
    readStoredValue(value, { threadId, ns, checkpointId: value.version }),
  );
}

/** The stored versions of `put`, as the statement's array parameters ($15…$19). */
function columnsOf(
  stored: StoredValue[],
): [string[], Array<string | null>, Array<number | null>, string[], Array<string | null>] {
  return [
    stored.map((v) => v.channel),
    stored.map((v) => v.prev),
    stored.map((v) => v.keep),
    stored.map((v) => v.payload),
    stored.map((v) => v.base),
  ];
}

/** A thread record from its head row (see `recordColumns` in statements.ts). */
function toRecord(row: Record<string, unknown>): ThreadRecord {
  return {
    threadId: row.thread_id as string,
    graph: (row.graph as string | null) ?? null,
    status: row.busy ? "busy" : (row.status as ThreadStatus),
    interrupts: JSON.parse(row.interrupts as string),
    error: row.error ? JSON.parse(row.error as string) : null,
    metadata: JSON.parse(row.metadata as string),
    createdAt: row.created_at as string,
    updatedAt: row.updated_at as string,
    latestCheckpointId: row.latest_id as string,
  };
}

/** Where a checkpoint row belongs, from its `id`/`key` and `parent_id` columns. */
function rowOf(row: Record<string, unknown>, threadId: string, ns: string): StoredRow {
  const checkpointId = (row.id ?? row.key) as string;
  return { threadId, ns, checkpointId, parentId: row.parent_id as string | null };
}

/** A claim lifetime a store accepts: long enough to be renewed before it runs out. */
function checkedClaimTtl(ms: number | undefined): number | undefined {
  if (ms === undefined) return undefined;
  if (!(Number.isFinite(ms) && ms >= 300)) {
    throw new InvalidConfigError(
      `claimTtlMs must be a number of milliseconds ≥ 300, got ${String(ms)}. Leave it out for the default (4 s).`,
    );
  }
  return ms;
}
