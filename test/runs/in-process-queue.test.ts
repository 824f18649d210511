import { describe, expect, it } from "vitest";
import { InProcessRunQueue, type RunRequest } from "../../src/runs/index.js";

const newRun = (runId: string, threadId: string) => ({
  runId,
  threadId,
  graphId: "g",
  multitaskStrategy: "enqueue" as const,
  request: { graphId: "g", threadId } as unknown as RunRequest,
  metadata: {},
});

/** Consume the queue, each run taken and ended at once; the runs handed over, in order. */
async function consumed(queue: InProcessRunQueue) {
  const handed: string[] = [];
  let all: () => void;
  const ended = new Promise<void>((resolve) => {
    all = resolve;
  });
  const { stop } = await queue.consume(
    async (runId, workerId) => {
      handed.push(runId);
      const { taken } = (await queue.take(runId, workerId)) as { taken?: { attempt: number } };
      await queue.settle(runId, taken!.attempt, { status: "success" });
      if ((await queue.list({ status: "pending" })).length === 0) all();
    },
    { concurrency: 10 },
  );
  return { handed, stop, ended };
}

describe("InProcessRunQueue's runs not ended", () => {
  it("activeOn is the thread's oldest run pending or running, none once both ended", async () => {
    const queue = new InProcessRunQueue();
    // Ended runs of the thread and of others, before and around the active ones.
    for (let i = 0; i < 5; i++) {
      await queue.enqueue(newRun(`old-${i}`, "t"));
      await queue.take(`old-${i}`, "w");
      await queue.settle(`old-${i}`, 1, { status: "success" });
    }
    await queue.enqueue(newRun("a", "t"));
    await queue.enqueue(newRun("other", "u"));
    await queue.enqueue(newRun("b", "t"));
    expect((await queue.activeOn("t"))?.runId).toBe("a");
    await queue.take("a", "w");
    expect((await queue.activeOn("t"))?.runId).toBe("a");
    await queue.settle("a", 1, { status: "success" });
    expect((await queue.activeOn("t"))?.runId).toBe("b");
    await queue.requestCancel("b", "interrupt");
    expect(await queue.activeOn("t")).toBeUndefined();
    expect((await queue.activeOn("u"))?.runId).toBe("other");
    // What list says of the same runs, by status and by thread, newest first.
    expect((await queue.list({ status: "pending" })).map((r) => r.runId)).toEqual(["other"]);
    expect((await queue.list({ status: "success" })).map((r) => r.runId)).toEqual([
      "a",
      "old-4",
      "old-3",
      "old-2",
      "old-1",
      "old-0",
    ]);
    expect((await queue.list({ threadId: "t", limit: 3 })).map((r) => r.runId)).toEqual([
      "b",
      "a",
      "old-4",
    ]);
    await queue.close();
  });

  it("dispatch hands each idle thread its oldest pending run, a released one included", async () => {
    const queue = new InProcessRunQueue();
    await queue.enqueue(newRun("t1", "t"));
    await queue.enqueue(newRun("t2", "t"));
    await queue.enqueue(newRun("u1", "u"));
    // t1 is taken and handed back: it is pending again, and still t's oldest.
    await queue.take("t1", "w");
    await queue.release("t1", 1);
    const { handed, stop, ended } = await consumed(queue);
    await ended;
    // One run a thread at a time: t1 and u1, then t2 once t1 has ended.
    expect(handed).toEqual(["t1", "u1", "t2"]);
    await stop();
    await queue.close();
  });
});
