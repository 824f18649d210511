import { describe, expect, it } from "vitest";
import { MemoryCheckpointer } from "../../src/checkpoint/index.js";
import { AbortError, Graph, START } from "../../src/index.js";

describe("a call that has returned or thrown stores nothing more", () => {
  it("a task that ignores the abort signal and finishes late leaves no writes, and invoke(null) runs it again", async () => {
    const checkpointer = new MemoryCheckpointer();
    const controller = new AbortController();
    let stubbornRuns = 0;
    let finishLate!: () => void;
    const late = new Promise<void>((resolve) => (finishLate = resolve));
    const graph = new Graph({ name: "Stubborn" })
      .addNode("stubborn", async () => {
        stubbornRuns++;
        if (stubbornRuns === 1) await late; // ignores runtime.signal
        return { stubborn: stubbornRuns };
      })
      .addNode("waiter", async (_s, runtime) => {
        if (controller.signal.aborted) return { waiter: "again" };
        setTimeout(() => controller.abort(new Error("stop")), 5);
        await new Promise((resolve) => runtime.signal.addEventListener("abort", resolve));
        return { waiter: "aborted" };
      })
      .addEdge(START, "stubborn")
      .addEdge(START, "waiter")
      .compile({ checkpointer });
    const config = { configurable: { thread_id: "late" } };
    const error = await graph.invoke({}, { config, signal: controller.signal }).catch((e) => e);
    expect(error).toBeInstanceOf(AbortError);
    const stored = await checkpointer.getLatest("late");
    finishLate();
    await new Promise((resolve) => setTimeout(resolve, 20));
    // The late finish stored nothing: the thread is as the aborted call left it.
    expect(await checkpointer.getLatest("late")).toEqual(stored);
    expect(stored!.pendingWrites).toEqual([]);
    const result = await graph.invoke(null, { config });
    expect(result).toEqual({ status: "done", state: { stubborn: 2, waiter: "again" } });
    expect(stubbornRuns).toBe(2);
  });
});
