import { describe, expect, it } from "vitest";
import { MemoryCheckpointer } from "../../src/checkpoint/index.js";
import { END, Graph, START } from "../../src/index.js";
import { MemoryStore } from "../../src/store/index.js";
import { wordEmbeddings } from "../../src/testing/index.js";

type S = { user: string; theme?: string; seen?: boolean };

/** Saves the user's theme in the store, then reads it back in a second node. */
const remember = () =>
  new Graph<S>({ name: "remember" })
    .addNode("save", async (s, runtime) => {
      await runtime.store?.put(["users", s.user], "prefs", { theme: "dark" });
      return {};
    })
    .addNode("load", async (s, runtime) => {
      const item = await runtime.store?.get(["users", s.user], "prefs");
      return { theme: item?.value.theme as string | undefined, seen: runtime.store !== undefined };
    })
    .addEdge(START, "save")
    .addEdge("save", "load")
    .addEdge("load", END);

describe("runtime.store", () => {
  it("is the store given to compile(), shared by every node and call", async () => {
    const store = new MemoryStore();
    const graph = remember().compile({ store });
    const r = await graph.invoke({ user: "u1" });
    expect(r.state).toMatchObject({ theme: "dark", seen: true });
    expect((await store.get(["users", "u1"], "prefs"))?.value).toEqual({ theme: "dark" });
  });

  it("is undefined when the graph has no store", async () => {
    const r = await remember().compile().invoke({ user: "u1" });
    expect(r.state).toMatchObject({ seen: false });
    expect(r.state.theme).toBeUndefined();
  });

  it("reaches a subgraph's nodes, and withStore() rebinds a compiled graph", async () => {
    const child = remember().compile();
    const parent = new Graph<S>({ name: "parent" })
      .addNode("child", child)
      .addEdge(START, "child")
      .addEdge("child", END)
      .compile({ checkpointer: new MemoryCheckpointer() });
    const store = new MemoryStore();
    const r = await parent
      .withStore(store)
      .invoke({ user: "u2" }, { config: { configurable: { thread_id: "t" } } });
    expect(r.state).toMatchObject({ theme: "dark", seen: true });
    expect(await store.search(["users"])).toHaveLength(1);
  });

  it("searches by meaning from a node when the store has an index", async () => {
    const store = new MemoryStore({ index: { dims: 32, embed: wordEmbeddings(32) } });
    await store.put(["facts"], "f1", { text: "the deploy runs on fridays" });
    await store.put(["facts"], "f2", { text: "lunch is at noon" });
    const recall = new Graph<{ question: string; found?: string }>({ name: "recall" })
      .addNode("search", async (s, runtime) => {
        const [best] = (await runtime.store?.search(["facts"], { query: s.question })) ?? [];
        return { found: best?.key };
      })
      .addEdge(START, "search")
      .addEdge("search", END)
      .compile({ store });
    const r = await recall.invoke({ question: "when does the deploy run" });
    expect(r.state.found).toBe("f1");
  });
});
