/**
 * What each checkpoint records of its step (`metadata.writes`, as LangGraph's do), and
 * `bulkUpdateState`, which writes a thread from such steps, on every store: the input as
 * `__start__`, each node's update, several nodes' updates merged in one super-step, and a
 * refused superstep that leaves the thread as it was.
 */
import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Checkpointer,
  MemoryCheckpointer,
  PGliteCheckpointer,
  PostgresCheckpointer,
} from "../../src/checkpoint/index.js";
import {
  type CompiledGraph,
  END,
  Graph,
  InvalidConfigError,
  InvalidUpdateError,
  interrupt,
  Send,
  START,
  type StateSnapshot,
} from "../../src/index.js";
import { dropStoreTables } from "../setup/store-tables.js";

const url = process.env.STATEWEAVER_PG_URL;
const append = (a: string[] = [], b: string | string[]) => [...a, ...[b].flat()];

type Chat = { log: string[]; topic?: string; replies?: number };

/** `draft` then `review`, twice round: the log grows by one line a step. */
function chat(checkpointer: Checkpointer) {
  return new Graph({ name: "Chat" })
    .addReducer("log", append)
    .addNode("draft", (s: Chat) => ({
      log: `draft about ${s.topic}`,
      replies: (s.replies ?? 0) + 1,
    }))
    .addNode("review", () => ({ log: ["reviewed"] }))
    .addEdge(START, "draft")
    .addEdge("draft", "review")
    .addConditionalEdges("review", (s) => (((s.replies as number) ?? 0) < 2 ? "draft" : END))
    .compile({ checkpointer });
}

/** `split` sends one `shout` per word; `count` runs beside them. */
function fanOut(checkpointer: Checkpointer) {
  return new Graph({ name: "FanOut" })
    .addReducer("log", append)
    .addNode("split", () => ({}))
    .addNode("shout", (word: string) => ({ log: word.toUpperCase() }))
    .addNode("count", (s) => ({ counted: (s.words as string[]).length }))
    .addEdge(START, "split")
    .addConditionalEdges("split", (s) => [
      ...(s.words as string[]).map((w) => new Send("shout", w)),
      "count",
    ])
    .addEdge("shout", END)
    .addEdge("count", END)
    .compile({ checkpointer });
}

/** `left` and `right` both run after START; `join` waits for both. */
function diamond(checkpointer: Checkpointer) {
  return new Graph({ name: "Diamond" })
    .addReducer("log", append)
    .addNode("left", () => ({ log: "left" }))
    .addNode("right", () => ({ log: "right" }))
    .addNode("join", () => ({ asked: interrupt("join?") as string }))
    .addEdge(START, "left")
    .addEdge(START, "right")
    .addEdge(["left", "right"], "join")
    .addEdge("join", END)
    .compile({ checkpointer });
}

async function historyOf(graph: CompiledGraph<any>, config: object): Promise<StateSnapshot[]> {
  const out: StateSnapshot[] = [];
  for await (const s of graph.getStateHistory(config as never)) out.push(s);
  return out.reverse();
}

const thread = () => ({ configurable: { thread_id: `writes-${randomUUID()}` } });

const prefixes: string[] = [];
const stores: Array<{ name: string; make: () => Checkpointer }> = [
  { name: "MemoryCheckpointer", make: () => new MemoryCheckpointer() },
  { name: "PGliteCheckpointer", make: () => new PGliteCheckpointer() },
];
if (url) {
  stores.push({
    name: "PostgresCheckpointer",
    make: () => {
      const prefix = `sw_writes_${randomUUID().slice(0, 8)}_`;
      prefixes.push(prefix);
      return new PostgresCheckpointer({ connectionString: url, tablePrefix: prefix });
    },
  });
}

afterAll(async () => {
  if (prefixes.length === 0) return;
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  for (const prefix of prefixes) await dropStoreTables(pool, prefix);
  await pool.end();
});

describe.each(stores)("each checkpoint's writes, and bulkUpdateState, on $name", ({ make }) => {
  let store: Checkpointer;
  beforeAll(() => {
    store = make();
  });
  afterAll(async () => {
    await store.close?.();
  });

  it("records the input under __start__, then each step's update by node; START's own step records none", async () => {
    const graph = chat(store);
    const config = thread();
    await graph.invoke({ topic: "owls", log: [] }, { config });
    const history = await historyOf(graph, config);
    expect(history.map((s) => [s.metadata?.source, s.metadata?.writes])).toEqual([
      ["input", { __start__: { topic: "owls", log: [] } }],
      ["loop", null],
      ["loop", { draft: { log: "draft about owls", replies: 1 } }],
      ["loop", { review: { log: ["reviewed"] } }],
      ["loop", { draft: { log: "draft about owls", replies: 2 } }],
      ["loop", { review: { log: ["reviewed"] } }],
    ]);
  });

  it("records a node that ran as several tasks (Send) as a list of its updates, beside the other nodes of the step", async () => {
    const graph = fanOut(store);
    const config = thread();
    await graph.invoke({ words: ["a", "b"], log: [] }, { config });
    const last = (await historyOf(graph, config)).at(-1)!;
    expect(last.metadata?.writes).toEqual({
      shout: [{ log: "A" }, { log: "B" }],
      count: { counted: 2 },
    });
  });

  it("writes nothing for a pause: the barrier it paused from keeps the step before's writes, and the paused step's come with the barrier after it", async () => {
    const graph = diamond(store);
    const config = thread();
    await graph.invoke({ log: [] }, { config });
    const history = await historyOf(graph, config);
    const paused = history.at(-1)!;
    expect(paused.next).toEqual(["join"]);
    expect(paused.interrupts).toHaveLength(1);
    // As LangGraph stores it: the pause is pending writes of that barrier, not a checkpoint.
    expect(paused.metadata?.writes).toEqual({ left: { log: "left" }, right: { log: "right" } });
    expect(history.filter((s) => s.metadata?.step === paused.metadata?.step)).toHaveLength(1);
    await graph.resume("yes", { config });
    expect((await graph.getState(config)).metadata?.writes).toEqual({ join: { asked: "yes" } });
  });

  it("rebuilds a thread from another's writes: every checkpoint has the same next and values", async () => {
    const graph = chat(store);
    const source = thread();
    await graph.invoke({ topic: "owls", log: [] }, { config: source });
    const history = await historyOf(graph, source);
    const supersteps = history.flatMap((s) => {
      const writes = (s.metadata?.writes ?? {}) as Record<string, unknown>;
      if (s.metadata?.source === "input") {
        const values = writes.__start__ as Chat;
        return [
          { updates: [{ values, asNode: "__input__" }] },
          { updates: [{ values, asNode: START }] },
        ];
      }
      const updates = Object.entries(writes).map(([asNode, values]) => ({
        values: values as Partial<Chat>,
        asNode,
      }));
      return updates.length > 0 ? [{ updates }] : [];
    });
    const clone = thread();
    const last = await graph.bulkUpdateState(clone, supersteps);
    const rebuilt = await historyOf(graph, clone);
    expect(last.configurable?.checkpoint_id).toBe(
      rebuilt.at(-1)!.config.configurable?.checkpoint_id,
    );
    expect(rebuilt.map((s) => s.next)).toEqual(history.map((s) => s.next));
    expect(rebuilt.map((s) => s.values)).toEqual(history.map((s) => s.values));
    expect(rebuilt.map((s) => s.metadata?.source)).toEqual([
      "input",
      "update",
      "update",
      "update",
      "update",
      "update",
    ]);
  });

  it("merges several nodes' updates of one superstep at one barrier: one checkpoint, and their edges pick what is next", async () => {
    const graph = diamond(store);
    const config = thread();
    await graph.bulkUpdateState(config, [
      { updates: [{ values: { log: [] }, asNode: "__input__" }] },
      {
        updates: [
          { values: { log: "L" }, asNode: "left" },
          { values: { log: "R" }, asNode: "right" },
        ],
      },
    ]);
    const history = await historyOf(graph, config);
    expect(history).toHaveLength(2);
    const state = history[1]!;
    expect(state.values.log).toEqual(["L", "R"]);
    expect(state.next).toEqual(["join"]);
    expect(state.metadata?.writes).toEqual({ left: { log: "L" }, right: { log: "R" } });
  });

  it("as __input__ leaves the thread waiting to start from the input, as invoke received it; invoke(null) runs it", async () => {
    const graph = chat(store);
    const config = thread();
    await graph.updateState(config, { topic: "bats", log: [] }, "__input__");
    const waiting = await graph.getState(config);
    expect(waiting.next).toEqual([START]);
    expect(waiting.metadata).toMatchObject({
      source: "input",
      writes: { __start__: { topic: "bats", log: [] } },
    });
    const done = await graph.invoke(null, { config });
    expect(done.state.log).toEqual([
      "draft about bats",
      "reviewed",
      "draft about bats",
      "reviewed",
    ]);
  });

  it("a refused superstep rewinds the ones before it: the thread is as it was", async () => {
    const graph = chat(store);
    const config = thread();
    await graph.invoke({ topic: "owls", log: [] }, { config });
    const before = await historyOf(graph, config);
    await expect(
      graph.bulkUpdateState(config, [
        { updates: [{ values: { log: "one more" }, asNode: "draft" }] },
        { updates: [{ values: { log: 42 as never }, asNode: "review" }] },
        { updates: [{ values: null, asNode: "__input__" }] },
      ]),
    ).rejects.toThrow(InvalidUpdateError);
    expect(await historyOf(graph, config)).toEqual(before);
    expect((await store.getThread(config.configurable.thread_id))?.status).toBe("idle");
  });
});

describe("supersteps that cannot be applied are refused before anything is written", () => {
  const graph = chat(new MemoryCheckpointer());

  it.each([
    ["no supersteps", [], InvalidUpdateError, /no supersteps/],
    ["an empty superstep", [{ updates: [] }], InvalidUpdateError, /Superstep 0 has no updates/],
    [
      "an unknown node",
      [{ updates: [{ values: {}, asNode: "ghost" }] }],
      InvalidConfigError,
      /asNode: "ghost"\): no such node\. Known nodes: draft, review/,
    ],
    [
      "__input__ in company",
      [
        {
          updates: [
            { values: { log: [] }, asNode: "__input__" },
            { values: { log: "x" }, asNode: "draft" },
          ],
        },
      ],
      InvalidUpdateError,
      /one of them as "__input__", which stands alone/,
    ],
    [
      "an update without asNode in company",
      [{ updates: [{ values: { log: "x" } }, { values: { log: "y" }, asNode: "draft" }] }],
      InvalidUpdateError,
      /without asNode/,
    ],
  ])("%s", async (_name, supersteps, type, message) => {
    const config = thread();
    const attempt = graph.bulkUpdateState(config, supersteps as never);
    await expect(attempt).rejects.toThrow(type);
    await expect(graph.bulkUpdateState(config, supersteps as never)).rejects.toThrow(message);
    expect(await graph.checkpointer!.getLatest(config.configurable.thread_id)).toBeUndefined();
  });

  it("as __input__ without values", async () => {
    const config = thread();
    await expect(graph.updateState(config, null, "__input__")).rejects.toThrow(
      /"__input__" is the run's input and needs values/,
    );
    expect(await graph.checkpointer!.getLatest(config.configurable.thread_id)).toBeUndefined();
  });
});
