import { describe, expect, it } from "vitest";
import { MemoryCheckpointer } from "../../src/checkpoint/index.js";
import { CheckpointMismatchError, Graph, interrupt, START } from "../../src/index.js";

/** The same graph before and after a deploy that renamed its paused node. */
function deploys(checkpointer: MemoryCheckpointer) {
  const before = new Graph({ name: "Deploy" })
    .addNode("prepare", () => ({ prepared: true }))
    .addNode("approve", () => ({ approved: interrupt("ok?") }))
    .addEdge(START, "prepare")
    .addEdge("prepare", "approve")
    .compile({ checkpointer });
  const after = new Graph({ name: "Deploy" })
    .addNode("prepare", () => ({ prepared: true }))
    .addNode("review", () => ({ approved: interrupt("ok?") }))
    .addEdge(START, "prepare")
    .addEdge("prepare", "review")
    .compile({ checkpointer });
  return { before, after };
}

describe("a checkpoint that names a node the graph no longer has", () => {
  it("is refused with CheckpointMismatchError naming the node; the thread is unchanged and the process lives", async () => {
    const checkpointer = new MemoryCheckpointer();
    const { before, after } = deploys(checkpointer);
    const config = { configurable: { thread_id: "renamed" } };
    await before.invoke({}, { config });
    const stored = await checkpointer.getLatest("renamed");
    const unhandled: unknown[] = [];
    const onError = (error: unknown) => unhandled.push(error);
    process.on("uncaughtException", onError);
    try {
      const error = await after.resume(true, { config }).catch((e) => e);
      expect(error).toBeInstanceOf(CheckpointMismatchError);
      expect(error.node).toBe("approve");
      expect(error.message).toMatch(/updateState\(config, values, "<node>"\)/);
      await expect(after.invoke(null, { config })).rejects.toBeInstanceOf(CheckpointMismatchError);
      // XState used to rethrow the failure from a timer: give it the chance.
      await new Promise((resolve) => setTimeout(resolve, 20));
    } finally {
      process.off("uncaughtException", onError);
    }
    expect(unhandled).toEqual([]);
    expect(await checkpointer.getLatest("renamed")).toEqual(stored);
    // getState still reads the thread as it was stored.
    expect((await after.getState(config)).next).toEqual(["approve"]);
  });

  it("can be continued as another node with updateState, or forked from an earlier checkpoint", async () => {
    const checkpointer = new MemoryCheckpointer();
    const { before, after } = deploys(checkpointer);
    const config = { configurable: { thread_id: "moved-on" } };
    await before.invoke({}, { config });
    await after.updateState(config, { approved: "by hand" }, "review");
    expect((await after.getState(config)).values).toEqual({ prepared: true, approved: "by hand" });
    expect((await after.getState(config)).next).toEqual([]);

    const forked = { configurable: { thread_id: "forked" } };
    await before.invoke({}, { config: forked });
    let early: string | undefined;
    for await (const past of after.getStateHistory(forked)) {
      if (past.next.includes("prepare")) early = past.config.configurable?.checkpoint_id;
    }
    const result = await after.invoke(null, {
      config: { configurable: { thread_id: "forked", checkpoint_id: early } },
    });
    expect(result.status).toBe("interrupted");
    expect(result.status === "interrupted" && result.interrupt.node).toBe("review");
  });
});
