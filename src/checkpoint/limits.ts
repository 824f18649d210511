import { InvalidConfigError, InvalidIdError } from "../errors/index.js";
import type { Checkpoint, ListOptions, PendingWrite, PutOptions } from "./checkpointer.js";

/**
 * The most UTF-8 bytes a thread id, namespace, checkpoint id, task id or node name given to
 * a store may have. The SQL stores' widest primary key holds four of them (thread, ns,
 * checkpoint, task); PostgreSQL refuses a btree entry over 2,704 bytes, which four
 * incompressible 666-byte ids already exceed. Four at 512 make an entry of about 2,080.
 */
export const MAX_ID_BYTES = 512;

// NUL, or any surrogate: the only characters that need a closer look.
const SUSPECT = /[\0\uD800-\uDFFF]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Throws `InvalidIdError` unless `value` is an id every store keeps apart from every other:
 * a non-empty string (for a namespace see `assertNamespace`) of at most `MAX_ID_BYTES`
 * UTF-8 bytes, without NUL (PostgreSQL text cannot hold it) or unpaired surrogates (which
 * UTF-8 cannot encode: the SQL stores would store U+FFFD and mix such ids up). Every store
 * calls it on every id it is given, before it reads or writes, so all refuse the same ids.
 *
 * @example
 * assertStoreId("threadId", "t1"); // fine
 * assertStoreId("threadId", undefined); // InvalidIdError: threadId is undefined, not a string…
 */
export function assertStoreId(field: string, value: unknown): asserts value is string {
  check(field, value, false);
}

/** `assertStoreId` for a namespace, which may also be `""` (the top-level graph). */
export function assertNamespace(field: string, value: unknown): asserts value is string {
  check(field, value, true);
}

function check(field: string, value: unknown, mayBeEmpty: boolean): asserts value is string {
  if (typeof value !== "string") throw invalid(field, value, "type");
  if (value === "" && !mayBeEmpty) throw invalid(field, value, "empty");
  const suspect = SUSPECT.exec(value);
  if (suspect) {
    const nul = value.indexOf("\0");
    if (nul !== -1) throw invalid(field, value, "nul", { index: nul });
    const lone = LONE_SURROGATE.exec(value);
    if (lone) throw invalid(field, value, "surrogate", { index: lone.index });
  }
  // A UTF-16 code unit is 1 to 3 UTF-8 bytes: count them only when it can matter.
  if (value.length * 3 > MAX_ID_BYTES) {
    const bytes = Buffer.byteLength(value, "utf8");
    if (bytes > MAX_ID_BYTES) throw invalid(field, value, "length", { bytes });
  }
}

function invalid(
  field: string,
  value: unknown,
  rule: ConstructorParameters<typeof InvalidIdError>[2],
  facts: { index?: number; bytes?: number } = {},
): InvalidIdError {
  return new InvalidIdError(field, value, rule, { maxBytes: MAX_ID_BYTES, ...facts });
}

/**
 * Throws `InvalidConfigError` unless `limit` is a history limit: left out (the whole
 * history) or a whole number of checkpoints, `0` (none) or more.
 *
 * @example
 * assertHistoryLimit(10); // fine
 * assertHistoryLimit(-1); // InvalidConfigError: A history limit must be …
 */
export function assertHistoryLimit(limit: unknown): asserts limit is number | undefined {
  if (limit === undefined) return;
  if (typeof limit === "number" && Number.isSafeInteger(limit) && limit >= 0) return;
  const shown = typeof limit === "number" ? String(limit) : `${typeof limit} ${String(limit)}`;
  throw new InvalidConfigError(
    `A history limit must be a whole number of checkpoints, 0 or more (or left out for the whole history), but got ${shown}. Nothing was read.`,
  );
}

/** The ids of a `put`: the checkpoint's own, its parent and the expected latest. */
export function assertPutIds(checkpoint: Checkpoint, options: PutOptions): void {
  assertStoreId("checkpoint.threadId", checkpoint.threadId);
  assertNamespace("checkpoint.ns", checkpoint.ns);
  assertStoreId("checkpoint.id", checkpoint.id);
  if (checkpoint.parentId !== null) assertStoreId("checkpoint.parentId", checkpoint.parentId);
  const expected = options?.expectedLatestId;
  if (expected !== null) assertStoreId("expectedLatestId", expected);
}

/** The ids of a `putWrites`: where the writes go, and the task and node that made them. */
export function assertWriteIds(
  threadId: unknown,
  ns: unknown,
  checkpointId: unknown,
  write: PendingWrite,
): void {
  assertStoreId("threadId", threadId);
  assertNamespace("ns", ns);
  assertStoreId("checkpointId", checkpointId);
  assertStoreId("write.taskId", write.taskId);
  assertStoreId("write.node", write.node);
}

/** A `list` call's thread and options. */
export function assertListArguments(threadId: unknown, options: ListOptions): void {
  assertStoreId("threadId", threadId);
  if (options.ns !== undefined) assertNamespace("options.ns", options.ns);
  if (options.before !== undefined) assertStoreId("options.before", options.before);
  assertHistoryLimit(options.limit);
}
