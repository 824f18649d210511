import { describe, expect, it } from "vitest";
import { MemoryCheckpointer } from "../../src/checkpoint/index.js";
import { Graph, interrupt, START } from "../../src/index.js";

const append = (existing: unknown[] = [], update: unknown) => [...existing, ...[update].flat()];

describe("threads", () => {
  it("continues a finished thread with new input: the input goes through the reducers", async () => {
    const graph = new Graph()
      .addReducer("messages", append)
      .addNode("echo", (s) => ({ messages: `echo: ${s.messages.at(-1)}` }))
      .addEdge(START, "echo")
      .compile({ checkpointer: new MemoryCheckpointer() });
    const config = { configurable: { thread_id: "chat" } };
    await graph.invoke({ messages: "hi" }, { config });
    const second = await graph.invoke({ messages: "again" }, { config });
    expect(second.state.messages).toEqual(["hi", "echo: hi", "again", "echo: again"]);
    // Other threads are untouched.
    const other = await graph.invoke(
      { messages: "x" },
      { config: { configurable: { thread_id: "other" } } },
    );
    expect(other.state.messages).toEqual(["x", "echo: x"]);
  });

  it("starts over from the current values when new input arrives while paused (the pending interrupt is dropped)", async () => {
    const graph = new Graph()
      .addReducer("log", append)
      .addNode("ask", (s) => ({ log: `answer to ${s.question}: ${interrupt(s.question)}` }))
      .addEdge(START, "ask")
      .compile({ checkpointer: new MemoryCheckpointer() });
    const config = { configurable: { thread_id: "replace" } };
    const first = await graph.invoke({ question: "tea?", log: [] }, { config });
    expect(first.status).toBe("interrupted");
    const second = await graph.invoke({ question: "coffee?" }, { config });
    expect(second.status === "interrupted" && second.interrupt.value).toBe("coffee?");
    expect((await graph.getState(config)).interrupts).toHaveLength(1);
    expect((await graph.resume("yes", { config })).state.log).toEqual(["answer to coffee?: yes"]);
  });

  it("keeps threads of one graph isolated under concurrent runs", async () => {
    const graph = new Graph()
      .addNode("slow", async (s) => {
        await new Promise((r) => setTimeout(r, 5));
        return { out: s.n * 2 };
      })
      .addEdge(START, "slow")
      .compile({ checkpointer: new MemoryCheckpointer() });
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, n) =>
        graph.invoke({ n }, { config: { configurable: { thread_id: `iso-${n}` } } }),
      ),
    );
    expect(results.map((r) => r.state.out)).toEqual(Array.from({ length: 20 }, (_, n) => n * 2));
  });
});

describe("pending writes", () => {
  it("keeps the writes of tasks that finished in a failed step: continuing re-runs only the failed one", async () => {
    const calls = { fast: 0, flaky: 0 };
    let broken = true;
    const graph = new Graph()
      .addReducer("log", append)
      .addNode("fast", () => {
        calls.fast++;
        return { log: "fast" };
      })
      .addNode("flaky", async () => {
        calls.flaky++;
        await new Promise((r) => setTimeout(r, 5));
        if (broken) throw new Error("network down");
        return { log: "flaky" };
      })
      .addNode("after", (s) => ({ seen: s.log.length }))
      .addEdge(START, "fast")
      .addEdge(START, "flaky")
      .addEdge("fast", "after")
      .compile({ checkpointer: new MemoryCheckpointer() });
    const config = { configurable: { thread_id: "pending-writes" } };
    await expect(graph.invoke({ log: [] }, { config })).rejects.toThrow(/network down/);
    // getState shows the failed step as it stands: fast's write applied, flaky failed.
    const stuck = await graph.getState(config);
    expect(stuck.next).toEqual(["flaky"]);
    expect(stuck.values).toEqual({ log: ["fast"] });
    expect(stuck.tasks.map((t) => [t.name, t.status])).toEqual([
      ["fast", "done"],
      ["flaky", "failed"],
    ]);
    expect(stuck.tasks[1]!.error?.message).toMatch(/network down/);
    broken = false;
    const done = await graph.invoke(null, { config });
    expect(done.state).toEqual({ log: ["fast", "flaky"], seen: 2 });
    expect(calls).toEqual({ fast: 1, flaky: 2 });
  });
});
