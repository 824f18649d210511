// updateState without asNode, as LangGraph infers the node: the one that ran last (its
// edges decide what is next, its name keys metadata.writes, the step moves on), START on a
// thread no node has run on, a typed error when two nodes ran last together; a paused
// run's update is written in place, so the pause stays.
import { describe, expect, it } from "vitest";
import { MemoryCheckpointer } from "../../src/checkpoint/index.js";
import { InvalidUpdateError } from "../../src/errors/index.js";
import { END, Graph, interrupt, START } from "../../src/index.js";

const append = (a: string[] = [], b: string | string[] = []) => [...a, ...[b].flat()];

/** `draft` then `check`, or both at once when `parallel`. */
const twoSteps = (parallel = false) => {
  const g = new Graph({ name: parallel ? "fan" : "line" })
    .addReducer("log", append)
    .addNode("draft", () => ({ log: "draft" }))
    .addNode("check", () => ({ log: "check" }))
    .addEdge(START, "draft")
    .addEdge("check", END);
  if (parallel) g.addEdge(START, "check").addEdge("draft", END);
  else g.addEdge("draft", "check");
  return g.compile({ checkpointer: new MemoryCheckpointer() });
};

let threads = 0;
const fresh = () => ({ configurable: { thread_id: `last-node-${++threads}` } });

describe("updateState without asNode", () => {
  it("is written as the node that ran last: its writes, the next step, its edges", async () => {
    const graph = twoSteps();
    const config = fresh();
    await graph.invoke({ log: [] }, { config });
    const before = await graph.getState(config);
    await graph.updateState(config, { log: "by hand" });
    const after = await graph.getState(config);
    expect(after.metadata).toMatchObject({
      source: "update",
      step: before.metadata!.step + 1,
      writes: { check: { log: "by hand" } },
    });
    expect(after.values).toEqual({ log: ["draft", "check", "by hand"] });
    expect(after.next).toEqual([]);
  });

  it("is written as START on a thread no node has run on, so START's edges are next", async () => {
    const graph = twoSteps();
    const config = fresh();
    await graph.updateState(config, { log: ["seeded"] });
    const state = await graph.getState(config);
    expect(state.metadata).toMatchObject({
      source: "update",
      writes: { __start__: { log: ["seeded"] } },
    });
    expect(state.next).toEqual(["draft"]);
    expect((await graph.invoke(null, { config })).state).toEqual({
      log: ["seeded", "draft", "check"],
    });
  });

  it("refuses when two nodes ran last together, naming them, and leaves the thread as it was", async () => {
    const graph = twoSteps(true);
    const config = fresh();
    await graph.invoke({ log: [] }, { config });
    const before = await graph.getState(config);
    const call = graph.updateState(config, { log: "which?" });
    await expect(call).rejects.toBeInstanceOf(InvalidUpdateError);
    await expect(call).rejects.toThrow(/Ambiguous update: nodes "draft" and "check" ran last/);
    expect((await graph.getState(config)).config).toEqual(before.config);
    await graph.updateState(config, { log: "named" }, "draft");
    expect((await graph.getState(config)).metadata?.writes).toEqual({ draft: { log: "named" } });
  });

  it("on a paused run is written in place: the interrupt still waits for its answer", async () => {
    const graph = new Graph({ name: "paused" })
      .addReducer("log", append)
      .addNode("ask", () => ({ log: `answer ${interrupt("ok?")}` }))
      .addEdge(START, "ask")
      .addEdge("ask", END)
      .compile({ checkpointer: new MemoryCheckpointer() });
    const config = fresh();
    await graph.invoke({ log: [] }, { config });
    await graph.updateState(config, { log: "note" });
    const state = await graph.getState(config);
    expect([state.next, state.interrupts.length, state.metadata?.writes]).toEqual([
      ["ask"],
      1,
      null,
    ]);
    expect((await graph.resume("yes", { config })).state).toEqual({ log: ["note", "answer yes"] });
  });
});
