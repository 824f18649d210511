// What a compiled graph tells a host about itself: the zod schemas it was built with, and its subgraphs.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryCheckpointer } from "../../src/checkpoint/index.js";
import { END, Graph, START } from "../../src/index.js";

const state = z.object({ n: z.number() });
const context = z.object({ userId: z.string() });

const inner = new Graph({ name: "inner", state })
  .addNode("bump", (s: { n: number }) => ({ n: s.n + 1 }))
  .addEdge(START, "bump")
  .addEdge("bump", END)
  .compile();

const outer = new Graph({ name: "outer", state, context })
  .addNode("first", () => ({}))
  .addNode("nested", inner)
  .addEdge(START, "first")
  .addEdge("first", "nested")
  .addEdge("nested", END)
  .compile();

describe("a compiled graph's description", () => {
  it("gives back the state and context schemas it was built with", () => {
    expect(outer.schemas.state).toBe(state);
    expect(outer.schemas.context).toBe(context);
    expect(inner.schemas.context).toBeUndefined();
  });

  it("lists its subgraph nodes with their compiled graphs", () => {
    expect(outer.subgraphs).toEqual([["nested", inner]]);
    expect(inner.subgraphs).toEqual([]);
  });

  it("keeps both when rebound to another checkpointer", () => {
    const rebound = outer.withCheckpointer(new MemoryCheckpointer());
    expect(rebound.schemas.state).toBe(state);
    expect(rebound.subgraphs.map(([node]) => node)).toEqual(["nested"]);
  });
});
