import { describe, expect, it } from "vitest";
import { MemoryCheckpointer } from "../../src/checkpoint/index.js";
import { END, Graph, interrupt, START, type StreamEvent } from "../../src/index.js";

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
      { type: "updates", ns: "", step: 1, node: "a", update: { x: 1 } },
      { type: "updates", ns: "", step: 2, node: "b", update: { y: 2 } },
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
