import { describe, expect, it } from "vitest";
import { MemoryCheckpointer } from "../../src/checkpoint/index.js";
import { Command, END, Graph, interrupt, START } from "../../src/index.js";
import { graphPaths } from "../../src/testing/index.js";

const approval = new Graph({ name: "ApproveOrCancel" })
  .addNode("prepare", () => ({ ready: true }))
  .addNode(
    "approval",
    () => new Command({ goto: interrupt<boolean>("Proceed?") ? "proceed" : "cancel" }),
    { ends: ["proceed", "cancel"] },
  )
  .addNode("proceed", () => ({ outcome: "proceeded" }))
  .addNode("cancel", () => ({ outcome: "cancelled" }))
  .addNode("audit", () => ({ audited: true }))
  .addEdge(START, "prepare")
  .addEdge("prepare", "approval")
  .addConditionalEdges("proceed", (s) => (s.audit ? "audit" : END), { audit: "audit", [END]: END })
  .addEdge("cancel", END)
  .addEdge("audit", END)
  .compile({ checkpointer: new MemoryCheckpointer() });

describe("graphPaths", () => {
  it("lists every simple path from START to END through edges, pathMaps and ends", () => {
    expect(graphPaths(approval)).toEqual([
      ["prepare", "approval", "cancel"],
      ["prepare", "approval", "proceed"],
      ["prepare", "approval", "proceed", "audit"],
    ]);
  });

  it("drives a model-based test: each path is reachable by a run", async () => {
    let thread = 0;
    for (const path of graphPaths(approval)) {
      const config = { configurable: { thread_id: `path-${++thread}` } };
      const goesOn = path.includes("proceed");
      await approval.invoke({ audit: path.includes("audit") }, { config });
      const done = await approval.resume(goesOn, { config });
      expect(done.state.outcome).toBe(goesOn ? "proceeded" : "cancelled");
      expect(done.state.audited === true).toBe(path.includes("audit"));
    }
  });

  it("does not loop forever on cycles", () => {
    const loop = new Graph()
      .addNode("a", () => ({}))
      .addNode("b", () => ({}))
      .addEdge(START, "a")
      .addEdge("a", "b")
      .addConditionalEdges("b", () => END, ["a", END])
      .compile();
    expect(graphPaths(loop)).toEqual([["a", "b"]]);
  });
});
