import { describe, expect, it } from "vitest";
import type { Checkpoint, ListOptions } from "../../src/checkpoint/index.js";
import { MemoryCheckpointer } from "../../src/checkpoint/index.js";
import { FIRST_HISTORY_PAGE, HISTORY_PAGE } from "../../src/graph/compiled-graph.js";
import { END, Graph, InvalidConfigError, START } from "../../src/index.js";

/** A real store that records every `list` call it serves. */
class ListRecordingCheckpointer extends MemoryCheckpointer {
  readonly calls: ListOptions[] = [];
  override async list(threadId: string, options: ListOptions = {}): Promise<Checkpoint[]> {
    this.calls.push({ ...options });
    return super.list(threadId, options);
  }
}

/** A thread of about `steps` checkpoints: one node counting up, one step at a time. */
async function countedThread(steps: number) {
  const store = new ListRecordingCheckpointer();
  const graph = new Graph({ name: "Counter" })
    .addNode("count", (s: { n: number }) => ({ n: s.n + 1 }))
    .addEdge(START, "count")
    .addConditionalEdges("count", (s) => ((s.n as number) < steps ? "count" : END))
    .compile({ checkpointer: store });
  const config = { configurable: { thread_id: "history-pages" } };
  await graph.invoke({ n: 0 }, { config, recursionLimit: steps + 10 });
  store.calls.length = 0;
  return { graph, store, config };
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

describe("getStateHistory", () => {
  it("asks the store for one page at a time and yields the whole history, newest first, as one list would", async () => {
    const { graph, store, config } = await countedThread(120);
    const all = await store.list("history-pages");
    store.calls.length = 0;
    expect(all.length).toBeGreaterThan(2 * HISTORY_PAGE);

    const history = await collect(graph.getStateHistory(config));
    expect(history.map((h) => h.config.configurable?.checkpoint_id)).toEqual(all.map((c) => c.id));
    expect(history.map((h) => h.metadata)).toEqual(all.map((c) => c.metadata));
    expect(history.map((h) => h.parentConfig?.configurable?.checkpoint_id ?? null)).toEqual(
      all.map((c) => c.parentId),
    );
    expect(history.map((h) => h.values.n)).toEqual(all.map((c) => c.values.n));
    // A first page of FIRST_HISTORY_PAGE, then pages of HISTORY_PAGE, each starting before
    // the last one's oldest, the last one short.
    const expected: Array<{ ns: string; limit: number; before: string | undefined }> = [];
    for (
      let at = 0, limit = FIRST_HISTORY_PAGE;
      at <= all.length;
      at += limit, limit = HISTORY_PAGE
    ) {
      expected.push({ ns: "", limit, before: at === 0 ? undefined : all[at - 1]!.id });
      if (at + limit > all.length) break;
    }
    expect(store.calls).toEqual(expected);
  });

  it("yields its first item after reading one page, however long the history", async () => {
    const { graph, store, config } = await countedThread(120);
    const first = await graph.getStateHistory(config).next();
    expect(first.value?.values.n).toBe(120);
    expect(store.calls).toEqual([{ ns: "", limit: FIRST_HISTORY_PAGE, before: undefined }]);
  });

  it("caps the total at limit, asking for no more than it needs, and starts before a checkpoint id", async () => {
    const { graph, store, config } = await countedThread(120);
    const all = await store.list("history-pages");
    store.calls.length = 0;

    const limited = await collect(graph.getStateHistory(config, { limit: 70 }));
    expect(limited.map((h) => h.config.configurable?.checkpoint_id)).toEqual(
      all.slice(0, 70).map((c) => c.id),
    );
    expect(store.calls.map((c) => c.limit)).toEqual([
      FIRST_HISTORY_PAGE,
      HISTORY_PAGE,
      70 - FIRST_HISTORY_PAGE - HISTORY_PAGE,
    ]);

    const older = await collect(graph.getStateHistory(config, { before: all[9]!.id, limit: 5 }));
    expect(older.map((h) => h.config.configurable?.checkpoint_id)).toEqual(
      all.slice(10, 15).map((c) => c.id),
    );
    expect(await collect(graph.getStateHistory(config, { limit: 0 }))).toEqual([]);
    await expect(collect(graph.getStateHistory(config, { limit: -1 }))).rejects.toBeInstanceOf(
      InvalidConfigError,
    );
  });
});
