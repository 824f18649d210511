import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import {
  type Checkpointer,
  MemoryCheckpointer,
  PGliteCheckpointer,
  PostgresCheckpointer,
} from "../../src/checkpoint/index.js";
import {
  CheckpointMismatchError,
  Command,
  Graph,
  InvalidConfigError,
  InvalidResumeError,
  interrupt,
  NodeError,
  NonSerializableError,
  START,
  ThreadBusyError,
} from "../../src/index.js";

const pgUrl = process.env.STATEWEAVER_PG_URL;
const stores: Checkpointer[] = [];
afterAll(async () => {
  for (const s of stores) await s.close?.();
});

/** The store calls a run makes, by name. */
function counted<T extends Checkpointer>(store: T): { store: T; calls: Map<string, number> } {
  const calls = new Map<string, number>();
  const proxy = new Proxy(store, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        calls.set(String(name), (calls.get(String(name)) ?? 0) + 1);
        return value.apply(target, args);
      };
    },
  });
  return { store: proxy, calls };
}

/** A review graph: `approval` pauses, then fails if the answer says so. */
function approvalGraph(checkpointer: Checkpointer, node = "approval") {
  return new Graph({ name: "Approval" })
    .addNode(node, () => {
      const answer = interrupt("Approve?");
      if (answer === "fail") throw new Error("the reviewer's tool broke");
      return { approved: answer };
    })
    .addEdge(START, node)
    .compile({ checkpointer });
}

function describeStore(name: string, open: () => Checkpointer, skip = false) {
  let opened: Checkpointer | undefined;
  const storeOf = () => {
    if (!opened) {
      opened = open();
      stores.push(opened);
    }
    return opened;
  };
  /** A thread paused at `approval`, with what the store holds of it. */
  const paused = async (checkpointer: Checkpointer = storeOf()) => {
    const graph = approvalGraph(checkpointer);
    const config = { configurable: { thread_id: `claim-read-${randomUUID()}` } };
    const threadId = config.configurable.thread_id;
    await graph.invoke({}, { config, metadata: { user: "u1" } });
    const store = storeOf();
    const before = {
      record: await store.getThread(threadId),
      latest: await store.getLatest(threadId),
    };
    expect(before.record?.status).toBe("interrupted");
    /** The thread is exactly as it was paused, and free: a resume takes it at once. */
    const unchanged = async () => {
      expect(await store.getThread(threadId)).toEqual(before.record);
      expect(await store.getLatest(threadId)).toEqual(before.latest);
      expect((await approvalGraph(store).resume(true, { config })).state).toEqual({
        approved: true,
      });
    };
    return { graph, config, threadId, before, unchanged };
  };

  describe.skipIf(skip)(`a run reads and claims its thread in one store call (${name})`, () => {
    it("a paused run and the run that resumes it each read their thread with one claimLatest, and call neither getLatest nor claimThread", async () => {
      const { store, calls } = counted(storeOf());
      const graph = approvalGraph(store);
      const config = { configurable: { thread_id: `claim-read-${randomUUID()}` } };
      expect((await graph.invoke({}, { config })).status).toBe("interrupted");
      expect((await graph.resume(true, { config })).state).toEqual({ approved: true });
      expect(calls.get("claimLatest")).toBe(2);
      expect(calls.get("getLatest")).toBeUndefined();
      expect(calls.get("claimThread")).toBeUndefined();
      if (store.putAndRelease) {
        // A cycle on a SQL store: the read-and-claim, the input checkpoint, the pause-and-release; twice.
        expect([...calls.values()].reduce((a, b) => a + b)).toBe(6);
      }
      expect((await storeOf().getThread(config.configurable.thread_id))?.status).toBe("idle");
    }, 30_000);

    it("a refused resume releases the claim it took with the read, and changes nothing in the thread", async () => {
      const { graph, config, unchanged } = await paused();
      const error = await graph.resume(undefined, { config }).catch((e) => e);
      expect(error).toBeInstanceOf(InvalidResumeError);
      await unchanged();
    }, 30_000);

    it("a refused resume with metadata changes nothing in the thread: a run with metadata claims after its checks", async () => {
      const { graph, config, unchanged } = await paused();
      const error = await graph
        .resume(undefined, { config, metadata: { reviewer: "r1" } })
        .catch((e) => e);
      expect(error).toBeInstanceOf(InvalidResumeError);
      await unchanged();
    }, 30_000);

    it("a run with metadata reads, then claims: its metadata is on the thread's record while it holds the thread", async () => {
      const { store, calls } = counted(storeOf());
      let arrived!: () => void;
      const running = new Promise<void>((resolve) => {
        arrived = resolve;
      });
      let finish!: () => void;
      const gate = new Promise<void>((resolve) => {
        finish = resolve;
      });
      const graph = new Graph({ name: "Slow" })
        .addNode("work", async () => {
          arrived();
          await gate;
          return { done: true };
        })
        .addEdge(START, "work")
        .compile({ checkpointer: store });
      const threadId = `claim-read-${randomUUID()}`;
      const config = { configurable: { thread_id: threadId } };
      // A thread with a record before the run, as the server makes one.
      expect(await storeOf().createThread!(threadId, {})).toBe(true);
      const run = graph.invoke({}, { config, metadata: { probe: threadId } });
      await running;
      expect(await storeOf().getThread(threadId)).toMatchObject({
        status: "busy",
        metadata: { probe: threadId },
      });
      finish();
      expect((await run).state).toEqual({ done: true });
      expect(calls.get("claimLatest")).toBeUndefined();
      expect(calls.get("getLatest")).toBe(1);
      expect(calls.get("claimThread")).toBe(1);
    }, 30_000);

    it("a resume from a checkpoint the thread does not have releases the claim it took with the read", async () => {
      const { graph, config, unchanged } = await paused();
      const missing = { configurable: { ...config.configurable, checkpoint_id: "no-such-id" } };
      const error = await graph.resume(true, { config: missing }).catch((e) => e);
      expect(error).toBeInstanceOf(InvalidConfigError);
      await unchanged();
    }, 30_000);

    it("a checkpoint that does not fit the graph is refused, and the claim taken with the read released", async () => {
      const { config, unchanged } = await paused();
      const renamed = approvalGraph(storeOf(), "review");
      const error = await renamed.resume(true, { config }).catch((e) => e);
      expect(error).toBeInstanceOf(CheckpointMismatchError);
      await unchanged();
    }, 30_000);

    it("a resume whose Command.update is refused releases the claim it took with the read", async () => {
      const { graph, config, unchanged } = await paused();
      const update = { note: () => "not JSON" };
      const error = await graph
        .invoke(new Command({ resume: true, update }), { config })
        .catch((e) => e);
      expect(error).toBeInstanceOf(NonSerializableError);
      await unchanged();
    }, 30_000);

    it("an updateState whose first step is refused releases the claim it took with the read", async () => {
      const { graph, config, unchanged } = await paused();
      const error = await graph
        .updateState(config, { note: () => "not JSON" } as never)
        .catch((e) => e);
      expect(error).toBeInstanceOf(NonSerializableError);
      await unchanged();
    }, 30_000);

    it("a run with metadata that fails before storing a checkpoint keeps that metadata on the thread", async () => {
      const { graph, config, threadId, before } = await paused();
      const error = await graph
        .resume("fail", { config, metadata: { reviewer: "r1" } })
        .catch((e) => e);
      expect(error).toBeInstanceOf(NodeError);
      expect(await storeOf().getThread(threadId)).toMatchObject({
        status: "error",
        metadata: { user: "u1", reviewer: "r1" },
        latestCheckpointId: before.record!.latestCheckpointId,
      });
    }, 30_000);

    it("a run on a thread another run holds is refused with ThreadBusyError, leaving that claim held", async () => {
      const { graph, config, threadId, before } = await paused();
      const store = storeOf();
      const holder = randomUUID();
      await store.claimThread(threadId, {
        runId: holder,
        expectedLatestId: before.record!.latestCheckpointId,
        ttlMs: 60_000,
      });
      const error = await graph.resume(true, { config }).catch((e) => e);
      expect(error).toBeInstanceOf(ThreadBusyError);
      await store.renewThreadClaim(threadId, holder, 60_000);
      await expect(graph.resume(true, { config })).rejects.toBeInstanceOf(ThreadBusyError);
      await store.releaseThread(threadId, holder);
      expect((await graph.resume(true, { config })).state).toEqual({ approved: true });
    }, 30_000);
  });
}

describeStore("memory", () => new MemoryCheckpointer());
describeStore("PGlite", () => new PGliteCheckpointer("memory://"));
describeStore("PostgreSQL", () => new PostgresCheckpointer({ connectionString: pgUrl! }), !pgUrl);
