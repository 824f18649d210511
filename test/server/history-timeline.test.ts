import { describe, expect, it } from "vitest";
import { MemoryCheckpointer } from "../../src/checkpoint/index.js";
import type { StateSnapshot } from "../../src/graph/state-snapshot.js";
import { END, Graph, START } from "../../src/index.js";
import { timelineOf } from "../../src/server/history-timeline.js";

describe("the inbox's history timeline", () => {
  it("names the nodes behind each checkpoint and shows what changed: new list items, new values", async () => {
    type S = { messages: string[]; topic: string };
    const graph = new Graph<S>({ name: "Timeline" })
      .addReducer("messages", (a: string[] = [], b: string[]) => [...a, ...b])
      .addNode("ask", () => ({ messages: ["question"] }))
      .addNode("answer", () => ({ messages: ["answer"], topic: "answered" }))
      .addEdge(START, "ask")
      .addEdge("ask", "answer")
      .addEdge("answer", END)
      .compile({ checkpointer: new MemoryCheckpointer() });
    const config = { configurable: { thread_id: "timeline" } };
    await graph.invoke({ messages: ["hello"], topic: "new" }, { config });
    const page: StateSnapshot[] = [];
    for await (const s of graph.getStateHistory(config)) page.push(s);

    const [done, afterAsk, afterInput] = timelineOf(page);
    expect(done).toMatchObject({
      nodes: ["answer"],
      writes: { messages: ["answer"], topic: "answered" },
      next: [],
    });
    expect(afterAsk).toMatchObject({
      nodes: ["ask"],
      writes: { messages: ["question"] },
      next: ["answer"],
    });
    expect(afterInput!.writes).toEqual({ messages: ["hello"], topic: "new" });
    expect(afterInput!.next).toEqual(["ask"]);
  });
});
