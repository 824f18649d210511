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
  CheckpointTuple,
  ListOptions,
  PendingWrite,
  PutOptions,
  SearchThreadsOptions,
  ThreadClaim,
  ThreadPage,
  ThreadRecord,
  ThreadRelease,
  ThreadStatus,
} from "../checkpointer.js";
import {
  assertListArguments,
  assertNamespace,
  assertPutIds,
  assertStoreId,
  assertWriteIds,
} from "../limits.js";
import { readStoredCheckpoint, readStoredWrite, type StoredRow } from "../read-stored.js";
import { stringifyStored } from "../serde.js";
import {
  assertThreadMetadata,
  cursorAfter,
  readSearchOptions,
  storedStatusOf,
} from "../thread-records.js";
import type { SqlDriver } from "./driver.js";
import { migrate } from "./migrations.js";
import {
  DEFAULT_TABLE_PREFIX,
  type Statements,
  searchThreadsQuery,
  statements,
  type Tables,
  tables,
} from "./statements.js";

const UNIQUE_VIOLATION = "23505";
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
      throw new CheckpointerClosedError(this.constructor.name);
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
    assertPutIds(checkpoint, options);
    const thread = options.thread;
    if (thread?.graph !== undefined) assertStoreId("thread.graph", thread.graph);
    if (thread?.metadata !== undefined) assertThreadMetadata("thread.metadata", thread.metadata);
    const payload = stringifyStored(checkpoint, "checkpoint");
    const { threadId, ns, id, metadata } = checkpoint;
    const top = ns === "";
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
      // The thread record: only a top-level checkpoint is the thread's latest.
      (top && thread?.graph) || null,
      top ? storedStatusOf(checkpoint) : null,
      top ? JSON.stringify(checkpoint.interrupts) : null,
      top && thread?.metadata ? JSON.stringify(thread.metadata) : null,
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
      throw new DuplicateCheckpointError(threadId, ns, id, { cause: error });
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
      ]);
    } catch (error) {
      if (sqlState(error) !== FOREIGN_KEY_VIOLATION) throw error;
      throw new CheckpointNotFoundError(threadId, ns, checkpointId, write.taskId, { cause: error });
    }
  }

  async getLatest(threadId: string, ns = ""): Promise<CheckpointTuple | undefined> {
    assertStoreId("threadId", threadId);
    assertNamespace("ns", ns);
    const driver = await this.#ready();
    const query = driver.queryPrepared ?? driver.query;
    return toTuple(await query(this.#sql.latestTuple, [threadId, ns]), threadId, ns);
  }

  async get(threadId: string, ns: string, id: string): Promise<CheckpointTuple | undefined> {
    assertStoreId("threadId", threadId);
    assertNamespace("ns", ns);
    assertStoreId("id", id);
    const driver = await this.#ready();
    const query = driver.queryPrepared ?? driver.query;
    return toTuple(await query(this.#sql.tupleById, [threadId, ns, id]), threadId, ns);
  }

  async list(threadId: string, options: ListOptions = {}): Promise<Checkpoint[]> {
    assertListArguments(threadId, options);
    const driver = await this.#ready();
    const { rows } = await driver.query(this.#sql.list, [
      threadId,
      options.ns ?? "",
      options.before ?? null,
      options.limit ?? null,
    ]);
    const ns = options.ns ?? "";
    return rows.map((row) => readStoredCheckpoint(row.payload, rowOf(row, threadId, ns)));
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
      await query(sql.deleteClaim, [threadId]);
      return heads.rowCount + writes.rowCount + checkpoints.rowCount;
    });
    if (rows > 0) this.afterDelete(rows);
  }

  /**
   * Called after `deleteThread` removed `rows` rows. A database without autovacuum
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

function toTuple(
  result: { rows: Array<Record<string, unknown>> },
  threadId: string,
  ns: string,
): CheckpointTuple | undefined {
  const [first, ...writes] = result.rows;
  if (!first) return undefined;
  const checkpointId = first.key as string;
  return {
    checkpoint: readStoredCheckpoint(first.payload, rowOf(first, threadId, ns)),
    pendingWrites: writes.map((row) =>
      readStoredWrite(row.payload, { threadId, ns, checkpointId, taskId: row.key as string }),
    ),
  };
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
