import { describe, expect, it } from "vitest";
import { MemoryCheckpointer } from "../../src/checkpoint/index.js";
import { Command, END, Graph, interrupt, START, type StreamEvent } from "../../src/index.js";

async function collect(gen: AsyncGenerator<StreamEvent, unknown>) {
  const events: StreamEvent[] = [];
  let next = await gen.next();
  while (!next.done) {
    events.push(next.value);
    next = await gen.next();
  }
  return { events, result: next.value };
}

describe("stream()", () => {
  it("yields each node's update, the state at every barrier, custom events, then done", async () => {
    const graph = new Graph()
      .addNode("a", (_s, runtime) => {
        runtime.writer({ progress: 50 });
        return { x: 1 };
      })
      .addNode("b", (s) => ({ y: s.x + 1 }))
      .addEdge(START, "a")
      .addEdge("a", "b")
      .addEdge("b", END)
      .compile();
    const { events, result } = await collect(graph.stream({}));
    expect(events.map((e) => e.type)).toEqual([
      "values",
      "custom",
      "updates",
      "values",
      "updates",
      "values",
      "done",
    ]);
    expect(events.filter((e) => e.type === "updates")).toEqual([
      { type: "updates", ns: "", step: 1, node: "a", update: { x: 1 }, writes: [["x", 1]] },
      { type: "updates", ns: "", step: 2, node: "b", update: { y: 2 }, writes: [["y", 2]] },
    ]);
    expect(events.find((e) => e.type === "custom")).toMatchObject({
      node: "a",
      data: { progress: 50 },
    });
    expect(result).toEqual({ status: "done", state: { x: 1, y: 2 } });
  });

  it("ends with the interrupt when the run pauses, including one inside a subgraph", async () => {
    const child = new Graph({ name: "Child" })
      .addNode("ask", () => ({ answer: interrupt("?") }))
      .addEdge(START, "ask")
      .compile();
    const graph = new Graph()
      .addNode("child", child)
      .addEdge(START, "child")
      .compile({ checkpointer: new MemoryCheckpointer() });
    const { events, result } = await collect(
      graph.stream({}, { config: { configurable: { thread_id: "s1" } } }),
    );
    const last = events.at(-1)!;
    expect(last.type).toBe("interrupt");
    expect(events.filter((e) => e.type === "interrupt").map((e) => e.ns.split(":")[0])).toEqual([
      "child",
      "",
    ]);
    expect(result).toMatchObject({ status: "interrupted" });
  });

  it("a subgraph node's updates event carries every write the child made, in order, and its output state as the update", async () => {
    const append = (a: string[] = [], b: string | string[]) => [...a, ...[b].flat()];
    const child = new Graph({ name: "Child" })
      .addReducer("log", append)
      .addNode("one", () => ({ log: "one", status: "half" }))
      .addNode("two", () => ({ log: "two", status: "full" }))
      .addEdge(START, "one")
      .addEdge("one", "two")
      .compile();
    const graph = new Graph({ name: "Parent" })
      .addReducer("log", append)
      .addNode("child", child)
      .addEdge(START, "child")
      .compile();
    const { events } = await collect(graph.stream({ log: [] }));
    const update = events.find((e) => e.type === "updates" && e.ns === "" && e.node === "child");
    expect(update).toMatchObject({
      writes: [
        ["log", "one"],
        ["status", "half"],
        ["log", "two"],
        ["status", "full"],
      ],
      update: { log: ["one", "two"], status: "full" },
    });
  });

  it("a streamed resume starts with the thread's current values", async () => {
    const graph = new Graph({ name: "Resume" })
      .addNode("prepare", () => ({ ready: true }))
      .addNode("ask", () => ({ answer: interrupt("?") }))
      .addEdge(START, "prepare")
      .addEdge("prepare", "ask")
      .compile({ checkpointer: new MemoryCheckpointer() });
    const config = { configurable: { thread_id: "s-resume" } };
    await graph.invoke({ q: 1 }, { config });
    const { events } = await collect(graph.stream(new Command({ resume: "yes" }), { config }));
    expect(events[0]).toMatchObject({ type: "values", values: { q: 1, ready: true } });
    expect(events.at(-1)).toMatchObject({
      type: "done",
      state: { q: 1, ready: true, answer: "yes" },
    });
  });

  it("rethrows the run's error from the iterator", async () => {
    const graph = new Graph()
      .addNode("bad", () => {
        throw new Error("nope");
      })
      .addEdge(START, "bad")
      .compile();
    await expect(collect(graph.stream({}))).rejects.toThrow(/Node "bad" failed/);
  });
});
