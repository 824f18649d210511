import { randomUUID } from "node:crypto";
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Checkpointer,
  MemoryCheckpointer,
  PGliteCheckpointer,
  PostgresCheckpointer,
} from "../../src/checkpoint/index.js";
import { END, Graph, interrupt, START } from "../../src/index.js";
import { dropStoreTables } from "../setup/store-tables.js";

const append = (a: string[] = [], b: string | string[]) => [...a, ...[b].flat()];
const url = process.env.STATEWEAVER_PG_URL;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A chat: the user speaks (an interrupt), the assistant answers, and round again. */
function chat(checkpointer: Checkpointer) {
  return new Graph({ name: `Chat${randomUUID().slice(0, 8)}` })
    .addReducer("messages", append)
    .addNode("user", () => ({ messages: `user: ${interrupt("Your turn") as string}` }))
    .addNode("assistant", (s) => ({ messages: `assistant: ${s.messages.length} so far` }))
    .addEdge(START, "user")
    .addEdge("user", "assistant")
    .addEdge("assistant", "user")
    .compile({ checkpointer });
}

/** Two branches in one step: `quick` finishes, `review` pauses; counts the runs of `quick`. */
function fanOut(checkpointer: Checkpointer) {
  const runs = { quick: 0 };
  const graph = new Graph({ name: `FanOut${randomUUID().slice(0, 8)}` })
    .addReducer("log", append)
    .addNode("quick", () => {
      runs.quick++;
      return { log: "quick" };
    })
    .addNode("review", () => ({ log: `review:${interrupt("ok?") as string}` }))
    .addEdge(START, "quick")
    .addEdge(START, "review")
    .addEdge("quick", END)
    .addEdge("review", END)
    .compile({ checkpointer });
  return { graph, runs };
}

/** A parent whose subgraph pauses after a step of its own; counts the runs of that step. */
function withSubgraph(checkpointer: Checkpointer) {
  const runs = { prepare: 0 };
  const child = new Graph({ name: "Approval" })
    .addReducer("log", append)
    .addNode("prepare", () => {
      runs.prepare++;
      return { log: "child:prepare" };
    })
    .addNode("ask", () => ({ decision: interrupt("Approve?"), log: "child:ask" }))
    .addEdge(START, "prepare")
    .addEdge("prepare", "ask")
    .compile();
  const graph = new Graph({ name: "Parent" })
    .addReducer("log", append)
    .addNode("one", () => ({ log: "one" }))
    .addNode("two", () => ({ log: "two" }))
    .addNode("review", child)
    .addNode("finish", (s) => ({ log: `finish(${s.decision})` }))
    .addEdge(START, "one")
    .addEdge("one", "two")
    .addEdge("two", "review")
    .addEdge("review", "finish")
    .addEdge("finish", END)
    .compile({ checkpointer });
  return { graph, runs };
}

const thread = () => ({ configurable: { thread_id: `retention-${randomUUID()}` } });
const idOf = (config: { configurable: { thread_id: string } }) => config.configurable.thread_id;

interface StoreCase {
  name: string;
  make: () => Promise<Checkpointer>;
}
const pools: pg.Pool[] = [];
const prefixes: string[] = [];
const stores: StoreCase[] = [
  { name: "MemoryCheckpointer", make: async () => new MemoryCheckpointer() },
  { name: "PGliteCheckpointer", make: async () => new PGliteCheckpointer() },
];
if (url) {
  stores.push({
    name: "PostgresCheckpointer",
    make: async () => {
      // Tables of this file's own: the database is shared.
      const prefix = `sw_retention_${randomUUID().slice(0, 8)}_`;
      prefixes.push(prefix);
      return new PostgresCheckpointer({ connectionString: url, tablePrefix: prefix });
    },
  });
}

afterAll(async () => {
  if (prefixes.length === 0) return;
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  pools.push(pool);
  for (const prefix of prefixes) {
    await dropStoreTables(pool, prefix);
  }
  for (const p of pools) await p.end();
});

describe.each(stores)("retention on $name", ({ make }) => {
  // One store for the cases (each on its own threads): PGlite takes seconds to start.
  let shared: Checkpointer | undefined;
  beforeAll(async () => {
    shared = await make();
  });
  afterAll(async () => {
    await shared?.close?.();
  });
  const withStore = (fn: (store: Checkpointer) => Promise<void>) => fn(shared!);

  it("a 50-step conversation pruned to keep 1 reads the same and resumes as its unpruned copy does", () =>
    withStore(async (store) => {
      const graph = chat(store);
      const config = thread();
      await graph.invoke({ messages: [] }, { config });
      for (let turn = 0; turn < 25; turn++) await graph.resume(`hello ${turn}`, { config });
      const history = await store.list(idOf(config));
      expect(history.length).toBeGreaterThanOrEqual(50);
      const twin = thread();
      await store.copyThread(idOf(config), idOf(twin));
      const before = await graph.getState(config, { subgraphs: true });
      const record = await store.getThread(idOf(config));

      expect(await store.prune(idOf(config), { keep: 1 })).toBe(history.length - 1);
      expect(await graph.getState(config, { subgraphs: true })).toEqual(before);
      expect(await store.getThread(idOf(config))).toEqual(record);
      // History now ends at the kept checkpoint: the barrier its pause is pending writes of.
      expect(await store.list(idOf(config))).toHaveLength(1);

      const resumed = await graph.resume("one more", { config });
      const twinResumed = await graph.resume("one more", { config: twin });
      // Interrupt ids differ: each thread's new pause hashes its own thread id.
      const withoutIds = (r: typeof resumed) =>
        JSON.parse(JSON.stringify(r).replace(/"id":"[0-9a-f]{24}"/g, '"id":"…"'));
      expect(withoutIds(resumed)).toEqual(withoutIds(twinResumed));
      expect(resumed.status).toBe("interrupted");
      expect(resumed.state.messages.at(-2)).toBe("user: one more");
    }));

  it("a paused step pruned keeps its pause and its finished task's writes: the resume does not re-run that task", () =>
    withStore(async (store) => {
      const { graph, runs } = fanOut(store);
      const config = thread();
      const paused = await graph.invoke({ log: [] }, { config });
      expect(paused.status).toBe("interrupted");
      const before = await graph.getState(config);
      await store.prune(idOf(config), { keep: "latest" });
      expect(await graph.getState(config)).toEqual(before);
      expect((await store.getThread(idOf(config)))?.status).toBe("interrupted");

      const done = await graph.resume("yes", { config });
      expect(done.state.log).toEqual(["quick", "review:yes"]);
      expect(runs.quick).toBe(1);
    }));

  it("a subgraph's pause survives prune: the child resumes where it stopped", () =>
    withStore(async (store) => {
      const { graph, runs } = withSubgraph(store);
      const config = thread();
      const paused = await graph.invoke({ log: [] }, { config });
      expect(paused.status === "interrupted" && paused.interrupt.ns).toMatch(/^review:/);
      const before = await graph.getState(config, { subgraphs: true });
      expect(before.tasks[0]?.state?.interrupts).toHaveLength(1);

      expect(await store.prune(idOf(config), { keep: 1 })).toBeGreaterThan(0);
      expect(await graph.getState(config, { subgraphs: true })).toEqual(before);

      const done = await graph.resume("yes", { config });
      expect(done.state.log).toEqual(["one", "two", "child:prepare", "child:ask", "finish(yes)"]);
      expect(runs.prepare).toBe(1);
    }));

  it("a copy of a paused thread resumes on its own; the original stays paused", () =>
    withStore(async (store) => {
      const { graph } = withSubgraph(store);
      const config = thread();
      await graph.invoke({ log: [] }, { config });
      const original = await graph.getState(config, { subgraphs: true });
      const copy = thread();
      await store.copyThread(idOf(config), idOf(copy));
      const copied = await graph.getState(copy, { subgraphs: true });
      expect(copied.values).toEqual(original.values);
      expect(copied.interrupts).toEqual(original.interrupts);
      expect(copied.config.configurable?.thread_id).toBe(idOf(copy));

      const done = await graph.resume("copy says yes", { config: copy });
      expect(done.state.log.at(-1)).toBe("finish(copy says yes)");
      expect(await graph.getState(config, { subgraphs: true })).toEqual(original);
      expect((await store.getThread(idOf(config)))?.status).toBe("interrupted");
      const again = await graph.resume("original says no", { config });
      expect(again.state.log.at(-1)).toBe("finish(original says no)");
    }));

  it("pruneThreads deletes only the threads idle since before the time given", () =>
    withStore(async (store) => {
      const { graph } = fanOut(store);
      const finished = new Graph({ name: graph.name })
        .addNode("a", () => ({}))
        .addEdge(START, "a")
        .compile({ checkpointer: store });
      const oldIdle = thread();
      const oldPaused = thread();
      await finished.invoke({}, { config: oldIdle });
      await graph.invoke({ log: [] }, { config: oldPaused });
      await sleep(30);
      const cut = new Date();
      await sleep(30);
      const newIdle = thread();
      await finished.invoke({}, { config: newIdle });

      expect(await store.pruneThreads({ idleBefore: cut, graph: graph.name })).toBe(1);
      expect(await store.getThread(idOf(oldIdle))).toBeUndefined();
      expect((await finished.getState(oldIdle)).values).toEqual({});
      expect((await store.getThread(idOf(oldPaused)))?.status).toBe("interrupted");
      expect((await store.getThread(idOf(newIdle)))?.status).toBe("idle");
      // The paused thread still resumes.
      expect((await graph.resume("yes", { config: oldPaused })).status).toBe("done");
    }));
});

describe("pruneThreads on PGlite", () => {
  it("goes by the record's updatedAt: threads last written 40 days ago go, yesterday's stay", async () => {
    const db = new PGlite("memory://");
    const store = new PGliteCheckpointer({ db });
    try {
      const graph = new Graph({ name: "Aged" })
        .addNode("a", () => ({}))
        .addEdge(START, "a")
        .compile({ checkpointer: store });
      const ids: string[] = [];
      for (let i = 0; i < 250; i++) {
        const config = thread();
        ids.push(idOf(config));
        await graph.invoke({}, { config });
      }
      // Three batches' worth are old; the rest were written yesterday.
      await db.query(
        `update stateweaver_threads set updated_at = date_trunc('milliseconds', now()) - interval '40 days'
          where ns = '' and thread_id = any($1::text[])`,
        [ids.slice(0, 230)],
      );
      await db.query(
        `update stateweaver_threads set updated_at = date_trunc('milliseconds', now()) - interval '1 day'
          where ns = '' and thread_id = any($1::text[])`,
        [ids.slice(230)],
      );
      const monthAgo = new Date(Date.now() - 30 * 86_400_000);
      expect(await store.pruneThreads({ idleBefore: monthAgo })).toBe(230);
      const left = await db.query<{ n: number }>(
        "select count(distinct thread_id)::int as n from stateweaver_checkpoints",
      );
      expect(left.rows[0]?.n).toBe(20);
      expect(await store.pruneThreads({ idleBefore: monthAgo })).toBe(0);
    } finally {
      await store.close();
      await db.close();
    }
  });
});
