import { InvalidConfigError, InvalidSearchError } from "../errors/index.js";
import type {
  Checkpoint,
  SearchThreadsOptions,
  ThreadError,
  ThreadRecord,
  ThreadStatus,
} from "./checkpointer.js";

/** Threads per `searchThreads` page when no `limit` is given. */
export const DEFAULT_THREAD_PAGE = 50;
/** The most threads one `searchThreads` page may hold. */
export const MAX_THREAD_PAGE = 1_000;
/** The most characters of an error message a thread record keeps (it is for lists, not logs). */
export const MAX_THREAD_ERROR_CHARS = 1_000;

const STATUSES: readonly ThreadStatus[] = ["idle", "busy", "interrupted", "error"];
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The status a top-level checkpoint gives its thread (a claim or a failure may override it). */
export function storedStatusOf(checkpoint: Checkpoint): "idle" | "interrupted" {
  return checkpoint.interrupts.length > 0 ? "interrupted" : "idle";
}

/**
 * What a thread record keeps of the error that ended a run: its class name and message,
 * the message cut to `MAX_THREAD_ERROR_CHARS`.
 */
export function threadErrorOf(error: unknown): ThreadError {
  const name = error instanceof Error ? error.name : "Error";
  const message = error instanceof Error ? error.message : String(error);
  return {
    name,
    message:
      message.length > MAX_THREAD_ERROR_CHARS
        ? `${message.slice(0, MAX_THREAD_ERROR_CHARS - 1)}…`
        : message,
  };
}

/**
 * Throws `InvalidConfigError` unless `value` can be a thread's metadata: a plain JSON object
 * without NUL characters (PostgreSQL's `jsonb` cannot hold them), so every store takes
 * the same metadata.
 */
export function assertThreadMetadata(field: string, value: unknown): void {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new InvalidConfigError(
      `${field} must be a plain object of JSON values (e.g. { user: "u1" }), but got ${value === null ? "null" : Array.isArray(value) ? "an array" : typeof value}. Nothing was written.`,
    );
  }
  if (JSON.stringify(value).includes("\\u0000")) {
    throw new InvalidConfigError(
      `${field} contains a NUL character (\\u0000), which thread metadata cannot hold. Remove it or encode the value (e.g. base64). Nothing was written.`,
    );
  }
}

/** Where a page starts: after the thread with this `updatedAt` and id, in the page's order. */
export interface ThreadCursor {
  updatedAt: string;
  threadId: string;
}

/** `SearchThreadsOptions`, checked, with the defaults filled in. */
export interface ThreadSearch {
  status: ThreadStatus | undefined;
  graph: string | undefined;
  metadata: Record<string, unknown> | undefined;
  limit: number;
  order: "asc" | "desc";
  after: ThreadCursor | undefined;
}

/** Checks `searchThreads` options (throws `InvalidSearchError`) and fills in the defaults. */
export function readSearchOptions(options: SearchThreadsOptions = {}): ThreadSearch {
  const { status, graph, metadata, limit = DEFAULT_THREAD_PAGE, cursor, order = "desc" } = options;
  if (status !== undefined && !STATUSES.includes(status)) {
    throw new InvalidSearchError("status", status, `one of ${STATUSES.join(", ")}`);
  }
  if (graph !== undefined && (typeof graph !== "string" || graph === "")) {
    throw new InvalidSearchError("graph", graph, "a graph's name (CompiledGraph.name)");
  }
  if (
    metadata !== undefined &&
    (typeof metadata !== "object" || metadata === null || Array.isArray(metadata))
  ) {
    throw new InvalidSearchError("metadata", metadata, 'a plain object, e.g. { user: "u1" }');
  }
  // Its JSON form, as every store compares it (undefined members dropped, and so on).
  const json = metadata === undefined ? undefined : JSON.stringify(metadata);
  if (json?.includes("\\u0000")) {
    throw new InvalidSearchError("metadata", metadata, "JSON without NUL characters");
  }
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_THREAD_PAGE) {
    throw new InvalidSearchError("limit", limit, `a whole number from 1 to ${MAX_THREAD_PAGE}`);
  }
  if (order !== "asc" && order !== "desc") {
    throw new InvalidSearchError("order", order, '"asc" or "desc"');
  }
  return {
    status,
    graph,
    metadata: json === undefined ? undefined : JSON.parse(json),
    limit,
    order,
    after: cursor === undefined ? undefined : decodeCursor(cursor),
  };
}

/** The cursor of the page that starts after `record`. Opaque to callers. */
export function cursorAfter(record: ThreadRecord): string {
  return Buffer.from(JSON.stringify([record.updatedAt, record.threadId])).toString("base64url");
}

function decodeCursor(cursor: unknown): ThreadCursor {
  const refuse = () =>
    new InvalidSearchError(
      "cursor",
      cursor,
      "the nextCursor of an earlier page, as it was returned (or left out for the first page)",
    );
  if (typeof cursor !== "string") throw refuse();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw refuse();
  }
  if (
    !Array.isArray(parsed) ||
    parsed.length !== 2 ||
    typeof parsed[0] !== "string" ||
    !ISO_MS.test(parsed[0]) ||
    typeof parsed[1] !== "string"
  ) {
    throw refuse();
  }
  return { updatedAt: parsed[0], threadId: parsed[1] };
}

/**
 * Whether JSON `whole` contains `part`, as PostgreSQL's `jsonb @>` decides: objects by
 * key, recursively; arrays when each element of `part` is contained in some element of
 * `whole`; other values when equal.
 */
export function jsonContains(whole: unknown, part: unknown): boolean {
  if (Array.isArray(part)) {
    return (
      Array.isArray(whole) && part.every((p) => whole.some((w: unknown) => jsonContains(w, p)))
    );
  }
  if (typeof part === "object" && part !== null) {
    if (typeof whole !== "object" || whole === null || Array.isArray(whole)) return false;
    const object = whole as Record<string, unknown>;
    return Object.entries(part).every(
      ([key, value]) => Object.hasOwn(object, key) && jsonContains(object[key], value),
    );
  }
  return whole === part;
}
