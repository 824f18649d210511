import { CorruptCheckpointError } from "../errors/index.js";
import type { Checkpoint, PendingWrite } from "./checkpointer.js";
import { setOwn } from "./serde.js";

/** Where a stored row belongs, for the error when it cannot be read. */
export interface StoredRow {
  threadId: string;
  ns: string;
  checkpointId: string;
  /** Set for a row of pending writes. */
  taskId?: string;
  /** The checkpoint's parent, when the store keeps it outside the payload. */
  parentId?: string | null;
}

/**
 * Parses a checkpoint a store wrote as JSON text, or throws `CorruptCheckpointError` naming
 * the row if the text is not JSON or not a checkpoint of that row. A store whose rows can
 * be changed behind its back (a database) reads through this, so damage surfaces as a
 * typed error at the store instead of a `SyntaxError` or a `TypeError` deep in a run.
 */
export function readStoredCheckpoint(
  text: unknown,
  row: StoredRow,
  values?: Record<string, unknown>,
): Checkpoint {
  const value = parse(text, row);
  // A payload stored beside channel versions holds its small values, and null in the place
  // of each value assembled from its versions: those come in.
  if (values && isRecord(value) && isRecord(value.values)) {
    for (const key in values) setOwn(value.values, key, values[key]);
  }
  const problem = checkpointProblem(value, row);
  if (problem) throw corrupt(row, problem);
  return value as Checkpoint;
}

/** `readStoredCheckpoint` for one task's pending writes. */
export function readStoredWrite(text: unknown, row: StoredRow & { taskId: string }): PendingWrite {
  const value = parse(text, row);
  const problem = writeProblem(value, row.taskId);
  if (problem) throw corrupt(row, problem);
  return value as PendingWrite;
}

/** A checkpoint's channel versions from its `channels` and `versions` columns (JSON lists). */
export function readStoredVersions(
  channelsText: unknown,
  versionsText: unknown,
  row: StoredRow,
): Record<string, string> {
  const channels = parse(channelsText, row);
  const versions = parse(versionsText, row);
  if (!Array.isArray(channels) || !Array.isArray(versions) || channels.length !== versions.length) {
    throw corrupt(
      row,
      `its channel versions are ${kind(channels)} and ${kind(versions)}, not two lists of one length`,
    );
  }
  const out: Record<string, string> = {};
  for (let i = 0; i < channels.length; i++) {
    const channel = channels[i];
    const version = versions[i];
    if (typeof channel !== "string" || typeof version !== "string") {
      throw corrupt(row, `its channel versions hold ${kind(channel)} at ${kind(version)}`);
    }
    setOwn(out, channel, version);
  }
  return out;
}

/** One stored channel version's JSON (a whole value, or the items appended to an earlier one). */
export function readStoredValue(
  row: { payload: string; channel: string },
  where: StoredRow,
): unknown {
  try {
    return JSON.parse(row.payload);
  } catch (error) {
    throw corruptValue(
      where,
      `the value of channel "${row.channel}" stored at this checkpoint is not valid JSON (${(error as Error).message})`,
      error,
    );
  }
}

/** The error for a damaged or missing channel value of the checkpoint `where` names. */
export function corruptValue(where: StoredRow, problem: string, cause?: unknown) {
  return corrupt(where, problem, cause);
}

function parse(text: unknown, row: StoredRow): unknown {
  if (typeof text !== "string") throw corrupt(row, `its payload is ${kind(text)}, not JSON text`);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw corrupt(row, `its payload is not valid JSON (${(error as Error).message})`, error);
  }
}

function checkpointProblem(value: unknown, row: StoredRow): string | undefined {
  if (!isRecord(value)) return `its payload is ${kind(value)}, not a checkpoint object`;
  const expected = { id: row.checkpointId, threadId: row.threadId, ns: row.ns } as const;
  for (const [key, want] of Object.entries(expected)) {
    if (value[key] !== want) return `its "${key}" is ${kind(value[key])}, not "${want}"`;
  }
  if (typeof value.createdAt !== "string") return `its "createdAt" is ${kind(value.createdAt)}`;
  if (value.parentId !== null && typeof value.parentId !== "string") {
    return `its "parentId" is ${kind(value.parentId)}`;
  }
  for (const key of ["values", "metadata"]) {
    if (!isRecord(value[key])) return `its "${key}" is ${kind(value[key])}, not an object`;
  }
  for (const key of ["next", "interrupts"]) {
    if (!Array.isArray(value[key])) return `its "${key}" is ${kind(value[key])}, not an array`;
  }
  return undefined;
}

function writeProblem(value: unknown, taskId: string): string | undefined {
  if (!isRecord(value)) return `its payload is ${kind(value)}, not a pending-writes object`;
  if (value.taskId !== taskId) return `its "taskId" is ${kind(value.taskId)}, not "${taskId}"`;
  if (typeof value.node !== "string") return `its "node" is ${kind(value.node)}`;
  const { writes } = value;
  if (!Array.isArray(writes)) return `its "writes" is ${kind(writes)}, not an array`;
  const bad = writes.findIndex((w) => !Array.isArray(w) || typeof w[0] !== "string");
  if (bad !== -1) return `its writes[${bad}] is not a [channel, value] pair`;
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A short description of what was found, e.g. `an array`, `the number 3`, `missing`. */
function kind(value: unknown): string {
  if (value === undefined) return "missing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") {
    return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  }
  if (typeof value === "object") return "an object";
  return `the ${typeof value} ${String(value)}`;
}

function corrupt(row: StoredRow, problem: string, cause?: unknown): CorruptCheckpointError {
  const { threadId, ns, checkpointId, taskId } = row;
  const parentId = row.parentId ?? undefined;
  const where = { threadId, ns, checkpointId, taskId, parentId };
  return new CorruptCheckpointError(where, problem, cause === undefined ? undefined : { cause });
}
