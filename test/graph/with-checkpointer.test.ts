import { describe, expect, it } from "vitest";
import { MemoryCheckpointer } from "../../src/checkpoint/index.js";
import { END, Graph, interrupt, START } from "../../src/index.js";

describe("graph.withCheckpointer", () => {
  it("runs the same graph on another store, leaving the original as it was", async () => {
    const original = new Graph<{ answer?: string }>({ name: "ask" })
      .addNode("ask", () => ({ answer: String(interrupt("name?")) }))
      .addEdge(START, "ask")
      .addEdge("ask", END)
      .compile({ interruptAfter: ["ask"] });
    const store = new MemoryCheckpointer();
    const hosted = original.withCheckpointer(store);
    const config = { configurable: { thread_id: "w1" } };

    expect((await hosted.invoke({}, { config })).status).toBe("interrupted");
    expect((await store.getThread("w1"))?.status).toBe("interrupted");
    expect(hosted.name).toBe("ask");
    expect(hosted.machine).toBe(original.machine);
    expect(original.checkpointer).toBeUndefined();

    // The compiled breakpoint came along: after the answer it pauses after "ask".
    await hosted.resume("Ada", { config });
    const state = await hosted.getState(config);
    expect(state.values).toEqual({ answer: "Ada" });
    expect(state.interrupts.map((i) => i.timing)).toEqual(["after"]);
  });
});
