import { describe, expect, it } from "vitest";
import { MemoryCheckpointer } from "../../src/checkpoint/index.js";
import { Graph, interrupt, START } from "../../src/index.js";

describe("getState", () => {
  it("shows values, next, interrupts, tasks, config, parentConfig, metadata and createdAt; a paused step shows its finished tasks' writes", async () => {
    const graph = new Graph()
      .addNode("prepare", () => ({ ready: true }))
      .addNode("ask", () => ({ answer: interrupt("Why?") }))
      .addNode("sibling", () => ({ note: "done" }))
      .addEdge(START, "prepare")
      .addEdge("prepare", "ask")
      .addEdge("prepare", "sibling")
      .compile({ checkpointer: new MemoryCheckpointer() });
    const config = { configurable: { thread_id: "state-1" } };
    const r = await graph.invoke({ q: 1 }, { config });
    if (r.status !== "interrupted") throw new Error("expected a pause");
    const s = await graph.getState(config);
    // The sibling finished in the paused step: its write shows (and it will not run again);
    // only the paused task is next.
    expect(s.values).toEqual({ q: 1, ready: true, note: "done" });
    expect(r.state).toEqual(s.values);
    expect(s.next).toEqual(["ask"]);
    expect(s.interrupts).toEqual([r.interrupt]);
    expect(s.tasks.map((t) => [t.name, t.status])).toEqual([
      ["ask", "interrupted"],
      ["sibling", "done"],
    ]);
    expect(s.tasks[1]!.result).toEqual({ note: "done" });
    expect(s.tasks[0]!.interrupts).toEqual([r.interrupt]);
    expect(s.config.configurable).toMatchObject({ thread_id: "state-1", checkpoint_ns: "" });
    expect(typeof s.config.configurable?.checkpoint_id).toBe("string");
    expect(s.parentConfig?.configurable?.checkpoint_id).toBeDefined();
    expect(s.metadata).toMatchObject({ step: 2, source: "loop" });
    expect(Number.isNaN(Date.parse(s.createdAt!))).toBe(false);
  });

  it("is empty for a thread that never ran", async () => {
    const graph = new Graph()
      .addNode("a", () => ({}))
      .addEdge(START, "a")
      .compile({
        checkpointer: new MemoryCheckpointer(),
      });
    const s = await graph.getState({ configurable: { thread_id: "nobody" } });
    expect(s).toMatchObject({
      values: {},
      next: [],
      interrupts: [],
      tasks: [],
      metadata: undefined,
    });
  });
});
