// A run's metadata is kept on each of its checkpoints, and history can be filtered by it.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryCheckpointer } from "../../src/checkpoint/index.js";
import { END, Graph, START, type StateSnapshot } from "../../src/index.js";

const counter = () =>
  new Graph<{ n: number }>({ name: "counter", state: z.object({ n: z.number().default(0) }) })
    .addNode("count", (s) => ({ n: s.n + 1 }))
    .addEdge(START, "count")
    .addEdge("count", END)
    .compile({ checkpointer: new MemoryCheckpointer() });

async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

describe("history filtered by checkpoint metadata", () => {
  it("lists only the checkpoints of the runs given that metadata, the limit counting those", async () => {
    const graph = counter();
    const config = { configurable: { thread_id: "h1" } };
    await graph.invoke({ n: 0 }, { config, metadata: { batch: "a" } });
    await graph.invoke({ n: 10 }, { config, metadata: { batch: "b", step: "not the step" } });
    const history: StateSnapshot[] = await all(graph.getStateHistory(config));
    const b = await all(graph.getStateHistory(config, { filter: { batch: "b" } }));
    expect(b.length).toBeGreaterThan(0);
    expect(b).toEqual(history.filter((s) => s.metadata?.batch === "b"));
    expect(history.filter((s) => s.metadata?.batch === "a").length).toBe(history.length - b.length);
    // The runtime's own keys win over a run's key of the same name.
    expect(b.every((s) => typeof s.metadata?.step === "number")).toBe(true);
    expect(await all(graph.getStateHistory(config, { filter: { batch: "a" }, limit: 1 }))).toEqual(
      history.filter((s) => s.metadata?.batch === "a").slice(0, 1),
    );
    expect(await all(graph.getStateHistory(config, { filter: { batch: "c" } }))).toEqual([]);
  });
});
