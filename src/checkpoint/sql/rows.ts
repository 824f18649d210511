// Reading a SQL store's rows back: checkpoint tuples with their writes and values, thread records.
import type {
  Checkpoint,
  CheckpointTuple,
  PendingWrite,
  ThreadRecord,
  ThreadStatus,
} from "../checkpointer.js";
import {
  corruptValue,
  readStoredCheckpoint,
  readStoredValue,
  readStoredVersions,
  readStoredWrite,
  type StoredRow,
} from "../read-stored.js";
import {
  type ChannelVersions,
  expandWrites,
  type StoredValue,
  ValueAssembly,
} from "../stored-values.js";

export interface ReadTuple {
  tuple: CheckpointTuple;
  /** The checkpoint's channel versions and their chains' bases; none for an older row. */
  versions: ChannelVersions | undefined;
  bases: ChannelVersions | undefined;
}

/** A read whose value rows missed a link of a chain: read again link by link. */
export const INCOMPLETE = Symbol("incomplete");

export function toTuple(
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
export function versionsOf(
  row: Record<string, unknown>,
  threadId: string,
  ns: string,
): ChannelVersions | undefined {
  if (row.channels === null || row.channels === undefined) return undefined;
  return readStoredVersions(row.channels, row.versions, rowOf(row, threadId, ns));
}

/** A checkpoint row, its values assembled from their versions (or, in an older row, its payload). */
export function readRow(
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
  const checkpoint = readStoredCheckpoint(row.payload, where, assembly.values(versions, missing));
  const keepAt = (channel: string) => assembly.keepAt(channel, checkpoint.id);
  if (!expandWrites(checkpoint, keepAt)) {
    throw corruptValue(where, "the writes its metadata keeps by reference do not fit its values");
  }
  return checkpoint;
}

/** The channel versions a page of rows brought, parsed on first use. */
export function assemblyOf(
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
export function columnsOf(
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
export function toRecord(row: Record<string, unknown>): ThreadRecord {
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
export function rowOf(row: Record<string, unknown>, threadId: string, ns: string): StoredRow {
  const checkpointId = (row.id ?? row.key) as string;
  return { threadId, ns, checkpointId, parentId: row.parent_id as string | null };
}
