import { InvalidConfigError, InvalidIdError, InvalidRetentionError } from "../errors/index.js";
import type {
  Checkpoint,
  ListOptions,
  PendingWrite,
  PruneOptions,
  PruneThreadsOptions,
  PutOptions,
  RewindOptions,
  ThreadStatus,
} from "./checkpointer.js";

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
  if (write.runId !== undefined) assertStoreId("write.runId", write.runId);
}

/** A `rewindThread` call's ids: the thread, the checkpoint to rewind to (or null), the run. */
export function assertRewindArguments(
  threadId: unknown,
  toCheckpointId: unknown,
  options: RewindOptions | undefined,
): void {
  assertStoreId("threadId", threadId);
  if (toCheckpointId !== null) assertStoreId("toCheckpointId", toCheckpointId);
  const runId = options?.runId;
  if (runId !== undefined) assertStoreId("options.runId", runId);
}

/** A `list` call's thread and options. */
export function assertListArguments(threadId: unknown, options: ListOptions): void {
  assertStoreId("threadId", threadId);
  if (options.ns !== undefined) assertNamespace("options.ns", options.ns);
  if (options.before !== undefined) assertStoreId("options.before", options.before);
  assertHistoryLimit(options.limit);
}

/**
 * A `prune` call's thread and options, checked: the number of top-level checkpoints to keep.
 *
 * @example
 * readPruneArguments("t1", { keep: "latest" }); // 1
 * readPruneArguments("t1", { keep: 0 }); // InvalidRetentionError: prune option keep is 0; …
 */
export function readPruneArguments(threadId: unknown, options: PruneOptions): number {
  assertStoreId("threadId", threadId);
  const keep = (options as PruneOptions | undefined)?.keep;
  if (keep === "latest") return 1;
  if (typeof keep === "number" && Number.isSafeInteger(keep) && keep >= 1) return keep;
  throw new InvalidRetentionError(
    "prune",
    "keep",
    keep,
    '"latest" or a whole number of top-level checkpoints from 1 (a thread cannot resume from none; deleteThread removes it all)',
  );
}

/** The statuses `pruneThreads` may delete: a thread a run holds is never deleted. */
const PRUNABLE: ReadonlyArray<Exclude<ThreadStatus, "busy">> = ["idle", "interrupted", "error"];

/** `PruneThreadsOptions`, checked: the cut-off as ISO-8601 (ms) and the statuses, deduplicated. */
export interface ThreadPruning {
  idleBefore: string;
  graph: string | undefined;
  statuses: Array<Exclude<ThreadStatus, "busy">>;
}

/** Checks `pruneThreads` options (throws `InvalidRetentionError`) and fills in the default status. */
export function readPruneThreadsOptions(options: PruneThreadsOptions): ThreadPruning {
  const { idleBefore, status = "idle", graph } = (options ?? {}) as Partial<PruneThreadsOptions>;
  const time =
    idleBefore instanceof Date
      ? idleBefore.getTime()
      : typeof idleBefore === "string" && /^\d{4}-\d{2}-\d{2}T/.test(idleBefore)
        ? Date.parse(idleBefore)
        : Number.NaN;
  if (!Number.isFinite(time)) {
    throw new InvalidRetentionError(
      "pruneThreads",
      "idleBefore",
      idleBefore,
      'a valid Date or ISO-8601 time, e.g. new Date(Date.now() - 30 * 86_400_000) or "2026-01-01T00:00:00Z"',
    );
  }
  const statuses = Array.isArray(status) ? status : [status];
  if (statuses.length === 0 || !statuses.every((s) => PRUNABLE.includes(s))) {
    throw new InvalidRetentionError(
      "pruneThreads",
      "status",
      status,
      `one of ${PRUNABLE.join(", ")}, or a non-empty list of them (a busy thread is never deleted)`,
    );
  }
  if (graph !== undefined && (typeof graph !== "string" || graph === "")) {
    throw new InvalidRetentionError(
      "pruneThreads",
      "graph",
      graph,
      "a graph's name (CompiledGraph.name)",
    );
  }
  return { idleBefore: new Date(time).toISOString(), statuses: [...new Set(statuses)], graph };
}

/** A `copyThread` call's ids: two valid, different thread ids. */
export function assertCopyArguments(from: unknown, to: unknown): void {
  assertStoreId("from", from);
  assertStoreId("to", to);
  if (from === to) {
    throw new InvalidRetentionError("copyThread", "to", to, "another thread id than from");
  }
}
