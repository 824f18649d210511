/**
 * S8: `getStateHistory` of a 500-step thread, read in pages. Times the first item (the
 * issue's budget: 20 ms whatever the thread's length) and the whole history, on PGlite
 * (memory://) and in memory, next to one unpaged `list()` of the same thread (what
 * `getStateHistory` did before). `ours_us` is PGlite's time to the first item; `peer_us`
 * is the 20 ms budget, so the ratio is the share of the budget used.
 *
 * The thread is seeded by putting checkpoints directly: one real checkpoint of a counting
 * graph, copied 500 times down a parent chain (new ids, steps, and a value that grows by
 * one message per step, as a conversation's does).
 */

import { END, Graph, START } from "stateweaver";
import {
  type Checkpointer,
  checkpointId,
  createdAtOf,
  MemoryCheckpointer,
  PGliteCheckpointer,
} from "stateweaver/checkpoint";
import { median } from "../measure.js";
import { check, result, round, type Scenario } from "../scenario.js";

export const STEPS = 500;
export const BUDGET_US = 20_000;

type Counter = { n: number; messages: string[] };

function counter(checkpointer: Checkpointer) {
  return new Graph<Counter>({ name: "Counter" })
    .addReducer("messages", (a: string[] = [], b: string[]) => [...a, ...b])
    .addNode("count", (s) => ({ n: s.n + 1, messages: [`message ${s.n + 1}`] }))
    .addEdge(START, "count")
    .addEdge("count", END)
    .compile({ checkpointer });
}

/** A `STEPS`-checkpoint thread: the graph's own last checkpoint, copied down a chain. */
async function seed(store: Checkpointer, threadId: string): Promise<void> {
  const graph = counter(store);
  const template = `${threadId}-template`;
  await graph.invoke({ n: 0, messages: [] }, { config: { configurable: { thread_id: template } } });
  const last = (await store.getLatest(template))!.checkpoint;
  let parentId: string | null = null;
  for (let step = 0; step < STEPS; step++) {
    const id = checkpointId();
    const messages = Array.from({ length: step }, (_, i) => `message ${i + 1}: ${"x".repeat(80)}`);
    await store.put(
      {
        ...last,
        id,
        threadId,
        parentId,
        values: { ...last.values, n: step, messages },
        metadata: { ...last.metadata, step },
        createdAt: createdAtOf(id)!,
      },
      { expectedLatestId: parentId },
    );
    parentId = id;
  }
}

interface Timing {
  firstUs: number[];
  totalUs: number[];
  listUs: number[];
}

async function time(store: Checkpointer, threadId: string, runs: number): Promise<Timing> {
  const graph = counter(store);
  const config = { configurable: { thread_id: threadId } };
  const timing: Timing = { firstUs: [], totalUs: [], listUs: [] };
  for (let i = 0; i < runs + 2; i++) {
    // The last run's garbage (megabytes of payloads) is not this run's cost.
    (globalThis as { gc?: () => void }).gc?.();
    const start = performance.now();
    let first = 0;
    let items = 0;
    for await (const snapshot of graph.getStateHistory(config)) {
      if (items++ === 0) {
        first = performance.now() - start;
        check(snapshot.values.n === STEPS - 1, "S8 newest first", snapshot.values.n);
      }
    }
    const total = performance.now() - start;
    check(items === STEPS, "S8 every checkpoint", items);
    (globalThis as { gc?: () => void }).gc?.();
    const listStart = performance.now();
    const all = await store.list(threadId);
    const list = performance.now() - listStart;
    check(all.length === STEPS, "S8 the unpaged list", all.length);
    if (i < 2) continue; // warm-up
    timing.firstUs.push(first * 1000);
    timing.totalUs.push(total * 1000);
    timing.listUs.push(list * 1000);
  }
  return timing;
}

const ms = (us: number[]) => round(median(us) / 1000, 2);

export const s8: Scenario = {
  id: "S8",
  title: `history: first item and all of a ${STEPS}-step thread, paged`,
  async run({ quick, log }) {
    const runs = quick ? 3 : 10;
    log(`  S8 PGlite: seeding ${STEPS} checkpoints…`);
    const pglite = new PGliteCheckpointer();
    const memory = new MemoryCheckpointer();
    try {
      await seed(pglite, "s8");
      const lite = await time(pglite, "s8", runs);
      await seed(memory, "s8");
      const mem = await time(memory, "s8", runs);
      const liteFirst = median(lite.firstUs);
      return result({
        scenario: "S8",
        title: this.title,
        ours_us: liteFirst,
        peer_us: BUDGET_US,
        target: 1,
        peer: "the 20 ms budget (ours_us is PGlite's time to the first item)",
        met: liteFirst <= BUDGET_US && median(mem.firstUs) <= BUDGET_US,
        extra: {
          pglite_first_ms: ms(lite.firstUs),
          pglite_all_ms: ms(lite.totalUs),
          pglite_unpaged_list_ms: ms(lite.listUs),
          memory_first_ms: ms(mem.firstUs),
          memory_all_ms: ms(mem.totalUs),
          memory_unpaged_list_ms: ms(mem.listUs),
        },
      });
    } finally {
      await pglite.close();
    }
  },
};
