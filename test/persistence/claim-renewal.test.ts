import { describe, expect, it, vi } from "vitest";
import { MemoryCheckpointer } from "../../src/checkpoint/index.js";
import { Graph, START, ThreadBusyError } from "../../src/index.js";
import { DEFAULT_CLAIM_TTL_MS } from "../../src/runtime/claim-renewal.js";

// A file of its own: the renewal timer is shared by the process's runs, and this test needs
// it to be created under fake timers.
describe("claims of live runs", () => {
  it("a run whose node takes longer than the claim's TTL keeps its thread: it is renewed", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "Date"] });
    try {
      const store = new MemoryCheckpointer();
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      let started!: () => void;
      const running = new Promise<void>((resolve) => (started = resolve));
      let runs = 0;
      const graph = new Graph({ name: "Slow" })
        .addNode("slow", async () => {
          if (++runs === 1) {
            started();
            await gate;
          }
          return { done: true };
        })
        .addEdge(START, "slow")
        .compile({ checkpointer: store });
      const config = { configurable: { thread_id: "slow" } };
      const first = graph.invoke({}, { config });
      await running;
      // Two TTLs later, the claim has been renewed all along: a second run is refused.
      await vi.advanceTimersByTimeAsync(2 * DEFAULT_CLAIM_TTL_MS);
      await expect(graph.invoke({}, { config })).rejects.toBeInstanceOf(ThreadBusyError);
      release();
      expect((await first).state).toEqual({ done: true });
      // Released at the end: the thread takes the next run at once.
      expect((await graph.invoke({}, { config })).status).toBe("done");
    } finally {
      vi.useRealTimers();
    }
  });
});
