// Thread search and count as LangGraph's server answers them (filters, sorting, select).
import { jsonContains, type ThreadStatus } from "../checkpoint/index.js";
import { type ServerContext, type ThreadView, viewOf } from "./server-context.js";
import { toWireValues } from "./wire/messages.js";

/** The orders `POST /threads/search` takes (LangGraph's `ThreadSortBy`). */
export const THREAD_SORTS = [
  "thread_id",
  "status",
  "created_at",
  "updated_at",
  "state_updated_at",
] as const;
export type ThreadSort = (typeof THREAD_SORTS)[number];

/**
 * Which threads a search or count wants. Every filter given must hold: `metadata` and
 * `values` by JSON containment (PostgreSQL's `@>`), `status` as the thread shows it now.
 *
 * @example
 * const query: ThreadQuery = { metadata: { user: "u1" }, status: "interrupted", sortBy: "created_at", sortOrder: "asc" };
 */
export interface ThreadQuery {
  metadata?: Record<string, unknown> | undefined;
  status?: ThreadStatus | undefined;
  values?: Record<string, unknown> | undefined;
  /** Without it, the latest change first (`updated_at`, `desc`). */
  sortBy?: ThreadSort | undefined;
  sortOrder?: "asc" | "desc" | undefined;
}

/** A matching thread, with its current values when they were read. */
export interface FoundThread {
  view: ThreadView;
  /** Its current values, if the `values` filter read them. */
  values?: unknown;
}

/** The thread's current values (`undefined` before any run wrote them). */
export async function currentValues(ctx: ServerContext, view: ThreadView): Promise<unknown> {
  if (view.unwritten || view.graphId === undefined) return undefined;
  const state = await ctx.hosted
    .get(view.graphId)
    .getState({ configurable: { thread_id: view.record.threadId } });
  return state.values;
}

/**
 * The threads matching `query`, in the store's order (by `updatedAt`, `order` first),
 * read a page at a time from the thread index. The store filters metadata and the stored
 * status; the live status (a queued run makes a thread busy) and `values` (read from each
 * candidate's latest checkpoint) are checked here.
 */
async function* inIndexOrder(
  ctx: ServerContext,
  query: ThreadQuery,
  order: "asc" | "desc",
): AsyncGenerator<FoundThread> {
  let cursor: string | undefined;
  do {
    const page = await ctx.checkpointer.searchThreads({
      ...(query.status && { status: query.status }),
      ...(query.metadata && { metadata: query.metadata }),
      order,
      limit: 1000,
      ...(cursor && { cursor }),
    });
    for (const record of page.threads) {
      const view = await viewOf(ctx, record);
      if (query.status && view.status !== query.status) continue;
      if (!query.values) {
        yield { view };
        continue;
      }
      const values = await currentValues(ctx, view);
      // LangGraph lets a thread with no values yet pass a values filter; messages are
      // compared in the shape clients send and read them.
      if (values === undefined || jsonContains(toWireValues(values), query.values)) {
        yield { view, values };
      }
    }
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
}

const keyOf = (sort: ThreadSort, view: ThreadView): string =>
  sort === "thread_id"
    ? view.record.threadId
    : sort === "status"
      ? view.status
      : sort === "created_at"
        ? view.record.createdAt
        : view.record.updatedAt;

/**
 * One page of threads matching `query`, from `offset`. Sorted by `updated_at` (or
 * `state_updated_at`, the same time here) it reads only as far as the page; sorted by
 * another field it reads every match, then sorts (the index is ordered by update time).
 */
export async function searchThreads(
  ctx: ServerContext,
  query: ThreadQuery,
  page: { offset: number; limit: number },
): Promise<FoundThread[]> {
  const sortBy = query.sortBy ?? "updated_at";
  const order = query.sortOrder ?? "desc";
  const wanted = page.offset + page.limit;
  const found: FoundThread[] = [];
  if (sortBy === "updated_at" || sortBy === "state_updated_at") {
    for await (const thread of inIndexOrder(ctx, query, order)) {
      found.push(thread);
      if (found.length >= wanted) break;
    }
    return found.slice(page.offset, wanted);
  }
  for await (const thread of inIndexOrder(ctx, query, order)) found.push(thread);
  const sign = order === "asc" ? 1 : -1;
  // Ties keep the index order (by update time, the same way), as a stable sort does.
  found.sort((a, b) => {
    const x = keyOf(sortBy, a.view);
    const y = keyOf(sortBy, b.view);
    return x < y ? -sign : x > y ? sign : 0;
  });
  return found.slice(page.offset, wanted);
}

/** How many threads match `query` (LangGraph's `POST /threads/count`). */
export async function countThreads(ctx: ServerContext, query: ThreadQuery): Promise<number> {
  let count = 0;
  for await (const _ of inIndexOrder(ctx, query, "desc")) count++;
  return count;
}
