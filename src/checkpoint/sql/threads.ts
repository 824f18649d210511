// A SQL store's thread records: get, create, update metadata, search, and delete a thread with all it stored.
import { assertMetadataPatch } from "../checkpoint-metadata.js";
import type { SearchThreadsOptions, ThreadPage, ThreadRecord } from "../checkpointer.js";
import { assertNamespace, assertStoreId } from "../limits.js";
import { readStoredCheckpoint } from "../read-stored.js";
import { stringifyStored } from "../serde.js";
import { assertThreadMetadata, cursorAfter, readSearchOptions } from "../thread-records.js";
import { busyOnLockConflict } from "./lock-conflict.js";
import { toRecord } from "./rows.js";
import { searchThreadsQuery } from "./statements.js";
import type { StoreParts } from "./store-parts.js";

/** `Checkpointer.getThread`: the thread's record, from its head row. */
export async function getThread(
  parts: StoreParts,
  threadId: string,
): Promise<ThreadRecord | undefined> {
  const row = await headRow(parts, parts.sql.getThread, threadId);
  return row && toRecord(row);
}

/** `Checkpointer.latestCheckpointId`: the head row's `latest_id`, without the rest of the record. */
export async function latestCheckpointId(
  parts: StoreParts,
  threadId: string,
): Promise<string | undefined> {
  const row = await headRow(parts, parts.sql.latestCheckpointId, threadId);
  return row && String(row.latest_id);
}

/** The thread's head row as `statement` (prepared, by thread id) reads it. */
async function headRow(parts: StoreParts, statement: string, threadId: string) {
  assertStoreId("threadId", threadId);
  const driver = await parts.ready();
  const { rows } = await (driver.queryPrepared ?? driver.query)(statement, [threadId]);
  return rows[0];
}

/** `Checkpointer.createThread`: false when the thread already exists. */
export async function createThread(
  parts: StoreParts,
  threadId: string,
  metadata: Record<string, unknown>,
): Promise<boolean> {
  assertStoreId("threadId", threadId);
  assertThreadMetadata("metadata", metadata);
  const driver = await parts.ready();
  const { rowCount } = await driver
    .query(parts.sql.createThread, [threadId, JSON.stringify(metadata)])
    .catch(busyOnLockConflict(threadId));
  return rowCount === 1;
}

/** `Checkpointer.updateThreadMetadata`: merged in the head row; undefined without one. */
export async function updateThreadMetadata(
  parts: StoreParts,
  threadId: string,
  metadata: Record<string, unknown>,
): Promise<ThreadRecord | undefined> {
  assertStoreId("threadId", threadId);
  assertThreadMetadata("metadata", metadata);
  const driver = await parts.ready();
  const { rows } = await driver
    .query(parts.sql.updateThreadMetadata, [threadId, JSON.stringify(metadata)])
    .catch(busyOnLockConflict(threadId));
  return rows[0] && toRecord(rows[0]);
}

/**
 * `Checkpointer.patchCheckpointMetadata`, the write: `metadata` merged into the stored
 * checkpoint's, in one transaction. False, writing nothing, when there is no such checkpoint.
 */
export async function patchCheckpointMetadata(
  parts: StoreParts,
  threadId: string,
  ns: string,
  checkpointId: string,
  metadata: Record<string, unknown>,
): Promise<boolean> {
  assertStoreId("threadId", threadId);
  assertNamespace("ns", ns);
  assertStoreId("checkpointId", checkpointId);
  assertMetadataPatch(metadata);
  const driver = await parts.ready();
  const patching = driver.transaction(async (query) => {
    const key = [threadId, ns, checkpointId];
    const { rows } = await query(parts.sql.checkpointPayload, key);
    if (!rows[0]) return false;
    // Read through the checks every stored row gets, so a damaged row is not written back.
    readStoredCheckpoint(rows[0].payload, { threadId, ns, checkpointId });
    const stored = JSON.parse(rows[0].payload as string) as { metadata: object };
    stored.metadata = { ...stored.metadata, ...metadata };
    await query(parts.sql.setCheckpointPayload, [...key, stringifyStored(stored, "checkpoint")]);
    return true;
  });
  return patching.catch(busyOnLockConflict(threadId));
}

/** `Checkpointer.searchThreads`: one page of records, keyset-paged. */
export async function searchThreads(
  parts: StoreParts,
  options?: SearchThreadsOptions,
): Promise<ThreadPage> {
  const search = readSearchOptions(options);
  const driver = await parts.ready();
  const { text, params } = searchThreadsQuery(parts.tables, search);
  const { rows } = await driver.query(text, params);
  const threads = rows.slice(0, search.limit).map(toRecord);
  const more = rows.length > search.limit;
  return { threads, nextCursor: more ? cursorAfter(threads.at(-1)!) : null };
}

/** `Checkpointer.deleteThread`: every row of the thread, in one transaction. */
export async function deleteThread(parts: StoreParts, threadId: string): Promise<void> {
  assertStoreId("threadId", threadId);
  const sql = parts.sql;
  const driver = await parts.ready();
  const deleting = driver.transaction(async (query) => {
    // Head rows and claim first, in the lock order (store.ts): a concurrent put (which must
    // update or claim a head row) waits for this delete and then fails or starts a fresh
    // thread, instead of slipping a checkpoint in between and leaving it without a head.
    const heads = await query(sql.deleteHeadsAndClaim, [threadId]);
    const writes = await query(sql.deleteWrites, [threadId]);
    const checkpoints = await query(sql.deleteCheckpoints, [threadId]);
    const values = await query(sql.deleteValues, [threadId]);
    return heads.rowCount + writes.rowCount + checkpoints.rowCount + values.rowCount;
  });
  const rows = await deleting.catch(busyOnLockConflict(threadId));
  parts.known.forget(threadId);
  if (rows > 0) parts.afterDelete(rows);
}
