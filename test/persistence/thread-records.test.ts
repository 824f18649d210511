import { afterAll, describe, expect, it } from "vitest";
import {
  type Checkpointer,
  MemoryCheckpointer,
  PGliteCheckpointer,
} from "../../src/checkpoint/index.js";
import { AbortError, InvalidConfigError, NodeError } from "../../src/errors/index.js";
import { END, Graph, START } from "../../src/index.js";
import { approvalGraph } from "./fixtures/approval-graph.js";

const config = (thread_id: string) => ({ configurable: { thread_id } });

const stores: Array<[string, () => Checkpointer]> = [
  ["MemoryCheckpointer", () => new MemoryCheckpointer()],
  ["PGliteCheckpointer", () => new PGliteCheckpointer()],
];

describe.each(stores)("thread records of graph runs (%s)", (_name, makeStore) => {
  const checkpointer = makeStore();
  afterAll(() => checkpointer.close?.());

  /** A graph whose one node runs `work`. */
  const oneNode = (name: string, work: () => unknown) =>
    new Graph({ name })
      .addNode("work", async () => ({ out: await work() }))
      .addEdge(START, "work")
      .addEdge("work", END)
      .compile({ checkpointer });

  it("graph.threads finds only the graph's own threads; invoke and resume merge their metadata into the thread", async () => {
    const approval = approvalGraph(checkpointer);
    const other = oneNode("Other", () => 1);
    const paused = await approval.invoke(
      { details: "Transfer $500" },
      { config: config("approve-1"), metadata: { user: "u1", tags: ["money"] } },
    );
    expect(paused.status).toBe("interrupted");
    await other.invoke({}, { config: config("other-1"), metadata: { user: "u1" } });

    const inbox = await approval.threads.search({ status: "interrupted" });
    expect(inbox.threads.map((t) => t.threadId)).toEqual(["approve-1"]);
    expect(inbox.threads[0]).toMatchObject({
      graph: "ApprovalFlow",
      status: "interrupted",
      metadata: { user: "u1", tags: ["money"] },
      error: null,
    });
    expect(inbox.threads[0]!.interrupts).toEqual(
      paused.status === "interrupted" ? paused.interrupts : [],
    );
    expect((await approval.threads.search()).threads.map((t) => t.threadId)).toEqual(["approve-1"]);
    expect(await approval.threads.get("other-1")).toBeUndefined();
    expect(await other.threads.get("other-1")).toMatchObject({ graph: "Other", status: "idle" });
    // The checkpointer sees every graph's threads.
    const all = await checkpointer.searchThreads({ metadata: { user: "u1" } });
    expect(all.threads.map((t) => t.threadId).sort()).toEqual(["approve-1", "other-1"]);

    await approval.resume(true, { config: config("approve-1"), metadata: { reviewer: "r1" } });
    const done = await approval.threads.get("approve-1");
    expect(done).toMatchObject({
      status: "idle",
      interrupts: [],
      metadata: { user: "u1", tags: ["money"], reviewer: "r1" },
    });
    const latest = await checkpointer.getLatest("approve-1");
    expect(done!.latestCheckpointId).toBe(latest!.checkpoint.id);
  });

  it("a thread is busy while its run works, and idle again when the run ends", async () => {
    let release!: () => void;
    let started!: () => void;
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const graph = oneNode("Slow", async () => {
      started();
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      return 1;
    });
    const run = graph.invoke({}, { config: config("slow-1") });
    await running;
    expect((await graph.threads.get("slow-1"))?.status).toBe("busy");
    expect((await graph.threads.search({ status: "busy" })).threads.map((t) => t.threadId)).toEqual(
      ["slow-1"],
    );
    release();
    await run;
    expect((await graph.threads.get("slow-1"))?.status).toBe("idle");
  });

  it("a run that fails marks its thread error with what failed; the next successful run clears it", async () => {
    let fail = true;
    const graph = oneNode("Flaky", () => {
      if (fail) throw new Error("upstream timed out");
      return 1;
    });
    await expect(graph.invoke({}, { config: config("flaky-1") })).rejects.toBeInstanceOf(NodeError);
    const failed = await graph.threads.get("flaky-1");
    expect(failed).toMatchObject({
      status: "error",
      error: { name: "NodeError", message: expect.stringContaining("upstream timed out") },
    });
    expect((await graph.threads.search({ status: "error" })).threads).toHaveLength(1);

    fail = false;
    await graph.invoke(null, { config: config("flaky-1") });
    expect(await graph.threads.get("flaky-1")).toMatchObject({ status: "idle", error: null });
  });

  it("an aborted run is not a failure: the thread keeps the status of its latest checkpoint", async () => {
    const controller = new AbortController();
    const graph = oneNode("Aborted", async () => {
      controller.abort();
      await new Promise((resolve) => setTimeout(resolve, 5));
      return 1;
    });
    await expect(
      graph.invoke({}, { config: config("aborted-1"), signal: controller.signal }),
    ).rejects.toBeInstanceOf(AbortError);
    expect(await graph.threads.get("aborted-1")).toMatchObject({ status: "idle", error: null });
  });

  it("refuses metadata that is not a plain JSON object before anything runs", async () => {
    let runs = 0;
    const graph = oneNode("Strict", () => ++runs);
    for (const metadata of [["a"], "a"]) {
      await expect(
        graph.invoke({}, { config: config("strict-1"), metadata: metadata as never }),
      ).rejects.toBeInstanceOf(InvalidConfigError);
    }
    expect(runs).toBe(0);
    expect(await graph.threads.get("strict-1")).toBeUndefined();
  });
});

it("graph.threads says it needs a checkpointer when the graph has none", async () => {
  const graph = new Graph({ name: "NoStore" })
    .addNode("a", () => ({}))
    .addEdge(START, "a")
    .compile();
  await expect(graph.threads.search()).rejects.toBeInstanceOf(InvalidConfigError);
  await expect(graph.threads.get("t")).rejects.toThrow(/needs a checkpointer/);
});
