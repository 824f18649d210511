// A SQL store's retention and copies: prune a thread, prune idle threads, rewind, copy a thread.
import { randomUUID } from "node:crypto";
import {
  RewindTargetNotFoundError,
  ThreadBusyError,
  ThreadExistsError,
  ThreadNotFoundError,
} from "../../errors/index.js";
import type {
  Checkpoint,
  PendingWrite,
  PruneOptions,
  PruneThreadsOptions,
  RewindOptions,
} from "../checkpointer.js";
import {
  assertCopyArguments,
  assertRewindArguments,
  readPruneArguments,
  readPruneThreadsOptions,
} from "../limits.js";
import { waitingInterrupts } from "../paused-tasks.js";
import { readStoredCheckpoint } from "../read-stored.js";
import { planPrune } from "../retention.js";
import { stringifyStored } from "../serde.js";
import type { Query } from "./driver.js";
import { busyOnLockConflict, isLockConflict } from "./lock-conflict.js";
import { rowOf } from "./rows.js";
import { sqlState, UNIQUE_VIOLATION } from "./sql-state.js";
import type { StoreParts } from "./store-parts.js";

/** Threads per `pruneThreads` transaction: short transactions, few round trips. */
const PRUNE_THREADS_BATCH = 100;
/** Checkpoints `copyThread` reads and rewrites per round trip (bounds its memory). */
const COPY_BATCH = 200;

/** `Checkpointer.prune`: keeps the newest checkpoints and what they need, under a hold. */
export async function prune(
  parts: StoreParts,
  threadId: string,
  options: PruneOptions,
): Promise<number> {
  const keep = readPruneArguments(threadId, options);
  const sql = parts.sql;
  const driver = await parts.ready();
  const pruning = driver.transaction(async (query) => {
    const runId = await hold(parts, query, threadId);
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
  const { checkpoints, rows } = await pruning.catch(busyOnLockConflict(threadId));
  parts.known.forget(threadId);
  if (rows > 0) parts.afterDelete(rows);
  return checkpoints;
}

/** `Checkpointer.rewindThread`: removes everything after the target, under a hold. */
export async function rewindThread(
  parts: StoreParts,
  threadId: string,
  toCheckpointId: string | null,
  options?: RewindOptions,
): Promise<number> {
  assertRewindArguments(threadId, toCheckpointId, options);
  const sql = parts.sql;
  const driver = await parts.ready();
  const rewinding = driver.transaction(async (query) => {
    const runId = await hold(parts, query, threadId);
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
      // The writes kept on it may hold its step's pause.
      const kept = (await query(sql.rewindTargetWrites, [threadId, head.id])).rows;
      const writes = kept.map((row) => JSON.parse(row.payload as string) as PendingWrite);
      const interrupts = waitingInterrupts(head, writes);
      await query(sql.rewindRecord, [
        threadId,
        head.id,
        interrupts.length > 0 ? "interrupted" : "idle",
        JSON.stringify(interrupts),
      ]);
    }
    await query(sql.unhold, [[threadId], runId]);
    return {
      checkpoints: gone.rowCount,
      rows: writes.rowCount + values.rowCount + gone.rowCount + own.rowCount + heads.rowCount,
    };
  });
  const { checkpoints, rows } = await rewinding.catch(busyOnLockConflict(threadId));
  parts.known.forget(threadId);
  if (rows > 0) parts.afterDelete(rows);
  return checkpoints;
}

/** `Checkpointer.pruneThreads`: deletes idle threads a batch at a time. */
export async function pruneThreads(
  parts: StoreParts,
  options: PruneThreadsOptions,
): Promise<number> {
  const { idleBefore, statuses, graph } = readPruneThreadsOptions(options);
  const sql = parts.sql;
  const driver = await parts.ready();
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
      const batchDeleted = driver.transaction(async (query) => {
        const runId = randomUUID();
        const held = (await query(sql.holdHeaded, [ids, runId])).rows.map((r) => r.thread_id);
        const heads = await query(sql.deleteStaleHeads, [held, statuses, idleBefore]);
        const doomed = heads.rows.map((r) => r.thread_id as string);
        const subgraphHeads = await query(sql.deleteThreadsRows, [doomed]);
        const writes = await query(sql.deleteThreadsWrites, [doomed]);
        const checkpoints = await query(sql.deleteThreadsCheckpoints, [doomed]);
        const values = await query(sql.deleteThreadsValues, [doomed]);
        await query(sql.unhold, [held, runId]);
        for (const id of doomed) parts.known.forget(id);
        const rows = heads.rowCount + subgraphHeads.rowCount + writes.rowCount;
        return { threads: doomed.length, rows: rows + checkpoints.rowCount + values.rowCount };
      });
      const { threads, rows } = await batchDeleted.catch((error: unknown) => {
        // The database ended the batch to let a call on one of its threads go on: nothing
        // of it was deleted, and its threads are left for the next prune, like held ones.
        if (isLockConflict(error)) return { threads: 0, rows: 0 };
        throw error;
      });
      deleted += threads;
      if (rows > 0) parts.afterDelete(rows);
      if (batch.length < PRUNE_THREADS_BATCH) break;
    }
  }
  return deleted;
}

/** `Checkpointer.copyThread`: copies a held thread's rows under a new id. */
export async function copyThread(parts: StoreParts, from: string, to: string): Promise<void> {
  assertCopyArguments(from, to);
  const sql = parts.sql;
  const driver = await parts.ready();
  const copying = driver.transaction(async (query) => {
    if ((await query(sql.threadExists, [from, false])).rows.length === 0) {
      throw new ThreadNotFoundError(from);
    }
    if ((await query(sql.threadExists, [to, true])).rows.length > 0) {
      throw new ThreadExistsError(to);
    }
    // Held, so no run writes `from` while it is read: the copy is one consistent state.
    const runId = await hold(parts, query, from);
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
  await copying.catch(busyOnLockConflict(from));
  parts.known.forget(to);
}

/**
 * Holds the thread with a claim of this transaction's own (see `hold` in statements.ts)
 * and returns its run id; `ThreadBusyError` (rolling the transaction back) if a run holds it.
 */
export async function hold(parts: StoreParts, query: Query, threadId: string): Promise<string> {
  const runId = randomUUID();
  if ((await query(parts.sql.hold, [[threadId], runId])).rows.length === 1) return runId;
  const { rows } = await query(parts.sql.latestId, [threadId, ""]);
  throw new ThreadBusyError(threadId, (rows[0]?.latest_id as string | undefined) ?? null);
}
