import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import {
  type Checkpoint,
  type Checkpointer,
  MemoryCheckpointer,
  PGliteCheckpointer,
  PostgresCheckpointer,
  type PutOptions,
} from "../../src/checkpoint/index.js";
import {
  ConcurrentUpdateError,
  Graph,
  interrupt,
  START,
  ThreadBusyError,
} from "../../src/index.js";
import { makeCheckpoint } from "../../src/testing/checkpointer-conformance.js";

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

const claim = (expectedLatestId: string | null, runId = randomUUID()) => ({
  runId,
  expectedLatestId,
  ttlMs: 60_000,
});

function describeStore(
  name: string,
  open: () => MemoryCheckpointer | PGliteCheckpointer | PostgresCheckpointer,
  skip = false,
) {
  let opened: MemoryCheckpointer | PGliteCheckpointer | PostgresCheckpointer | undefined;
  const storeOf = () => {
    if (!opened) {
      opened = open();
      stores.push(opened);
    }
    return opened;
  };
  describe.skipIf(skip)(
    `a run's last checkpoint and its release are one store call (${name})`,
    () => {
      it("a paused run and the run that resumes it leave the thread free without a releaseThread call", async () => {
        const store = storeOf();
        const { store: watched, calls } = counted(store);
        const graph = new Graph({ name: "Approval" })
          .addNode("approval", () => ({ approved: interrupt("Approve?") }))
          .addEdge(START, "approval")
          .compile({ checkpointer: watched });
        const config = { configurable: { thread_id: `release-${randomUUID()}` } };
        expect((await graph.invoke({}, { config })).status).toBe("interrupted");
        expect((await store.getThread(config.configurable.thread_id))?.status).toBe("interrupted");
        const done = await graph.resume(true, { config });
        expect(done.state).toEqual({ approved: true });
        expect((await store.getThread(config.configurable.thread_id))?.status).toBe("idle");
        // The pause is pending writes of its barrier (no checkpoint): its store call releases.
        expect(calls.get("putPause")).toBe(1);
        expect(calls.get("putAndRelease")).toBe(1);
        expect(calls.get("releaseThread")).toBeUndefined();
      }, 30_000);

      it("a refused putAndRelease stores nothing and leaves the claim held", async () => {
        const store = storeOf();
        const threadId = `release-${randomUUID()}`;
        const first = makeCheckpoint(threadId, "", null, -1);
        await store.put(first, { expectedLatestId: null });
        const holder = randomUUID();
        await store.claimThread(threadId, claim(first.id, holder));
        const stale: PutOptions = { expectedLatestId: "not-the-latest" };
        const next: Checkpoint = makeCheckpoint(threadId, "", first.id, 0);
        await expect(store.putAndRelease(next, stale, holder)).rejects.toBeInstanceOf(
          ConcurrentUpdateError,
        );
        expect((await store.getLatest(threadId))?.checkpoint.id).toBe(first.id);
        await expect(store.claimThread(threadId, claim(first.id))).rejects.toBeInstanceOf(
          ThreadBusyError,
        );
        // Stored, the same call ends the claim: the thread takes the next run at once.
        await store.putAndRelease(next, { expectedLatestId: first.id }, holder);
        await store.claimThread(threadId, claim(next.id));
      }, 30_000);

      it("putAndRelease by a run that does not hold the thread stores its checkpoint and leaves the holder's claim", async () => {
        const store = storeOf();
        const threadId = `release-${randomUUID()}`;
        const first = makeCheckpoint(threadId, "", null, -1);
        await store.putAndRelease(first, { expectedLatestId: null }, randomUUID());
        await store.claimThread(threadId, claim(first.id));
        const next = makeCheckpoint(threadId, "", first.id, 0);
        await store.putAndRelease(next, { expectedLatestId: first.id }, randomUUID());
        expect((await store.getLatest(threadId))?.checkpoint.id).toBe(next.id);
        await expect(store.claimThread(threadId, claim(next.id))).rejects.toBeInstanceOf(
          ThreadBusyError,
        );
      }, 30_000);
    },
  );
}

describeStore("memory", () => new MemoryCheckpointer());
describeStore("PGlite", () => new PGliteCheckpointer("memory://"));
describeStore("PostgreSQL", () => new PostgresCheckpointer({ connectionString: pgUrl! }), !pgUrl);
