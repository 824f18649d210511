import { describe, expect, it } from "vitest";
import { MemoryCheckpointer } from "../../src/checkpoint/index.js";
import { END, Graph, InvalidConfigError, interrupt, START } from "../../src/index.js";

function flow() {
  const calls: string[] = [];
  const graph = new Graph({ name: "Draft" })
    .addReducer("log", (e: string[] = [], u: string | string[]) => [...e, ...[u].flat()])
    .addNode("write", (s) => {
      calls.push("write");
      return { draft: `draft about ${s.topic}`, log: "write" };
    })
    .addNode("review", (s) => {
      calls.push("review");
      return { verdict: interrupt({ review: s.draft }), log: "review" };
    })
    .addNode("publish", (s) => ({ published: s.verdict === "ok", log: "publish" }))
    .addEdge(START, "write")
    .addEdge("write", "review")
    .addEdge("review", "publish")
    .addEdge("publish", END)
    .compile({ checkpointer: new MemoryCheckpointer() });
  return { graph, calls };
}

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

describe("time travel", () => {
  it("lists history newest first, each pointing at its parent", async () => {
    const { graph } = flow();
    const config = { configurable: { thread_id: "tt-history" } };
    await graph.invoke({ topic: "owls", log: [] }, { config });
    await graph.resume("ok", { config });
    const history = await collect(graph.getStateHistory(config));
    expect(history[0]!.values.published).toBe(true);
    expect(history.at(-1)!.metadata?.source).toBe("input");
    for (let i = 0; i < history.length - 1; i++) {
      expect(history[i]!.parentConfig?.configurable?.checkpoint_id).toBe(
        history[i + 1]!.config.configurable?.checkpoint_id,
      );
    }
    const steps = history.map((h) => h.metadata?.step);
    expect([...steps].sort((a, b) => b! - a!)).toEqual(steps);
    expect(history.some((h) => h.interrupts.length === 1 && h.next[0] === "review")).toBe(true);
  });

  it("forks from a past checkpoint: the interrupt after the fork fires again", async () => {
    const { graph, calls } = flow();
    const config = { configurable: { thread_id: "tt-fork" } };
    await graph.invoke({ topic: "owls", log: [] }, { config });
    await graph.resume("ok", { config });
    const history = await collect(graph.getStateHistory(config));
    // The checkpoint before "review", which keeps its pause as pending writes (as LangGraph's).
    const beforeReview = history.find((h) => h.next.length === 1 && h.next[0] === "review")!;
    calls.length = 0;
    const forkConfig = {
      configurable: {
        thread_id: "tt-fork",
        checkpoint_id: beforeReview.config.configurable!.checkpoint_id,
      },
    };
    const again = await graph.invoke(null, { config: forkConfig });
    expect(again.status).toBe("interrupted");
    expect(calls).toEqual(["review"]);
    const done = await graph.resume("rejected", { config });
    expect(done.state).toMatchObject({ published: false, log: ["write", "review", "publish"] });
    // The fork is now the thread's head; the original branch stays in history.
    const after = await collect(graph.getStateHistory(config));
    expect(after.length).toBeGreaterThan(history.length);
    expect(after.find((h) => h.metadata?.source === "fork")).toBeDefined();
  });

  it("a fork made with updateState on a past checkpoint resumes with the fork's own config", async () => {
    const { graph } = flow();
    const config = { configurable: { thread_id: "tt-fork-resume" } };
    await graph.invoke({ topic: "owls", log: [] }, { config });
    await graph.resume("ok", { config });
    const history = await collect(graph.getStateHistory(config));
    const beforeReview = history.find((h) => h.next[0] === "review")!;
    const fork = await graph.updateState(beforeReview.config, { topic: "bats" });
    const paused = await graph.invoke(null, { config: fork });
    expect(paused.status).toBe("interrupted");
    // The fork's config names the barrier its step paused from: resuming with it answers that pause.
    const done = await graph.resume("ok", { config: fork });
    expect(done.state).toMatchObject({ topic: "bats", published: true });
    expect((await graph.getState(config)).next).toEqual([]);
  });

  it("updateState(config, values | null, END) drops the pending interrupt and keeps finished writes: the thread is idle", async () => {
    const graph = new Graph({ name: "EndUpdate" })
      .addNode("sibling", () => ({ sibling: "done" }))
      .addNode("ask", () => ({ answer: interrupt("?") }))
      .addEdge(START, "sibling")
      .addEdge(START, "ask")
      .compile({ checkpointer: new MemoryCheckpointer() });
    const config = { configurable: { thread_id: "tt-end" } };
    await graph.invoke({}, { config });
    await graph.updateState(config, null, END);
    const state = await graph.getState(config);
    expect(state).toMatchObject({ values: { sibling: "done" }, next: [], interrupts: [] });
    await graph.updateState(config, { note: "closed by hand" }, END);
    expect((await graph.getState(config)).values).toEqual({
      sibling: "done",
      note: "closed by hand",
    });
    await expect(graph.resume("late", { config })).rejects.toThrow(/no pending interrupt/);
  });

  it("updateState writes a new checkpoint through the reducers; a paused run stays paused", async () => {
    const { graph } = flow();
    const config = { configurable: { thread_id: "tt-update" } };
    await graph.invoke({ topic: "owls", log: [] }, { config });
    const newConfig = await graph.updateState(config, { topic: "bats", log: "human" });
    const state = await graph.getState(config);
    expect(state.config.configurable?.checkpoint_id).toBe(newConfig.configurable?.checkpoint_id);
    expect(state.metadata?.source).toBe("update");
    expect(state.values).toMatchObject({ topic: "bats", log: ["write", "human"] });
    expect(state.next).toEqual(["review"]);
    expect(state.interrupts).toHaveLength(1);
    const done = await graph.resume("ok", { config });
    expect(done.state.log).toEqual(["write", "human", "review", "publish"]);
  });

  it("updateState asNode routes by that node's edges", async () => {
    const { graph, calls } = flow();
    const config = { configurable: { thread_id: "tt-asnode" } };
    await graph.invoke({ topic: "owls", log: [] }, { config });
    await graph.updateState(config, { verdict: "ok", log: "human review" }, "review");
    const state = await graph.getState(config);
    expect(state.next).toEqual(["publish"]);
    expect(state.interrupts).toEqual([]);
    const done = await graph.invoke(null, { config });
    expect(done.state).toMatchObject({
      published: true,
      log: ["write", "human review", "publish"],
    });
    expect(calls).toEqual(["write", "review"]);
  });

  it("rejects an unknown checkpoint id and an unknown asNode", async () => {
    const { graph } = flow();
    const config = { configurable: { thread_id: "tt-bad" } };
    await graph.invoke({ topic: "x", log: [] }, { config });
    await expect(
      graph.invoke(null, {
        config: { configurable: { thread_id: "tt-bad", checkpoint_id: "nope" } },
      }),
    ).rejects.toBeInstanceOf(InvalidConfigError);
    await expect(graph.updateState(config, {}, "ghost")).rejects.toThrow(/no such node/);
  });

  it("updateState asNode on a paused step keeps the writes of the tasks that finished", async () => {
    const graph = new Graph()
      .addNode("ask", () => ({ answer: interrupt("?") }))
      .addNode("work", () => ({ worked: true }))
      .addEdge(START, "ask")
      .addEdge(START, "work")
      .compile({ checkpointer: new MemoryCheckpointer() });
    const config = { configurable: { thread_id: "tt-asnode-paused" } };
    await graph.invoke({}, { config });
    await graph.updateState(config, { answer: "edited" }, "ask");
    expect((await graph.getState(config)).values).toEqual({ worked: true, answer: "edited" });
  });
});
