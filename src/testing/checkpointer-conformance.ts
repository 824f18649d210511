import { randomBytes, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it as vitestIt } from "vitest";
import type {
  Checkpoint,
  Checkpointer,
  InterruptRecord,
  PendingWrite,
  ThreadRecord,
} from "../checkpoint/checkpointer.js";
import { checkpointId, createdAtOf } from "../checkpoint/id.js";
import { MAX_ID_BYTES } from "../checkpoint/limits.js";
import { pauseWrite } from "../checkpoint/paused-tasks.js";
import { MAX_JSON_DEPTH } from "../checkpoint/serde.js";
import {
  CheckpointNotFoundError,
  ConcurrentUpdateError,
  CorruptCheckpointError,
  DuplicateCheckpointError,
  InvalidConfigError,
  InvalidIdError,
  InvalidRetentionError,
  InvalidSearchError,
  NonSerializableError,
  RewindTargetNotFoundError,
  ThreadBusyError,
  ThreadExistsError,
  ThreadNotFoundError,
  ValueTooDeepError,
} from "../errors/index.js";
import { channelValueCases } from "./channel-values-conformance.js";

/** Where a damaged-row case points `damage`: a checkpoint, or with `taskId` its pending writes. */
export interface ConformanceRow {
  threadId: string;
  ns: string;
  checkpointId: string;
  taskId?: string;
}

export interface CheckpointerConformanceOptions {
  /** Runs after the suite, once its threads are deleted and the store is closed. */
  cleanup?: (store: Checkpointer) => Promise<void> | void;
  /**
   * Replaces the stored text of one row (a checkpoint, or a task's pending writes) with
   * `payload`, as damage on disk or a bad manual edit would. The damaged-row cases need it.
   *
   * @example
   * damage: (row, payload) => db.query("update stateweaver_checkpoints set payload = $4 where thread_id = $1 and ns = $2 and id = $3", [row.threadId, row.ns, row.checkpointId, payload])
   */
  damage?: (row: ConformanceRow, payload: string) => Promise<void>;
  /**
   * Cases this store does not run: case name -> why. A name that matches no case fails the
   * suite, so a renamed case cannot be skipped silently.
   *
   * @example
   * skip: { "a damaged checkpoint …": "its rows live in private fields; nothing can damage them" }
   */
  skip?: Record<string, string>;
}

/**
 * Registers the behaviour every `Checkpointer` must have as a vitest suite. Call it at
 * the top level of a test file (it uses vitest's `describe`/`it`, so `vitest` must be
 * installed — it is meant for your tests, not for production code).
 *
 * `makeStore` runs once for the suite; every case works on its own fresh thread ids, so
 * a database shared with other suites or processes is fine. After the suite those
 * threads are deleted, the store is closed, then `cleanup` (if given) runs — e.g. to end
 * a pool you passed in. A function as the third argument is taken as `cleanup`.
 *
 * @example
 * import { describeCheckpointerConformance } from "stateweaver/testing";
 * describeCheckpointerConformance("RedisCheckpointer", () => new RedisCheckpointer(url));
 */
export function describeCheckpointerConformance(
  name: string,
  makeStore: () => Promise<Checkpointer> | Checkpointer,
  options: CheckpointerConformanceOptions | ((store: Checkpointer) => Promise<void> | void) = {},
): void {
  const {
    cleanup,
    damage,
    skip = {},
  } = typeof options === "function" ? { cleanup: options } : options;
  const names = new Set<string>();
  const it = (title: string, fn: () => Promise<void>) => {
    names.add(title);
    const reason = skip[title];
    if (reason === undefined) vitestIt(title, fn);
    else vitestIt.skip(`${title} (skipped: ${reason})`, fn);
  };
  describe(`${name} conforms to Checkpointer`, () => {
    let store: Checkpointer;
    const threadIds: string[] = [];
    const newThreadId = () => {
      const id = `conformance-${randomUUID()}`;
      threadIds.push(id);
      return id;
    };
    const damageRow = (row: ConformanceRow, payload: string) => {
      if (!damage) {
        throw new Error(
          `${name}: this case writes damaged rows; pass a damage(row, payload) option, or list the case in skip with the reason.`,
        );
      }
      return damage(row, payload);
    };

    beforeAll(async () => {
      store = await makeStore();
      // Bill a lazily starting store's start-up to the hook, not to the first case.
      await store.getLatest(newThreadId());
    });

    afterAll(async () => {
      if (!store) return;
      // Leave a shared database as it was found.
      for (const threadId of threadIds) await store.deleteThread(threadId);
      await store.close?.();
      await cleanup?.(store);
    });

    it("put then getLatest round-trips every field exactly, key order and nesting included", async () => {
      const threadId = newThreadId();
      const checkpoint = makeCheckpoint(threadId, "", null, -1, {
        values: {
          zeta: 1,
          alpha: { nested: [1, "two", { z: null, a: [true, false] }], empty: {} },
          text: 'naïve ☃ \u0000 \n "quoted"',
          numbers: [0, -1, 0.1, 1e21, 123456789.125],
          emptyList: [],
        },
        next: ["b", "a"],
        interrupts: [
          {
            id: "int-1",
            value: { question: "ok?", options: ["yes", "no"] },
            node: "review",
            ns: "",
            step: 3,
            taskId: "task-1",
            timing: "during",
          },
        ],
        snapshot: { status: "active", value: { run: "waiting" }, context: { z: 1, a: 2 } },
        metadata: { step: -1, source: "input", writes: { start: { x: 1 } }, custom: ["k"] },
      });
      await store.put(checkpoint, { expectedLatestId: null });

      const tuple = await store.getLatest(threadId);
      expect(tuple).toEqual({ checkpoint, pendingWrites: [] });
      expect(JSON.stringify(tuple?.checkpoint)).toBe(JSON.stringify(checkpoint));
    });

    it("keeps createdAt as given: the id's own time (createdAtOf) or any other", async () => {
      const threadId = newThreadId();
      const id = checkpointId();
      const own = makeCheckpoint(threadId, "", null, 0, { id, createdAt: createdAtOf(id)! });
      await store.put(own, { expectedLatestId: null });
      const other = makeCheckpoint(threadId, "", id, 1, { createdAt: "2001-02-03T04:05:06.789Z" });
      await store.put(other, { expectedLatestId: id });
      const listed = await store.list(threadId);
      expect(listed.map((c) => c.createdAt)).toEqual([other.createdAt, own.createdAt]);
      expect((await store.get(threadId, "", id))?.checkpoint).toEqual(own);
    });

    it("get by id returns that checkpoint, not the latest", async () => {
      const threadId = newThreadId();
      const [first, second] = await putChain(store, threadId, "", 2);

      expect((await store.get(threadId, "", first!.id))?.checkpoint).toEqual(first);
      expect((await store.get(threadId, "", second!.id))?.checkpoint).toEqual(second);
      expect(await store.get(threadId, "", checkpointId())).toBeUndefined();
      expect(await store.get(threadId, "other", first!.id)).toBeUndefined();
    });

    it("list returns history newest first, honouring limit and before", async () => {
      const threadId = newThreadId();
      const chain = await putChain(store, threadId, "", 5);
      const ids = (list: Checkpoint[]) => list.map((c) => c.id);
      const newestFirst = chain.map((c) => c.id).reverse();

      const all = await store.list(threadId);
      expect(ids(all)).toEqual(newestFirst);
      expect(all[0]).toEqual(chain[4]);
      expect(ids(await store.list(threadId, { limit: 2 }))).toEqual(newestFirst.slice(0, 2));
      expect(ids(await store.list(threadId, { before: chain[3]!.id }))).toEqual(
        newestFirst.slice(2),
      );
      expect(ids(await store.list(threadId, { before: chain[3]!.id, limit: 2 }))).toEqual(
        newestFirst.slice(2, 4),
      );
      expect(await store.list(threadId, { before: chain[0]!.id })).toEqual([]);
      expect(await store.list(threadId, { before: checkpointId() })).toEqual([]);
      expect(await store.list(threadId, { ns: "child:1" })).toEqual([]);
    });

    it("orders history by insertion, not by id text", async () => {
      const threadId = newThreadId();
      // Ids that sort backwards as strings: order must still be the order of put.
      const first = makeCheckpoint(threadId, "", null, -1, { id: `zz-${randomUUID()}` });
      const second = makeCheckpoint(threadId, "", first.id, 0, { id: `aa-${randomUUID()}` });
      await store.put(first, { expectedLatestId: null });
      await store.put(second, { expectedLatestId: first.id });

      expect((await store.getLatest(threadId))?.checkpoint.id).toBe(second.id);
      expect((await store.list(threadId)).map((c) => c.id)).toEqual([second.id, first.id]);
      expect((await store.list(threadId, { before: second.id })).map((c) => c.id)).toEqual([
        first.id,
      ]);
    });

    it("keeps namespaces apart: the latest of '' and of 'child:1' are independent", async () => {
      const threadId = newThreadId();
      const [root] = await putChain(store, threadId, "", 1);
      const child = await putChain(store, threadId, "child:1", 2);

      expect((await store.getLatest(threadId))?.checkpoint).toEqual(root);
      expect((await store.getLatest(threadId, ""))?.checkpoint).toEqual(root);
      expect((await store.getLatest(threadId, "child:1"))?.checkpoint).toEqual(child[1]);
      expect((await store.list(threadId, { ns: "child:1" })).map((c) => c.id)).toEqual([
        child[1]!.id,
        child[0]!.id,
      ]);
      expect(await store.get(threadId, "", child[0]!.id)).toBeUndefined();
      // Each namespace has its own expectedLatestId.
      await expect(
        store.put(makeCheckpoint(threadId, "child:1", root!.id, 2), {
          expectedLatestId: root!.id,
        }),
      ).rejects.toBeInstanceOf(ConcurrentUpdateError);
    });

    it("stores a copy: mutating after put or after get changes nothing stored", async () => {
      const threadId = newThreadId();
      const checkpoint = makeCheckpoint(threadId, "", null, -1, {
        values: { list: [1, 2], nested: { a: 1 } },
      });
      const original = structuredClone(checkpoint);
      await store.put(checkpoint, { expectedLatestId: null });
      const write: PendingWrite = { taskId: "t1", node: "a", writes: [["list", [3]]] };
      await store.putWrites(threadId, "", checkpoint.id, write);

      (checkpoint.values.list as number[]).push(99);
      (checkpoint.values.nested as Record<string, unknown>).a = "changed";
      checkpoint.next.push("x");
      (write.writes[0]![1] as number[]).push(99);
      write.writes.push(["other", 1]);

      const read = await store.getLatest(threadId);
      expect(read?.checkpoint).toEqual(original);
      expect(read?.pendingWrites).toEqual([{ taskId: "t1", node: "a", writes: [["list", [3]]] }]);

      (read!.checkpoint.values.list as number[]).push(100);
      read!.checkpoint.metadata.step = 42;
      read!.pendingWrites[0]!.writes.length = 0;

      const again = await store.getLatest(threadId);
      expect(again?.checkpoint).toEqual(original);
      expect(again?.pendingWrites[0]?.writes).toEqual([["list", [3]]]);
      expect((await store.list(threadId))[0]).toEqual(original);
    });

    it("putWrites stores writes against a checkpoint; get and getLatest return them", async () => {
      const threadId = newThreadId();
      const [first, second] = await putChain(store, threadId, "", 2);
      const a: PendingWrite = { taskId: "task-a", node: "a", writes: [["x", 1]] };
      const b: PendingWrite = { taskId: "task-b", node: "b", writes: [] };
      const old: PendingWrite = { taskId: "task-old", node: "a", writes: [["y", { z: 2 }]] };
      await store.putWrites(threadId, "", second!.id, a);
      await store.putWrites(threadId, "", second!.id, b);
      await store.putWrites(threadId, "", first!.id, old);

      expect((await store.getLatest(threadId))?.pendingWrites).toEqual([a, b]);
      expect((await store.get(threadId, "", second!.id))?.pendingWrites).toEqual([a, b]);
      expect((await store.get(threadId, "", first!.id))?.pendingWrites).toEqual([old]);
    });

    it("putWrites replaces the same task's earlier writes, keeping its place", async () => {
      const threadId = newThreadId();
      const [checkpoint] = await putChain(store, threadId, "", 1);
      const id = checkpoint!.id;
      await store.putWrites(threadId, "", id, { taskId: "t1", node: "a", writes: [["x", 1]] });
      await store.putWrites(threadId, "", id, { taskId: "t2", node: "b", writes: [["y", 1]] });
      await store.putWrites(threadId, "", id, {
        taskId: "t1",
        node: "a",
        writes: [
          ["x", 2],
          ["z", 3],
        ],
      });

      expect((await store.getLatest(threadId))?.pendingWrites).toEqual([
        {
          taskId: "t1",
          node: "a",
          writes: [
            ["x", 2],
            ["z", 3],
          ],
        },
        { taskId: "t2", node: "b", writes: [["y", 1]] },
      ]);
    });

    it("listWrites returns several checkpoints' writes at once, by id, each as get returns it", async () => {
      const threadId = newThreadId();
      const [a, b, c] = await putChain(store, threadId, "", 3);
      const w = (taskId: string): PendingWrite => ({ taskId, node: "n", writes: [["x", taskId]] });
      await store.putWrites(threadId, "", a!.id, w("1"));
      await store.putWrites(threadId, "", c!.id, w("2"));
      await store.putWrites(threadId, "", c!.id, w("3"));
      const writes = await store.listWrites(threadId, "", [a!.id, b!.id, c!.id, "unknown"]);
      expect([...writes.keys()].sort()).toEqual([a!.id, c!.id].sort());
      expect(writes.get(a!.id)).toEqual((await store.get(threadId, "", a!.id))?.pendingWrites);
      expect(writes.get(c!.id)).toEqual((await store.get(threadId, "", c!.id))?.pendingWrites);
      expect(writes.get(c!.id)?.map((x) => x.taskId)).toEqual(["2", "3"]);
      expect((await store.listWrites(threadId, "sub:1", [a!.id])).size).toBe(0);
      expect((await store.listWrites(threadId, "", [])).size).toBe(0);
    });

    it("putWrites against an unknown checkpoint throws CheckpointNotFoundError naming it", async () => {
      const threadId = newThreadId();
      const write: PendingWrite = { taskId: "t1", node: "a", writes: [] };
      const unknown = checkpointId();
      const error = await store.putWrites(threadId, "", unknown, write).catch((e) => e);
      expect(error).toBeInstanceOf(CheckpointNotFoundError);
      expect(error).toMatchObject({
        code: "CHECKPOINT_NOT_FOUND",
        threadId,
        ns: "",
        checkpointId: unknown,
        taskId: "t1",
      });
      const [checkpoint] = await putChain(store, threadId, "", 1);
      await expect(
        store.putWrites(threadId, "child:1", checkpoint!.id, write),
      ).rejects.toMatchObject({ code: "CHECKPOINT_NOT_FOUND", ns: "child:1" });
    });

    it("put with a stale expectedLatestId throws ConcurrentUpdateError and stores nothing", async () => {
      const threadId = newThreadId();
      const [first, second] = await putChain(store, threadId, "", 2);
      const stale = makeCheckpoint(threadId, "", first!.id, 1);

      const error = await store.put(stale, { expectedLatestId: first!.id }).catch((e) => e);
      expect(error).toBeInstanceOf(ConcurrentUpdateError);
      expect(error.code).toBe("CONCURRENT_UPDATE");
      expect(error.message).toContain(second!.id);
      expect((await store.getLatest(threadId))?.checkpoint).toEqual(second);
      expect(await store.get(threadId, "", stale.id)).toBeUndefined();
      expect(await store.list(threadId)).toHaveLength(2);
    });

    it("a first put (expectedLatestId null) on a thread that has a checkpoint throws", async () => {
      const threadId = newThreadId();
      const [existing] = await putChain(store, threadId, "", 1);
      const other = makeCheckpoint(threadId, "", null, -1);

      await expect(store.put(other, { expectedLatestId: null })).rejects.toBeInstanceOf(
        ConcurrentUpdateError,
      );
      expect((await store.getLatest(threadId))?.checkpoint).toEqual(existing);
      expect(await store.list(threadId)).toHaveLength(1);
    });

    it("put expecting a latest on an empty thread throws ConcurrentUpdateError", async () => {
      const threadId = newThreadId();
      const checkpoint = makeCheckpoint(threadId, "", null, -1);
      await expect(
        store.put(checkpoint, { expectedLatestId: checkpointId() }),
      ).rejects.toBeInstanceOf(ConcurrentUpdateError);
      expect(await store.getLatest(threadId)).toBeUndefined();
    });

    it("of two concurrent puts with the same expectedLatestId exactly one succeeds", async () => {
      for (let round = 0; round < 5; round++) {
        const threadId = newThreadId();
        // The race for a thread's very first checkpoint…
        const firsts = [0, 1].map(() => makeCheckpoint(threadId, "", null, -1));
        const settledFirst = await Promise.allSettled(
          firsts.map((c) => store.put(c, { expectedLatestId: null })),
        );
        const winnerFirst = expectOneWinner(settledFirst);
        const head = firsts[winnerFirst]!;
        expect((await store.getLatest(threadId))?.checkpoint).toEqual(head);

        // …and for a later one.
        const nexts = [0, 1].map(() => makeCheckpoint(threadId, "", head.id, 0));
        const settledNext = await Promise.allSettled(
          nexts.map((c) => store.put(c, { expectedLatestId: head.id })),
        );
        const winnerNext = expectOneWinner(settledNext);
        expect((await store.getLatest(threadId))?.checkpoint).toEqual(nexts[winnerNext]);
        expect((await store.list(threadId)).map((c) => c.id)).toEqual([
          nexts[winnerNext]!.id,
          head.id,
        ]);
      }
    });

    it("put of an id the thread already has throws and keeps history as it was", async () => {
      const threadId = newThreadId();
      const [checkpoint] = await putChain(store, threadId, "", 1);
      const error = await store
        .put({ ...checkpoint!, parentId: checkpoint!.id }, { expectedLatestId: checkpoint!.id })
        .catch((e) => e);
      expect(error).toBeInstanceOf(DuplicateCheckpointError);
      expect(error).toMatchObject({
        code: "DUPLICATE_CHECKPOINT",
        threadId,
        ns: "",
        checkpointId: checkpoint!.id,
      });
      expect(await store.list(threadId)).toEqual([checkpoint]);
      const next = makeCheckpoint(threadId, "", checkpoint!.id, 0);
      await store.put(next, { expectedLatestId: checkpoint!.id });
      expect((await store.getLatest(threadId))?.checkpoint).toEqual(next);

      // An older id again, expecting the right latest: refused, and the latest stays `next`.
      await expect(
        store.put({ ...checkpoint!, parentId: next.id }, { expectedLatestId: next.id }),
      ).rejects.toMatchObject({ code: "DUPLICATE_CHECKPOINT" });
      expect((await store.getLatest(threadId))?.checkpoint).toEqual(next);
      expect((await store.list(threadId)).map((c) => c.id)).toEqual([next.id, checkpoint!.id]);
      await expect(
        store.put(makeCheckpoint(threadId, "", checkpoint!.id, 1), {
          expectedLatestId: checkpoint!.id,
        }),
      ).rejects.toBeInstanceOf(ConcurrentUpdateError);
      const last = makeCheckpoint(threadId, "", next.id, 1);
      await store.put(last, { expectedLatestId: next.id });
      expect((await store.getLatest(threadId))?.checkpoint).toEqual(last);
    });

    it("put expecting the latest of a deleted thread throws and stores nothing", async () => {
      const threadId = newThreadId();
      const [, latest] = await putChain(store, threadId, "", 2);
      await store.deleteThread(threadId);

      const stale = makeCheckpoint(threadId, "", latest!.id, 1);
      await expect(store.put(stale, { expectedLatestId: latest!.id })).rejects.toBeInstanceOf(
        ConcurrentUpdateError,
      );
      expect(await store.getLatest(threadId)).toBeUndefined();
      expect(await store.list(threadId)).toEqual([]);
    });

    it("deleteThread removes every namespace of the thread and leaves other threads", async () => {
      const threadId = newThreadId();
      const otherId = newThreadId();
      const [root] = await putChain(store, threadId, "", 2);
      const [child] = await putChain(store, threadId, "child:1", 1);
      await putChain(store, threadId, "child:1|grand:2", 1);
      await store.putWrites(threadId, "", root!.id, { taskId: "t", node: "a", writes: [] });
      const other = await putChain(store, otherId, "", 2);
      await store.putWrites(otherId, "", other[1]!.id, { taskId: "t", node: "a", writes: [] });

      await store.deleteThread(threadId);

      expect(await store.getLatest(threadId)).toBeUndefined();
      expect(await store.getLatest(threadId, "child:1")).toBeUndefined();
      expect(await store.getLatest(threadId, "child:1|grand:2")).toBeUndefined();
      expect(await store.get(threadId, "", root!.id)).toBeUndefined();
      expect(await store.get(threadId, "child:1", child!.id)).toBeUndefined();
      expect(await store.list(threadId)).toEqual([]);
      expect((await store.getLatest(otherId))?.checkpoint).toEqual(other[1]);
      expect((await store.getLatest(otherId))?.pendingWrites).toHaveLength(1);

      // The thread starts over: a new first checkpoint is accepted.
      await putChain(store, threadId, "", 1);
      expect(await store.list(threadId)).toHaveLength(1);
      await store.deleteThread(newThreadId()); // unknown thread: no error
    });

    it("refuses ids that are not well-formed Unicode (lone surrogates) in every method, before storing", async () => {
      const threadId = newThreadId();
      const [checkpoint] = await putChain(store, threadId, "", 1);
      const id = checkpoint!.id;
      const write: PendingWrite = { taskId: "t1", node: "a", writes: [] };
      const lone = `${threadId}\uD800`;
      const invalidId = (field: string) =>
        expect.objectContaining({ code: "INVALID_ID", field, rule: "surrogate" });

      // A thread whose id differs only by U+FFFD is a different, valid thread.
      const replaced = `${threadId}\uFFFD`;
      threadIds.push(replaced);
      const [other] = await putChain(store, replaced, "", 1);
      await expect(store.getLatest(lone)).rejects.toEqual(invalidId("threadId"));
      await expect(store.get(lone, "", other!.id)).rejects.toEqual(invalidId("threadId"));
      await expect(store.list(lone)).rejects.toEqual(invalidId("threadId"));
      await expect(store.deleteThread(lone)).rejects.toEqual(invalidId("threadId"));
      await expect(
        store.put(makeCheckpoint(lone, "", null, -1), { expectedLatestId: null }),
      ).rejects.toEqual(invalidId("checkpoint.threadId"));
      await expect(
        store.put(makeCheckpoint(threadId, "child\uDC00", null, -1), { expectedLatestId: null }),
      ).rejects.toEqual(invalidId("checkpoint.ns"));
      await expect(
        store.put(makeCheckpoint(threadId, "", id, 0, { id: "id\uD83D" }), {
          expectedLatestId: id,
        }),
      ).rejects.toEqual(invalidId("checkpoint.id"));
      await expect(store.putWrites(lone, "", id, write)).rejects.toEqual(invalidId("threadId"));
      await expect(store.putWrites(threadId, "\uDC00", id, write)).rejects.toEqual(invalidId("ns"));
      await expect(store.putWrites(threadId, "", `${id}\uDFFF`, write)).rejects.toEqual(
        invalidId("checkpointId"),
      );
      await expect(
        store.putWrites(threadId, "", id, { ...write, taskId: "t\uD800" }),
      ).rejects.toEqual(invalidId("write.taskId"));
      await expect(store.getLatest(threadId, "\uD800")).rejects.toEqual(invalidId("ns"));
      await expect(store.get(threadId, "", `${id}\uD800`)).rejects.toEqual(invalidId("id"));
      await expect(store.list(threadId, { before: "\uDBFF" })).rejects.toEqual(
        invalidId("options.before"),
      );
      // A proper surrogate pair is fine, and nothing above changed either thread.
      const emoji = `${threadId}-\uD83D\uDE00`;
      threadIds.push(emoji);
      const [pair] = await putChain(store, emoji, "\uD83D\uDE00", 1);
      expect((await store.getLatest(emoji, "\uD83D\uDE00"))?.checkpoint).toEqual(pair);
      expect(await store.list(threadId)).toEqual([checkpoint]);
      expect((await store.getLatest(threadId))?.pendingWrites).toEqual([]);
      expect(await store.list(replaced)).toEqual([other]);
    });

    it(`refuses ids with NUL or over ${MAX_ID_BYTES} UTF-8 bytes, and accepts ids of exactly that many in every key`, async () => {
      const threadId = newThreadId();
      const invalidId = (field: string, rule: string) =>
        expect.objectContaining({ code: "INVALID_ID", field, rule, maxBytes: MAX_ID_BYTES });
      await expect(store.getLatest(`${threadId}\u0000`)).rejects.toEqual(
        invalidId("threadId", "nul"),
      );
      await expect(
        store.put(makeCheckpoint(threadId, "", null, -1, { id: "a\u0000b" }), {
          expectedLatestId: null,
        }),
      ).rejects.toEqual(invalidId("checkpoint.id", "nul"));
      // The limit counts bytes, not characters: 257 two-byte characters are too many.
      const long = "é".repeat(MAX_ID_BYTES / 2 + 1);
      await expect(store.getLatest(long)).rejects.toEqual(invalidId("threadId", "length"));
      await expect(
        store.put(makeCheckpoint(threadId, long, null, -1), { expectedLatestId: null }),
      ).rejects.toEqual(invalidId("checkpoint.ns", "length"));
      expect(await store.list(threadId)).toEqual([]);

      // Every key at the limit at once, with incompressible text: the widest index must take it.
      const big = () => randomText(MAX_ID_BYTES);
      const bigThread = big();
      threadIds.push(bigThread);
      const ns = big();
      const first = makeCheckpoint(bigThread, ns, null, -1, { id: big() });
      await store.put(first, { expectedLatestId: null });
      const second = makeCheckpoint(bigThread, ns, first.id, 0, { id: big() });
      await store.put(second, { expectedLatestId: first.id });
      const write: PendingWrite = { taskId: big(), node: big(), writes: [["x", 1]] };
      await store.putWrites(bigThread, ns, second.id, write);
      expect(await store.getLatest(bigThread, ns)).toEqual({
        checkpoint: second,
        pendingWrites: [write],
      });
      expect(await store.list(bigThread, { ns, before: second.id })).toEqual([first]);
      const twoByte = "é".repeat(MAX_ID_BYTES / 2);
      threadIds.push(twoByte);
      await putChain(store, twoByte, "", 1);
    });

    it("refuses a missing, non-string or empty thread id in every method", async () => {
      const invalidId = (rule: string) =>
        expect.objectContaining({ code: "INVALID_ID", field: "threadId", rule });
      const bad = store as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
      for (const [value, rule] of [
        [undefined, "type"],
        [null, "type"],
        [42, "type"],
        ["", "empty"],
      ] as const) {
        await expect(bad.getLatest!.call(store, value)).rejects.toEqual(invalidId(rule));
        await expect(bad.get!.call(store, value, "", checkpointId())).rejects.toEqual(
          invalidId(rule),
        );
        await expect(bad.list!.call(store, value)).rejects.toEqual(invalidId(rule));
        await expect(bad.deleteThread!.call(store, value)).rejects.toEqual(invalidId(rule));
        await expect(
          bad.putWrites!.call(store, value, "", checkpointId(), {
            taskId: "t",
            node: "a",
            writes: [],
          }),
        ).rejects.toEqual(invalidId(rule));
        const checkpoint = makeCheckpoint(value as string, "", null, -1);
        await expect(store.put(checkpoint, { expectedLatestId: null })).rejects.toEqual(
          expect.objectContaining({ code: "INVALID_ID", field: "checkpoint.threadId", rule }),
        );
      }
      const error = await bad.getLatest!.call(store, undefined).catch((e: Error) => e);
      expect(error).toBeInstanceOf(InvalidIdError);
      expect((error as Error).message).toContain("threadId is undefined, not a string");
    });

    it("list refuses a limit of -1, 1.5, NaN or a non-number; limit 0 returns nothing", async () => {
      const threadId = newThreadId();
      await putChain(store, threadId, "", 2);
      for (const limit of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, "2", null]) {
        const error = await store
          .list(threadId, { limit: limit as number })
          .catch((e: unknown) => e);
        expect(error).toBeInstanceOf(InvalidConfigError);
        expect((error as Error).message).toContain("history limit");
      }
      expect(await store.list(threadId, { limit: 0 })).toEqual([]);
      expect(await store.list(threadId, { limit: 1 })).toHaveLength(1);
    });

    it("a value too deep or not JSON, handed to the store directly, is a typed error and stores nothing", async () => {
      const threadId = newThreadId();
      let deep: unknown = "leaf";
      for (let i = 0; i < 20_000; i++) deep = [deep];
      const tooDeep = makeCheckpoint(threadId, "", null, -1, { values: { deep } });
      await expect(store.put(tooDeep, { expectedLatestId: null })).rejects.toBeInstanceOf(
        ValueTooDeepError,
      );
      const bigint = makeCheckpoint(threadId, "", null, -1, { values: { n: 1n } });
      await expect(store.put(bigint, { expectedLatestId: null })).rejects.toBeInstanceOf(
        NonSerializableError,
      );
      expect(await store.getLatest(threadId)).toBeUndefined();
      // At the limit it round-trips.
      let limit: unknown = "leaf";
      for (let i = 1; i < MAX_JSON_DEPTH - 2; i++) limit = [limit];
      const ok = makeCheckpoint(threadId, "", null, -1, { values: { limit } });
      await store.put(ok, { expectedLatestId: null });
      expect((await store.getLatest(threadId))?.checkpoint.values).toEqual({ limit });
    });

    it("getLatest of an unknown thread is undefined", async () => {
      const threadId = newThreadId();
      expect(await store.getLatest(threadId)).toBeUndefined();
      expect(await store.getLatest(threadId, "child:1")).toBeUndefined();
      expect(await store.list(threadId)).toEqual([]);
    });

    describe("thread claims", () => {
      const claim = (expectedLatestId: string | null, runId = randomUUID(), ttlMs = 60_000) => ({
        runId,
        expectedLatestId,
        ttlMs,
      });

      it("a run claims a new thread, and an existing one at its latest checkpoint", async () => {
        const fresh = newThreadId();
        await store.claimThread(fresh, claim(null));
        const threadId = newThreadId();
        const [, latest] = await putChain(store, threadId, "", 2);
        await store.claimThread(threadId, claim(latest!.id));
      });

      it("a claim expecting another latest checkpoint is refused with ConcurrentUpdateError", async () => {
        const threadId = newThreadId();
        const [first] = await putChain(store, threadId, "", 2);
        const error = await store.claimThread(threadId, claim(first!.id)).catch((e) => e);
        expect(error).toBeInstanceOf(ConcurrentUpdateError);
        expect(error).not.toBeInstanceOf(ThreadBusyError);
        expect(
          await store.claimThread(newThreadId(), claim("no-such-id")).catch((e) => e),
        ).toBeInstanceOf(ConcurrentUpdateError);
      });

      it("while one run holds a thread, another's claim is refused with ThreadBusyError", async () => {
        const threadId = newThreadId();
        const [latest] = await putChain(store, threadId, "", 1);
        await store.claimThread(threadId, claim(latest!.id));
        const error = await store.claimThread(threadId, claim(latest!.id)).catch((e) => e);
        expect(error).toBeInstanceOf(ThreadBusyError);
        expect(error).toBeInstanceOf(ConcurrentUpdateError);
      });

      it("of two concurrent claims at the same checkpoint exactly one succeeds", async () => {
        const threadId = newThreadId();
        const [latest] = await putChain(store, threadId, "", 1);
        const settled = await Promise.allSettled([
          store.claimThread(threadId, claim(latest!.id)),
          store.claimThread(threadId, claim(latest!.id)),
        ]);
        expectOneWinner(settled);
      });

      it("a released claim frees the thread; releasing someone else's claim changes nothing", async () => {
        const threadId = newThreadId();
        const [latest] = await putChain(store, threadId, "", 1);
        const holder = randomUUID();
        await store.claimThread(threadId, claim(latest!.id, holder));
        await store.releaseThread(threadId, randomUUID());
        await expect(store.claimThread(threadId, claim(latest!.id))).rejects.toBeInstanceOf(
          ThreadBusyError,
        );
        await store.releaseThread(threadId, holder);
        await store.claimThread(threadId, claim(latest!.id));
      });

      it("an expired claim no longer holds the thread, so a run that died frees it", async () => {
        const threadId = newThreadId();
        const [latest] = await putChain(store, threadId, "", 1);
        const dead = randomUUID();
        await store.claimThread(threadId, claim(latest!.id, dead, 50));
        await new Promise((resolve) => setTimeout(resolve, 120));
        await store.claimThread(threadId, claim(latest!.id));
        // The dead run's renewal now finds the thread taken.
        await expect(store.renewThreadClaim(threadId, dead, 60_000)).rejects.toBeInstanceOf(
          ThreadBusyError,
        );
      });

      it("renewing keeps a claim alive past its first expiry, whatever the latest checkpoint", async () => {
        const threadId = newThreadId();
        const [first] = await putChain(store, threadId, "", 1);
        const runId = randomUUID();
        // 400 ms: a loaded machine still renews before the first expiry; the wait passes it.
        await store.claimThread(threadId, claim(first!.id, runId, 400));
        const second = makeCheckpoint(threadId, "", first!.id, 1);
        await store.put(second, { expectedLatestId: first!.id });
        await store.renewThreadClaim(threadId, runId, 60_000);
        await new Promise((resolve) => setTimeout(resolve, 500));
        await expect(store.claimThread(threadId, claim(second.id))).rejects.toBeInstanceOf(
          ThreadBusyError,
        );
      });

      /** The store's `claimLatest`; a store without it lists the cases that use it in skip. */
      const claimLatest = (threadId: string, runId = randomUUID(), ttlMs = 60_000) => {
        if (!store.claimLatest) {
          throw new Error(`${name} has no claimLatest: list this case in skip with the reason.`);
        }
        return store.claimLatest(threadId, { runId, ttlMs });
      };

      it("a claim that reads its thread in one call returns the latest checkpoint with its pending writes, and holds the thread at it (claimLatest)", async () => {
        const threadId = newThreadId();
        const [, latest] = await putChain(store, threadId, "", 2);
        const write: PendingWrite = { taskId: "t1", node: "a", writes: [["x", 1]] };
        await store.putWrites(threadId, "", latest!.id, write);
        await putChain(store, threadId, "child:1", 1);
        const runId = randomUUID();
        const read = await claimLatest(threadId, runId);
        expect(read).toEqual(await store.getLatest(threadId));
        expect(read).toEqual({ checkpoint: latest, pendingWrites: [write] });
        expect((await store.getThread(threadId))?.status).toBe("busy");
        // Held: another run's claim of either kind is refused until this one lets go.
        await expect(claimLatest(threadId)).rejects.toBeInstanceOf(ThreadBusyError);
        await expect(store.claimThread(threadId, claim(latest!.id))).rejects.toBeInstanceOf(
          ThreadBusyError,
        );
        // The run writes on from what it read, as a claim's holder.
        const next = makeCheckpoint(threadId, "", latest!.id, 2);
        await store.put(next, { expectedLatestId: latest!.id });
        await store.releaseThread(threadId, runId);
        expect(await claimLatest(threadId)).toEqual({ checkpoint: next, pendingWrites: [] });
      });

      it("a claim that reads a thread with no checkpoint returns undefined and holds it, so one first checkpoint is written (claimLatest)", async () => {
        const threadId = newThreadId();
        const runId = randomUUID();
        expect(await claimLatest(threadId, runId)).toBeUndefined();
        await expect(claimLatest(threadId)).rejects.toBeInstanceOf(ThreadBusyError);
        const first = makeCheckpoint(threadId, "", null, -1);
        await store.put(first, { expectedLatestId: null });
        await store.releaseThread(threadId, runId);
        expect(await claimLatest(threadId)).toMatchObject({ checkpoint: first });
      });

      it("a claim that reads its thread is refused with ThreadBusyError while another run holds it, and changes nothing; an expired one frees it (claimLatest)", async () => {
        const threadId = newThreadId();
        const [latest] = await putChain(store, threadId, "", 1);
        const holder = randomUUID();
        // 400 ms: long enough that a loaded machine reads and renews before it expires.
        await store.claimThread(threadId, claim(latest!.id, holder, 400));
        const before = await store.getThread(threadId);
        const error = await claimLatest(threadId).catch((e) => e);
        expect(error).toBeInstanceOf(ThreadBusyError);
        expect(await store.getThread(threadId)).toEqual(before);
        // The holder's renewal still works: the refused claim took nothing.
        await store.renewThreadClaim(threadId, holder, 400);
        await new Promise((resolve) => setTimeout(resolve, 500));
        const taker = randomUUID();
        expect(await claimLatest(threadId, taker)).toMatchObject({ checkpoint: latest });
        await expect(store.renewThreadClaim(threadId, holder, 60_000)).rejects.toBeInstanceOf(
          ThreadBusyError,
        );
      });

      it("of two concurrent claims that read the same thread exactly one succeeds (claimLatest)", async () => {
        const threadId = newThreadId();
        await putChain(store, threadId, "", 1);
        expectOneWinner(await Promise.allSettled([claimLatest(threadId), claimLatest(threadId)]));
      });

      it("a claim that reads its thread changes nothing in its record but the busy status, and its release leaves the record as it was (claimLatest)", async () => {
        const threadId = newThreadId();
        const first = makeCheckpoint(threadId, "", null, -1);
        await store.put(first, { expectedLatestId: null, thread: { metadata: { user: "u1" } } });
        const before = await store.getThread(threadId);
        const runId = randomUUID();
        await claimLatest(threadId, runId);
        expect(await store.getThread(threadId)).toEqual({ ...before, status: "busy" });
        await store.releaseThread(threadId, runId);
        expect(await store.getThread(threadId)).toEqual(before);
      });

      it("deleteThread removes the claim with the thread", async () => {
        const threadId = newThreadId();
        await putChain(store, threadId, "", 1);
        await store.claimThread(threadId, claim((await store.getLatest(threadId))!.checkpoint.id));
        await store.deleteThread(threadId);
        await store.claimThread(threadId, claim(null));
      });
    });

    describe("thread records", () => {
      const claim = (
        expectedLatestId: string | null,
        options: { runId?: string; ttlMs?: number; metadata?: Record<string, unknown> } = {},
      ) => ({
        runId: options.runId ?? randomUUID(),
        expectedLatestId,
        ttlMs: options.ttlMs ?? 60_000,
        metadata: options.metadata,
      });
      const pending = (node: string): InterruptRecord => ({
        id: randomUUID().replaceAll("-", "").slice(0, 24),
        value: { question: `ok for ${node}?` },
        node,
        ns: "",
        step: 1,
        taskId: `task-${node}`,
        timing: "during",
      });
      const statusOf = async (threadId: string) => (await store.getThread(threadId))?.status;
      /** Every page of a search, followed by its cursors to the end. */
      const allPages = async (options: Parameters<Checkpointer["searchThreads"]>[0]) => {
        const pages: ThreadRecord[][] = [];
        let cursor: string | undefined;
        do {
          const page = await store.searchThreads({ ...options, cursor });
          pages.push(page.threads);
          cursor = page.nextCursor ?? undefined;
        } while (cursor !== undefined && pages.length < 100);
        return pages;
      };

      /** A paused task's write, as a run stores it (see `pauseWrite`). */
      const paused = (record: InterruptRecord, runId?: string): PendingWrite => ({
        ...pauseWrite(record.node, {
          taskId: record.taskId,
          interrupts: [{ id: record.id, value: record.value }],
          resumes: [],
          waitsOn: [record],
        }),
        ...(runId !== undefined && { runId }),
      });

      it("putPause stores the paused tasks' writes against the latest checkpoint and marks the thread interrupted in the same call; no checkpoint is added", async () => {
        const threadId = newThreadId();
        const [, barrier] = await putChain(store, threadId, "", 2);
        const a = pending("a");
        const b = pending("b");
        const runId = randomUUID();
        await store.claimThread(threadId, claim(barrier!.id, { runId }));
        await store.putPause(
          threadId,
          "",
          barrier!.id,
          { writes: [paused(a), paused(b)], interrupts: [a, b] },
          runId,
        );
        const record = await store.getThread(threadId);
        // The claim went with it: the thread reads interrupted, not busy.
        expect(record).toMatchObject({
          status: "interrupted",
          interrupts: [a, b],
          latestCheckpointId: barrier!.id,
        });
        expect(await store.list(threadId)).toHaveLength(2);
        const latest = await store.getLatest(threadId);
        expect(latest?.checkpoint).toEqual(barrier);
        expect(latest?.pendingWrites).toEqual([paused(a), paused(b)]);
        const page = await store.searchThreads({ status: "interrupted", limit: 1_000 });
        expect(page.threads.map((t) => t.threadId)).toContain(threadId);
        // The next checkpoint ends the pause, as any put sets the record from its checkpoint.
        const next = makeCheckpoint(threadId, "", barrier!.id, 2);
        await store.put(next, { expectedLatestId: barrier!.id });
        expect(await store.getThread(threadId)).toMatchObject({ status: "idle", interrupts: [] });
      });

      it("putPause in a subgraph's namespace stores its writes and leaves the thread's record; against an unknown checkpoint it throws CheckpointNotFoundError and stores nothing", async () => {
        const threadId = newThreadId();
        const [top] = await putChain(store, threadId, "", 1);
        const [child] = await putChain(store, threadId, "sub:1", 1);
        const before = await store.getThread(threadId);
        const a = { ...pending("a"), ns: "sub:1" };
        await store.putPause(threadId, "sub:1", child!.id, {
          writes: [paused(a)],
          interrupts: [a],
        });
        expect(await store.getThread(threadId)).toEqual(before);
        expect((await store.getLatest(threadId, "sub:1"))?.pendingWrites).toEqual([paused(a)]);
        const b = pending("b");
        await expect(
          store.putPause(threadId, "", "no-such-checkpoint", {
            writes: [paused(b)],
            interrupts: [b],
          }),
        ).rejects.toBeInstanceOf(CheckpointNotFoundError);
        expect((await store.getLatest(threadId))?.pendingWrites).toEqual([]);
        expect((await store.getThread(threadId))?.status).toBe("idle");
        expect((await store.getLatest(threadId))?.checkpoint).toEqual(top);
      });

      it("rewindThread takes the record's status from the pause writes kept on its new latest: a rolled-back run's pause goes, an earlier run's stays", async () => {
        const threadId = newThreadId();
        const [, barrier] = await putChain(store, threadId, "", 2);
        const a = pending("a");
        await store.putPause(threadId, "", barrier!.id, {
          writes: [paused(a, "first-run")],
          interrupts: [a],
        });
        const b = pending("b");
        await store.putPause(threadId, "", barrier!.id, {
          writes: [paused(b, "second-run")],
          interrupts: [a, b],
        });
        expect(await store.rewindThread(threadId, barrier!.id, { runId: "second-run" })).toBe(0);
        expect(await store.getThread(threadId)).toMatchObject({
          status: "interrupted",
          interrupts: [a],
        });
        expect(await store.rewindThread(threadId, barrier!.id, { runId: "first-run" })).toBe(0);
        expect(await store.getThread(threadId)).toMatchObject({ status: "idle", interrupts: [] });
      });

      it("a top-level put writes the thread's record with it; a subgraph's put leaves it", async () => {
        const threadId = newThreadId();
        expect(await store.getThread(threadId)).toBeUndefined();
        const before = Date.now();
        const first = makeCheckpoint(threadId, "", null, -1);
        await store.put(first, { expectedLatestId: null });
        const created = await store.getThread(threadId);
        expect(created).toEqual({
          threadId,
          graph: null,
          status: "idle",
          interrupts: [],
          error: null,
          metadata: {},
          createdAt: expect.any(String),
          updatedAt: expect.any(String),
          latestCheckpointId: first.id,
        });
        expect(Date.parse(created!.createdAt)).toBeGreaterThanOrEqual(before - 1_000);
        expect(created!.updatedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

        const asked = pending("review");
        const paused = makeCheckpoint(threadId, "", first.id, 0, { interrupts: [asked] });
        await store.put(paused, {
          expectedLatestId: first.id,
          thread: { graph: "Support", metadata: { user: "u1" } },
        });
        const record = await store.getThread(threadId);
        expect(record).toEqual({
          ...created,
          graph: "Support",
          status: "interrupted",
          interrupts: [asked],
          metadata: { user: "u1" },
          updatedAt: expect.any(String),
          latestCheckpointId: paused.id,
        });
        expect(record!.updatedAt >= created!.updatedAt).toBe(true);
        expect(record!.createdAt).toBe(created!.createdAt);

        // A subgraph's checkpoints are not the thread's latest: the record stays as it was.
        await putChain(store, threadId, "child:1", 2);
        expect(await store.getThread(threadId)).toEqual(record);
        // A put that fails changes no record either.
        await expect(
          store.put(makeCheckpoint(threadId, "", first.id, 1), {
            expectedLatestId: first.id,
            thread: { graph: "Other", metadata: { user: "u2" } },
          }),
        ).rejects.toBeInstanceOf(ConcurrentUpdateError);
        expect(await store.getThread(threadId)).toEqual(record);
      });

      it("status goes idle → busy while claimed → interrupted → error when a run fails → idle at the next checkpoint", async () => {
        const threadId = newThreadId();
        const [first] = await putChain(store, threadId, "", 1);
        expect(await statusOf(threadId)).toBe("idle");

        const run = randomUUID();
        await store.claimThread(threadId, claim(first!.id, { runId: run }));
        expect(await statusOf(threadId)).toBe("busy");
        const paused = makeCheckpoint(threadId, "", first!.id, 0, { interrupts: [pending("a")] });
        await store.put(paused, { expectedLatestId: first!.id });
        const held = await store.getThread(threadId);
        expect(held?.status).toBe("busy");
        expect(held?.interrupts).toEqual(paused.interrupts);
        await store.releaseThread(threadId, run);
        expect(await statusOf(threadId)).toBe("interrupted");

        const failing = randomUUID();
        await store.claimThread(threadId, claim(paused.id, { runId: failing }));
        const error = { name: "NodeError", message: 'Node "a" failed at step 1: boom' };
        await store.releaseThread(threadId, failing, { error });
        const failed = await store.getThread(threadId);
        expect(failed).toMatchObject({ status: "error", error, latestCheckpointId: paused.id });
        expect(failed!.updatedAt >= held!.updatedAt).toBe(true);

        const next = makeCheckpoint(threadId, "", paused.id, 1);
        await store.put(next, { expectedLatestId: paused.id });
        expect(await store.getThread(threadId)).toMatchObject({
          status: "idle",
          error: null,
          interrupts: [],
          latestCheckpointId: next.id,
        });
      });

      it("an expired claim stops making the thread busy: it shows its stored status again", async () => {
        const threadId = newThreadId();
        const [first] = await putChain(store, threadId, "", 1);
        const paused = makeCheckpoint(threadId, "", first!.id, 0, { interrupts: [pending("a")] });
        await store.put(paused, { expectedLatestId: first!.id });
        // Long enough that a loaded machine still reads the claim before it expires.
        await store.claimThread(threadId, claim(paused.id, { ttlMs: 400 }));
        expect(await statusOf(threadId)).toBe("busy");
        await new Promise((resolve) => setTimeout(resolve, 500));
        expect(await statusOf(threadId)).toBe("interrupted");
      });

      it("a failed run that no longer holds the thread records no error", async () => {
        const threadId = newThreadId();
        const [first] = await putChain(store, threadId, "", 1);
        const dead = randomUUID();
        await store.claimThread(threadId, claim(first!.id, { runId: dead, ttlMs: 50 }));
        await new Promise((resolve) => setTimeout(resolve, 120));
        const live = randomUUID();
        await store.claimThread(threadId, claim(first!.id, { runId: live }));
        await store.releaseThread(threadId, dead, { error: { name: "Error", message: "late" } });
        expect(await statusOf(threadId)).toBe("busy");
        await store.releaseThread(threadId, live);
        expect(await store.getThread(threadId)).toMatchObject({ status: "idle", error: null });
      });

      it("latestCheckpointId reads the latest checkpoint id the thread's record names: '' for a thread made with createThread, undefined without a record (a store without it lists this case in skip)", async () => {
        if (!store.latestCheckpointId || !store.createThread) {
          throw new Error(
            `${name} has no latestCheckpointId or createThread: list this case in skip with the reason.`,
          );
        }
        const threadId = newThreadId();
        expect(await store.latestCheckpointId(threadId)).toBeUndefined();
        await store.createThread(threadId, {});
        expect(await store.latestCheckpointId(threadId)).toBe("");
        const [, second] = await putChain(store, threadId, "", 2);
        // A subgraph's checkpoint is not the thread's latest.
        await putChain(store, threadId, "sub:1", 1);
        expect(await store.latestCheckpointId(threadId)).toBe(second!.id);
        expect(await store.latestCheckpointId(threadId)).toBe(
          (await store.getThread(threadId))?.latestCheckpointId,
        );
      });

      it("createThread records a thread before its first checkpoint: idle, with its metadata and latestCheckpointId '', found by search (a store without createThread lists this case in skip)", async () => {
        if (!store.createThread)
          throw new Error(`${name} has no createThread: list this case in skip with the reason.`);
        const scope = randomUUID();
        const threadId = newThreadId();
        expect(await store.createThread(threadId, { scope, user: "u1" })).toBe(true);
        const record = await store.getThread(threadId);
        expect(record).toMatchObject({
          threadId,
          status: "idle",
          interrupts: [],
          error: null,
          metadata: { scope, user: "u1" },
          latestCheckpointId: "",
        });
        expect(
          (await store.searchThreads({ metadata: { scope } })).threads.map((t) => t.threadId),
        ).toEqual([threadId]);
        expect(await store.getLatest(threadId)).toBeUndefined();
        // Made again: false, and nothing changes.
        expect(await store.createThread!(threadId, { user: "u2" })).toBe(false);
        expect((await store.getThread(threadId))?.metadata).toEqual({ scope, user: "u1" });
        // The first checkpoint takes the thread over: its time of creation and metadata stay.
        const first = makeCheckpoint(threadId, "", null, -1);
        await store.put(first, { expectedLatestId: null, thread: { metadata: { ticket: 7 } } });
        expect(await store.getThread(threadId)).toMatchObject({
          createdAt: record!.createdAt,
          metadata: { scope, user: "u1", ticket: 7 },
          latestCheckpointId: first.id,
        });
      });

      it("merges metadata from puts and claims key by key; search finds the threads whose metadata contains the filter", async () => {
        const scope = randomUUID();
        const threadId = newThreadId();
        const first = makeCheckpoint(threadId, "", null, -1);
        await store.put(first, {
          expectedLatestId: null,
          thread: { metadata: { scope, user: "u1", tags: ["x", "y"], nested: { k: 1, j: 2 } } },
        });
        await store.claimThread(threadId, claim(first.id, { metadata: { ticket: 7 } }));
        const second = makeCheckpoint(threadId, "", first.id, 0);
        await store.put(second, {
          expectedLatestId: first.id,
          thread: { metadata: { user: "u2" } },
        });
        const expected = { scope, user: "u2", tags: ["x", "y"], nested: { k: 1, j: 2 }, ticket: 7 };
        expect((await store.getThread(threadId))?.metadata).toEqual(expected);

        const other = newThreadId();
        await store.put(makeCheckpoint(other, "", null, -1), {
          expectedLatestId: null,
          thread: { metadata: { scope, user: "u1", tags: ["y"] } },
        });
        const ids = async (metadata: Record<string, unknown>) =>
          (await store.searchThreads({ metadata })).threads.map((t) => t.threadId).sort();
        expect(await ids({ scope })).toEqual([threadId, other].sort());
        expect(await ids({ scope, user: "u2" })).toEqual([threadId]);
        expect(await ids({ scope, nested: { k: 1 }, tags: ["y"] })).toEqual([threadId]);
        expect(await ids({ scope, tags: ["y"] })).toEqual([threadId, other].sort());
        expect(await ids({ scope, user: "u1", ticket: 7 })).toEqual([]);
        expect(await ids({ scope, nested: { k: 2 } })).toEqual([]);
      });

      it("updateThreadMetadata merges into the record's metadata and sets updatedAt to now; the rest stays; an unknown thread is undefined", async () => {
        const threadId = newThreadId();
        const first = makeCheckpoint(threadId, "", null, -1);
        await store.put(first, {
          expectedLatestId: null,
          thread: { graph: "g", metadata: { user: "u1", keep: { a: 1 } } },
        });
        const before = (await store.getThread(threadId))!;
        const after = await store.updateThreadMetadata(threadId, { user: "u2", flag: true });
        expect(after).toEqual({
          ...before,
          metadata: { user: "u2", keep: { a: 1 }, flag: true },
          updatedAt: expect.any(String),
        });
        expect(after!.updatedAt >= before.updatedAt).toBe(true);
        expect(await store.getThread(threadId)).toEqual(after);
        expect(await store.getLatest(threadId)).toMatchObject({ checkpoint: { id: first.id } });
        expect(await store.updateThreadMetadata(newThreadId(), { user: "u3" })).toBeUndefined();
        await expect(
          store.updateThreadMetadata(threadId, ["not", "an", "object"] as never),
        ).rejects.toMatchObject({ code: "INVALID_CONFIG" });
        expect((await store.getThread(threadId))?.metadata).toEqual(after!.metadata);
      });

      // Optional in the contract: a store without it has nothing to hold to here.
      it("patchCheckpointMetadata merges into one checkpoint's metadata; its values, its history and the runtime's keys stay", async () => {
        const patch = store.patchCheckpointMetadata?.bind(store);
        if (!patch) return;
        const threadId = newThreadId();
        const [first, second] = await putChain(store, threadId, "", 2, { user: "u1" });
        const before = (await store.get(threadId, "", first!.id))!.checkpoint;
        const patched = await patch(threadId, "", first!.id, { user: "u2", reviewed: true });
        expect(patched).toEqual({ ...before.metadata, user: "u2", reviewed: true });
        const after = (await store.get(threadId, "", first!.id))!.checkpoint;
        expect(after).toEqual({ ...before, metadata: patched });
        // The other checkpoints, the latest and the history's order are as they were.
        expect((await store.getLatest(threadId))?.checkpoint).toEqual(second);
        expect((await store.list(threadId)).map((c) => c.id)).toEqual([second!.id, first!.id]);
        expect(await patch(threadId, "", "no-such-checkpoint", { x: 1 })).toBeUndefined();
        expect(await patch(newThreadId(), "", first!.id, { x: 1 })).toBeUndefined();
        for (const bad of [{ step: 9 }, { writes: {} }, ["not", "an", "object"]]) {
          await expect(patch(threadId, "", first!.id, bad as never)).rejects.toMatchObject({
            code: "INVALID_CONFIG",
          });
        }
        expect((await store.get(threadId, "", first!.id))!.checkpoint).toEqual(after);
      });

      it("searches by graph and by status; interrupted excludes threads a run holds", async () => {
        const graph = `G${randomUUID().slice(0, 8)}`;
        const made: Record<string, string> = {};
        for (const kind of ["idle", "interrupted", "held", "failed"]) {
          const threadId = newThreadId();
          made[kind] = threadId;
          const interrupts = kind === "idle" ? [] : [pending(kind)];
          const only = makeCheckpoint(threadId, "", null, -1, { interrupts });
          await store.put(only, { expectedLatestId: null, thread: { graph } });
          if (kind === "held") await store.claimThread(threadId, claim(only.id));
          if (kind === "failed") {
            const run = randomUUID();
            await store.claimThread(threadId, claim(only.id, { runId: run }));
            await store.releaseThread(threadId, run, { error: { name: "Error", message: "x" } });
          }
        }
        await store.put(makeCheckpoint(newThreadId(), "", null, -1), {
          expectedLatestId: null,
          thread: { graph: `${graph}x` },
        });
        const ids = async (status?: "idle" | "busy" | "interrupted" | "error") =>
          (await store.searchThreads({ graph, status })).threads.map((t) => t.threadId).sort();
        expect(await ids()).toEqual(Object.values(made).sort());
        expect(await ids("idle")).toEqual([made.idle]);
        expect(await ids("interrupted")).toEqual([made.interrupted]);
        expect(await ids("busy")).toEqual([made.held]);
        expect(await ids("error")).toEqual([made.failed]);
      });

      it("cursor pages cover every match exactly once, in updatedAt order, both ways", async () => {
        const scope = randomUUID();
        const threads: string[] = [];
        for (let i = 0; i < 7; i++) {
          const threadId = newThreadId();
          threads.push(threadId);
          await store.put(makeCheckpoint(threadId, "", null, -1), {
            expectedLatestId: null,
            thread: { metadata: { scope } },
          });
          // Some share a millisecond, some do not: ties are ordered by thread id.
          if (i % 3 === 0) await new Promise((resolve) => setTimeout(resolve, 3));
        }
        for (const order of ["desc", "asc"] as const) {
          for (const limit of [1, 3, 7, 50]) {
            const pages = await allPages({ metadata: { scope }, limit, order });
            expect(pages.length).toBe(Math.max(1, Math.ceil(7 / limit)));
            for (const page of pages) expect(page.length).toBeLessThanOrEqual(limit);
            const seen = pages.flat();
            expect(seen.map((t) => t.threadId).sort()).toEqual([...threads].sort());
            const key = (t: ThreadRecord) => [t.updatedAt, t.threadId] as const;
            for (let i = 1; i < seen.length; i++) {
              const [a, b] = [key(seen[i - 1]!), key(seen[i]!)];
              const ascending = a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]);
              expect(ascending).toBe(order === "asc");
            }
          }
        }
        const first = await store.searchThreads({ metadata: { scope }, limit: 7 });
        expect(first.nextCursor).toBeNull();
      });

      it("cursor pages without a status (and of busy threads) cover every thread of every status exactly once, in updatedAt order, both ways", async () => {
        const scope = randomUUID();
        const made: Array<{ threadId: string; kind: string }> = [];
        const kinds = ["idle", "interrupted", "failed", "held", "interrupted", "idle", "failed"];
        for (const [i, kind] of [...kinds, ...kinds].entries()) {
          const threadId = newThreadId();
          made.push({ threadId, kind });
          const interrupts = kind === "idle" ? [] : [pending(kind)];
          const only = makeCheckpoint(threadId, "", null, -1, { interrupts });
          await store.put(only, { expectedLatestId: null, thread: { metadata: { scope } } });
          if (kind === "held") await store.claimThread(threadId, claim(only.id));
          if (kind === "failed") {
            const run = randomUUID();
            await store.claimThread(threadId, claim(only.id, { runId: run }));
            await store.releaseThread(threadId, run, { error: { name: "Error", message: "x" } });
          }
          // Some share a millisecond, some do not: ties are ordered by thread id.
          if (i % 3 === 0) await new Promise((resolve) => setTimeout(resolve, 3));
        }
        const key = (t: ThreadRecord) => [t.updatedAt, t.threadId] as const;
        const inOrder = (seen: ThreadRecord[], order: "asc" | "desc") => {
          for (let i = 1; i < seen.length; i++) {
            const [a, b] = [key(seen[i - 1]!), key(seen[i]!)];
            expect(a[0] < b[0] || (a[0] === b[0] && a[1] < b[1])).toBe(order === "asc");
          }
        };
        const held = made.filter((m) => m.kind === "held").map((m) => m.threadId);
        for (const order of ["desc", "asc"] as const) {
          for (const limit of [1, 2, 5, 50]) {
            const pages = await allPages({ metadata: { scope }, limit, order });
            expect(pages.length).toBe(Math.max(1, Math.ceil(made.length / limit)));
            const seen = pages.flat();
            expect(seen.map((t) => t.threadId).sort()).toEqual(made.map((m) => m.threadId).sort());
            inOrder(seen, order);
            const busy = (
              await allPages({ metadata: { scope }, status: "busy", limit, order })
            ).flat();
            expect(busy.map((t) => t.threadId).sort()).toEqual([...held].sort());
            inOrder(busy, order);
          }
        }
      });

      it("deleteThread removes the thread's record", async () => {
        const scope = randomUUID();
        const threadId = newThreadId();
        await store.put(makeCheckpoint(threadId, "", null, -1), {
          expectedLatestId: null,
          thread: { metadata: { scope } },
        });
        await store.deleteThread(threadId);
        expect(await store.getThread(threadId)).toBeUndefined();
        expect((await store.searchThreads({ metadata: { scope } })).threads).toEqual([]);
        // A new first checkpoint starts a new record.
        await store.put(makeCheckpoint(threadId, "", null, -1), { expectedLatestId: null });
        expect((await store.getThread(threadId))?.metadata).toEqual({});
      });

      it("refuses search options out of range with InvalidSearchError, and metadata that is not a plain object", async () => {
        const refused = async (options: Record<string, unknown>, option: string) => {
          const error = await store.searchThreads(options as never).catch((e: unknown) => e);
          expect(error).toBeInstanceOf(InvalidSearchError);
          expect(error).toMatchObject({ code: "INVALID_SEARCH", option });
          expect((error as Error).message).toMatch(/it must be .*Nothing was read\.$/);
        };
        for (const limit of [0, -1, 1.5, 1_001, Number.NaN, "10"])
          await refused({ limit }, "limit");
        await refused({ status: "paused" }, "status");
        await refused({ order: "newest" }, "order");
        await refused({ graph: "" }, "graph");
        await refused({ metadata: ["x"] }, "metadata");
        await refused({ metadata: null }, "metadata");
        for (const cursor of ["nope", "", Buffer.from("[1,2]").toString("base64url"), 5]) {
          await refused({ cursor }, "cursor");
        }
        expect((await store.searchThreads({ limit: 1_000 })).threads.length).toBeLessThanOrEqual(
          1_000,
        );

        const threadId = newThreadId();
        for (const metadata of [["x"], "x", null, { text: "a\u0000b" }]) {
          await expect(
            store.put(makeCheckpoint(threadId, "", null, -1), {
              expectedLatestId: null,
              thread: { metadata: metadata as never },
            }),
          ).rejects.toBeInstanceOf(InvalidConfigError);
        }
        expect(await store.getLatest(threadId)).toBeUndefined();
      });
    });

    describe("channel values", () => channelValueCases(it, () => store, newThreadId));

    describe("retention and copies", () => {
      const claim = (expectedLatestId: string | null, runId: string = randomUUID()) => ({
        runId,
        expectedLatestId,
        ttlMs: 60_000,
      });
      const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
      const write = (taskId: string): PendingWrite => ({ taskId, node: "a", writes: [["x", 1]] });
      /** Everything a reader can see of (thread, ns): its history with each one's writes. */
      const everything = async (threadId: string, ns = "") =>
        Promise.all(
          (await store.list(threadId, { ns })).map(async (c) => store.get(threadId, ns, c.id)),
        );
      const retentionError = (method: string, option: string) =>
        expect.objectContaining({ code: "INVALID_RETENTION", method, option });

      it("prune keeps the latest n top-level checkpoints with their writes, as they were; the record is unchanged", async () => {
        const threadId = newThreadId();
        const chain = await putChain(store, threadId, "", 6);
        for (const c of chain) await store.putWrites(threadId, "", c.id, write(`t-${c.id}`));
        const record = await store.getThread(threadId);
        const before = await everything(threadId);

        expect(await store.prune(threadId, { keep: 2 })).toBe(4);
        expect(await everything(threadId)).toEqual(before.slice(0, 2));
        // The oldest kept names its pruned parent: history ends there.
        expect((await store.list(threadId)).at(-1)?.parentId).toBe(chain[3]!.id);
        expect(await store.get(threadId, "", chain[0]!.id)).toBeUndefined();
        expect(await store.getThread(threadId)).toEqual(record);

        expect(await store.prune(threadId, { keep: "latest" })).toBe(1);
        expect(await everything(threadId)).toEqual(before.slice(0, 1));
        expect(await store.prune(threadId, { keep: 5 })).toBe(0);
        expect(await store.prune(newThreadId(), { keep: 1 })).toBe(0);

        // The thread goes on from its latest.
        const next = makeCheckpoint(threadId, "", chain[5]!.id, 5);
        await store.put(next, { expectedLatestId: chain[5]!.id });
        expect(await store.list(threadId)).toEqual([next, chain[5]]);
      });

      it("prune keeps a paused checkpoint's step origin and the subgraph namespaces of kept steps, and drops the other namespaces", async () => {
        const threadId = newThreadId();
        const [old, barrier] = await putChain(store, threadId, "", 2);
        const paused = makeCheckpoint(threadId, "", barrier!.id, 1, {
          interrupts: [{ ...interruptAt("child:new"), step: 1 }],
          metadata: { step: 1, source: "loop", stepOrigin: barrier!.id },
        });
        await store.put(paused, { expectedLatestId: barrier!.id });
        // A finished task of the paused step stored its writes against the step's barrier.
        await store.putWrites(threadId, "", barrier!.id, write("done-task"));
        // A subgraph run of an older step, and one of the paused step (paused itself).
        await putChain(store, threadId, "child:old", 2, { parentStep: old!.id });
        const child = await putChain(store, threadId, "child:new", 2, { parentStep: barrier!.id });
        const childPaused = makeCheckpoint(threadId, "child:new", child[1]!.id, 1, {
          metadata: { step: 1, source: "loop", parentStep: barrier!.id, stepOrigin: child[1]!.id },
        });
        await store.put(childPaused, { expectedLatestId: child[1]!.id });
        await store.putWrites(threadId, "child:new", child[1]!.id, write("child-done"));
        // A run nested in the paused subgraph run, and one nested in the old one.
        await putChain(store, threadId, "child:new|grand:1", 2, { parentStep: child[1]!.id });
        await putChain(store, threadId, "child:old|grand:1", 1, { parentStep: old!.id });
        const kept = {
          "": (await everything(threadId)).slice(0, 2),
          "child:new": (await everything(threadId, "child:new")).slice(0, 2),
          "child:new|grand:1": (await everything(threadId, "child:new|grand:1")).slice(0, 1),
        };

        // 1 top-level, 1 of child:new, 1 of its grandchild, 2 + 1 of the old namespaces.
        expect(await store.prune(threadId, { keep: "latest" })).toBe(6);
        for (const [ns, tuples] of Object.entries(kept)) {
          expect(await everything(threadId, ns)).toEqual(tuples);
        }
        expect((await store.get(threadId, "", barrier!.id))?.pendingWrites).toEqual([
          write("done-task"),
        ]);
        for (const ns of ["child:old", "child:old|grand:1"]) {
          expect(await store.getLatest(threadId, ns)).toBeUndefined();
          // A dropped namespace starts afresh, as a new subgraph run would.
          await store.put(makeCheckpoint(threadId, ns, null, -1), { expectedLatestId: null });
        }
        const resumed = makeCheckpoint(threadId, "child:new", childPaused.id, 2);
        await store.put(resumed, { expectedLatestId: childPaused.id });
      });

      it("prune refuses with ThreadBusyError while a run holds the thread, and deletes nothing", async () => {
        const threadId = newThreadId();
        const chain = await putChain(store, threadId, "", 3);
        const runId = randomUUID();
        await store.claimThread(threadId, claim(chain[2]!.id, runId));
        const error = await store.prune(threadId, { keep: 1 }).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ThreadBusyError);
        expect(await store.list(threadId)).toHaveLength(3);
        await store.releaseThread(threadId, runId);
        expect(await store.prune(threadId, { keep: 1 })).toBe(2);
        // The prune's own hold is gone: a run claims the thread at once.
        await store.claimThread(threadId, claim(chain[2]!.id));
      });

      it('prune refuses a keep that is not "latest" or a whole number from 1 with InvalidRetentionError', async () => {
        const threadId = newThreadId();
        await putChain(store, threadId, "", 2);
        for (const keep of [0, -1, 1.5, Number.NaN, "all", "1", null, undefined]) {
          const error = await store.prune(threadId, { keep: keep as never }).catch((e) => e);
          expect(error).toBeInstanceOf(InvalidRetentionError);
          expect(error).toEqual(retentionError("prune", "keep"));
          expect((error as Error).message).toMatch(/Nothing was deleted or copied\.$/);
        }
        await expect(store.prune("", { keep: 1 })).rejects.toBeInstanceOf(InvalidIdError);
        expect(await store.list(threadId)).toHaveLength(2);
      });

      it("pruneThreads deletes whole threads last written before idleBefore in the statuses given, skipping held ones, and counts them", async () => {
        const graph = `G${randomUUID().slice(0, 8)}`;
        const made: Record<string, string> = {};
        const runs: Record<string, string> = {};
        for (const kind of ["idle", "interrupted", "error", "held"]) {
          const threadId = newThreadId();
          made[kind] = threadId;
          const interrupts = kind === "interrupted" ? [interruptAt("")] : [];
          const only = makeCheckpoint(threadId, "", null, -1, { interrupts });
          await store.put(only, { expectedLatestId: null, thread: { graph } });
          await store.putWrites(threadId, "", only.id, write("t"));
          await putChain(store, threadId, "child:1", 2);
          if (kind === "error" || kind === "held") {
            runs[kind] = randomUUID();
            await store.claimThread(threadId, claim(only.id, runs[kind]));
          }
          if (kind === "error") {
            await store.releaseThread(threadId, runs.error!, {
              error: { name: "E", message: "x" },
            });
          }
        }
        await sleep(30);
        const cut = new Date();
        await sleep(30);
        const fresh = newThreadId();
        await store.put(makeCheckpoint(fresh, "", null, -1), {
          expectedLatestId: null,
          thread: { graph },
        });
        const other = newThreadId();
        await store.put(makeCheckpoint(other, "", null, -1), {
          expectedLatestId: null,
          thread: { graph: `${graph}x` },
        });
        const alive = async () => {
          const ids = [...Object.values(made), fresh];
          const records = await Promise.all(ids.map((id) => store.getThread(id)));
          return ids.filter((_, i) => records[i] !== undefined);
        };

        expect(await store.pruneThreads({ idleBefore: cut, graph })).toBe(1);
        expect(await alive()).toEqual([made.interrupted, made.error, made.held, fresh]);
        // Gone as deleteThread leaves it: every namespace and write.
        expect(await store.getLatest(made.idle!)).toBeUndefined();
        expect(await store.getLatest(made.idle!, "child:1")).toBeUndefined();

        const statuses = ["interrupted", "error"] as const;
        expect(
          await store.pruneThreads({ idleBefore: cut.toISOString(), graph, status: [...statuses] }),
        ).toBe(2);
        expect(await alive()).toEqual([made.held, fresh]);

        await store.releaseThread(made.held!, runs.held!);
        expect(await store.pruneThreads({ idleBefore: cut, graph, status: "idle" })).toBe(1);
        const later = new Date(Date.now() + 60_000);
        expect(await store.pruneThreads({ idleBefore: later, graph })).toBe(1);
        expect(await alive()).toEqual([]);
        expect(await store.getThread(other)).toBeDefined();
      });

      it("pruneThreads refuses options out of range with InvalidRetentionError, before deleting anything", async () => {
        const graph = `G${randomUUID().slice(0, 8)}`;
        const threadId = newThreadId();
        await store.put(makeCheckpoint(threadId, "", null, -1), {
          expectedLatestId: null,
          thread: { graph },
        });
        const later = new Date(Date.now() + 60_000);
        const refused = [
          [{ idleBefore: "yesterday", graph }, "idleBefore"],
          [{ idleBefore: new Date(Number.NaN), graph }, "idleBefore"],
          [{ idleBefore: undefined, graph }, "idleBefore"],
          [{ idleBefore: Date.now(), graph }, "idleBefore"],
          [{ idleBefore: later, status: "busy", graph }, "status"],
          [{ idleBefore: later, status: [], graph }, "status"],
          [{ idleBefore: later, status: ["idle", "paused"], graph }, "status"],
          [{ idleBefore: later, graph: "" }, "graph"],
        ] as const;
        for (const [options, option] of refused) {
          const error = await store.pruneThreads(options as never).catch((e: unknown) => e);
          expect(error).toEqual(retentionError("pruneThreads", option));
        }
        expect(await store.getThread(threadId)).toBeDefined();
      });

      it("copyThread copies every namespace, the pending writes and the record to a new thread that reads back as its own", async () => {
        const from = newThreadId();
        const to = newThreadId();
        const chain = await putChain(store, from, "", 2);
        const paused = makeCheckpoint(from, "", chain[1]!.id, 1, { interrupts: [interruptAt("")] });
        await store.put(paused, {
          expectedLatestId: chain[1]!.id,
          thread: { graph: "Support", metadata: { user: "u1" } },
        });
        await store.putWrites(from, "", chain[1]!.id, write("t1"));
        await store.putWrites(from, "", paused.id, write("t2"));
        const child = await putChain(store, from, "child:1", 3);
        await store.putWrites(from, "child:1", child[2]!.id, write("t3"));
        await sleep(5);

        await store.copyThread(from, to);
        const rename = (tuple: Awaited<ReturnType<Checkpointer["get"]>>) =>
          tuple && { ...tuple, checkpoint: { ...tuple.checkpoint, threadId: to } };
        for (const ns of ["", "child:1"]) {
          expect(await everything(to, ns)).toEqual((await everything(from, ns)).map(rename));
          expect(await store.getLatest(to, ns)).toEqual(rename(await store.getLatest(from, ns)));
        }
        const original = await store.getThread(from);
        const copy = await store.getThread(to);
        expect(copy).toEqual({
          ...original,
          threadId: to,
          createdAt: expect.any(String),
          updatedAt: expect.any(String),
        });
        expect(copy!.updatedAt >= original!.updatedAt).toBe(true);

        // Independent: writing to one leaves the other as it was.
        const onCopy = makeCheckpoint(to, "", paused.id, 2);
        await store.put(onCopy, { expectedLatestId: paused.id });
        await store.putWrites(to, "child:1", child[2]!.id, write("t4"));
        await store.putWrites(from, "", paused.id, write("t5"));
        expect((await store.getLatest(from))?.checkpoint).toEqual(paused);
        expect((await store.getLatest(from, "child:1"))?.pendingWrites).toEqual([write("t3")]);
        expect((await store.getLatest(to, ""))?.checkpoint).toEqual(onCopy);
        expect((await store.get(to, "", paused.id))?.pendingWrites).toEqual([write("t2")]);
        await store.deleteThread(from);
        expect(await store.list(to)).toHaveLength(4);
        expect((await store.getThread(to))?.status).toBe("idle");
      });

      it("copyThread refuses a missing source, an existing target, the same id and a held source with typed errors, copying nothing", async () => {
        const from = newThreadId();
        const taken = newThreadId();
        const to = newThreadId();
        const [only] = await putChain(store, from, "", 1);
        await putChain(store, taken, "", 1);
        const nothingAt = async (threadId: string) => {
          expect(await store.getThread(threadId)).toBeUndefined();
          expect(await store.list(threadId)).toEqual([]);
        };

        const missing = newThreadId();
        await expect(store.copyThread(missing, to)).rejects.toEqual(
          expect.objectContaining({ code: "THREAD_NOT_FOUND", threadId: missing }),
        );
        await expect(store.copyThread(missing, to)).rejects.toBeInstanceOf(ThreadNotFoundError);
        const exists = await store.copyThread(from, taken).catch((e: unknown) => e);
        expect(exists).toBeInstanceOf(ThreadExistsError);
        expect(exists).toMatchObject({ code: "THREAD_EXISTS", threadId: taken });
        expect(await store.list(taken)).toHaveLength(1);
        await expect(store.copyThread(from, from)).rejects.toEqual(
          retentionError("copyThread", "to"),
        );
        await expect(store.copyThread(from, "")).rejects.toBeInstanceOf(InvalidIdError);
        const runId = randomUUID();
        await store.claimThread(from, claim(only!.id, runId));
        await expect(store.copyThread(from, to)).rejects.toBeInstanceOf(ThreadBusyError);
        await nothingAt(to);
        await store.releaseThread(from, runId);
        await store.copyThread(from, to);
        expect(await store.list(to)).toHaveLength(1);
      });
    });

    describe("rewinds", () => {
      const claim = (expectedLatestId: string | null, runId: string = randomUUID()) => ({
        runId,
        expectedLatestId,
        ttlMs: 60_000,
      });
      const write = (taskId: string, runId?: string): PendingWrite => ({
        taskId,
        node: "a",
        writes: [["x", taskId]],
        ...(runId !== undefined && { runId }),
      });
      /** Everything a reader can see of (thread, ns): its history with each one's writes. */
      const everything = async (threadId: string, ns = "") =>
        Promise.all(
          (await store.list(threadId, { ns })).map(async (c) => store.get(threadId, ns, c.id)),
        );

      it("rewindThread deletes the checkpoints stored after the one given, with their writes; the kept ones read as before and the thread goes on from it", async () => {
        const threadId = newThreadId();
        const chain = await putChain(store, threadId, "", 5);
        for (const c of chain) await store.putWrites(threadId, "", c.id, write(`t-${c.id}`));
        const before = await everything(threadId);

        expect(await store.rewindThread(threadId, chain[2]!.id)).toBe(2);
        expect(await everything(threadId)).toEqual(before.slice(2));
        expect(await store.getLatest(threadId)).toEqual(before[2]);
        expect(await store.get(threadId, "", chain[3]!.id)).toBeUndefined();
        // Rewinding to the latest deletes nothing.
        expect(await store.rewindThread(threadId, chain[2]!.id)).toBe(0);
        expect(await everything(threadId)).toEqual(before.slice(2));

        // Writers that expected the old latest are refused; the thread goes on from the new one.
        await expect(
          store.put(makeCheckpoint(threadId, "", chain[4]!.id, 4), {
            expectedLatestId: chain[4]!.id,
          }),
        ).rejects.toBeInstanceOf(ConcurrentUpdateError);
        await expect(
          store.putWrites(threadId, "", chain[4]!.id, write("late")),
        ).rejects.toBeInstanceOf(CheckpointNotFoundError);
        const next = makeCheckpoint(threadId, "", chain[2]!.id, 2);
        await store.put(next, { expectedLatestId: chain[2]!.id });
        expect(await store.list(threadId)).toEqual([next, chain[2], chain[1], chain[0]]);
        // An id that was rewound away is a new checkpoint's to take again.
        const again = makeCheckpoint(threadId, "", next.id, 3, { id: chain[3]!.id });
        await store.put(again, { expectedLatestId: next.id });
        expect((await store.getLatest(threadId))?.checkpoint).toEqual(again);
      });

      it("rewindThread deletes the subgraph checkpoints written after the one given, in every namespace, and keeps the earlier ones as they were", async () => {
        const threadId = newThreadId();
        const [root, barrier] = await putChain(store, threadId, "", 2);
        const child = await putChain(store, threadId, "child:1", 2, { parentStep: barrier!.id });
        await store.putWrites(threadId, "child:1", child[1]!.id, write("child-done"));
        const grand = await putChain(store, threadId, "child:1|grand:1", 1);
        const keptChild = await everything(threadId, "child:1");
        const keptGrand = await everything(threadId, "child:1|grand:1");
        const paused = makeCheckpoint(threadId, "", barrier!.id, 1, {
          interrupts: [interruptAt("child:1")],
        });
        await store.put(paused, { expectedLatestId: barrier!.id });
        // After the kept latest: more of the same namespaces, a new one, a top-level step.
        const later = makeCheckpoint(threadId, "child:1", child[1]!.id, 1);
        await store.put(later, { expectedLatestId: child[1]!.id });
        await store.putWrites(threadId, "child:1", later.id, write("later-done"));
        await putChain(store, threadId, "child:2", 3);
        const grandLater = makeCheckpoint(threadId, "child:1|grand:1", grand[0]!.id, 0);
        await store.put(grandLater, { expectedLatestId: grand[0]!.id });
        await store.put(makeCheckpoint(threadId, "", paused.id, 2), {
          expectedLatestId: paused.id,
        });

        // later, the 3 of child:2, grandLater and the top-level step.
        expect(await store.rewindThread(threadId, paused.id)).toBe(6);
        expect((await store.getLatest(threadId))?.checkpoint).toEqual(paused);
        expect(await everything(threadId, "child:1")).toEqual(keptChild);
        expect(await everything(threadId, "child:1|grand:1")).toEqual(keptGrand);
        expect(await store.list(threadId, { ns: "child:2" })).toEqual([]);
        expect(await store.getLatest(threadId, "child:2")).toBeUndefined();
        // Each namespace goes on from its kept latest; an emptied one starts afresh.
        await store.put(makeCheckpoint(threadId, "child:1", child[1]!.id, 1), {
          expectedLatestId: child[1]!.id,
        });
        await store.put(makeCheckpoint(threadId, "child:2", null, -1), { expectedLatestId: null });
        // barrier, paused, child:1's three, grand:1's one and child:2's new one.
        expect(await store.rewindThread(threadId, root!.id)).toBe(7);
        for (const ns of ["child:1", "child:2", "child:1|grand:1"]) {
          expect(await store.getLatest(threadId, ns)).toBeUndefined();
        }
      });

      it("a rewind to null deletes every checkpoint of the thread; it has no record until its next checkpoint starts it afresh", async () => {
        const threadId = newThreadId();
        const other = newThreadId();
        const [first] = await putChain(store, threadId, "", 1);
        const paused = makeCheckpoint(threadId, "", first!.id, 0, {
          interrupts: [interruptAt("")],
        });
        await store.put(paused, {
          expectedLatestId: first!.id,
          thread: { graph: "Support", metadata: { user: "u1" } },
        });
        await store.putWrites(threadId, "", first!.id, write("done"));
        await putChain(store, threadId, "child:1", 2);
        await putChain(store, other, "", 2);
        const otherBefore = await everything(other);

        expect(await store.rewindThread(threadId, null)).toBe(4);
        expect(await store.getLatest(threadId)).toBeUndefined();
        expect(await store.getLatest(threadId, "child:1")).toBeUndefined();
        expect(await store.list(threadId)).toEqual([]);
        expect(await store.getThread(threadId)).toBeUndefined();
        const found = await store.searchThreads({ graph: "Support", metadata: { user: "u1" } });
        expect(found.threads.map((t) => t.threadId)).not.toContain(threadId);
        expect(await everything(other)).toEqual(otherBefore);
        expect(await store.rewindThread(threadId, null)).toBe(0);
        expect(await store.rewindThread(newThreadId(), null)).toBe(0);

        const fresh = makeCheckpoint(threadId, "", null, -1);
        await store.put(fresh, { expectedLatestId: null });
        expect(await store.getThread(threadId)).toMatchObject({
          graph: null,
          status: "idle",
          metadata: {},
          latestCheckpointId: fresh.id,
        });
      });

      it("the thread's record follows the new latest at once: status, interrupts and no error; graph, metadata and createdAt stay", async () => {
        const threadId = newThreadId();
        const [first] = await putChain(store, threadId, "", 1);
        const asked = interruptAt("");
        const paused = makeCheckpoint(threadId, "", first!.id, 0, { interrupts: [asked] });
        await store.put(paused, {
          expectedLatestId: first!.id,
          thread: { graph: "Support", metadata: { user: "u1" } },
        });
        const done = makeCheckpoint(threadId, "", paused.id, 1);
        await store.put(done, { expectedLatestId: paused.id });
        const failing = randomUUID();
        await store.claimThread(threadId, claim(done.id, failing));
        await store.releaseThread(threadId, failing, { error: { name: "Error", message: "boom" } });
        const failed = await store.getThread(threadId);
        expect(failed).toMatchObject({ status: "error", latestCheckpointId: done.id });

        expect(await store.rewindThread(threadId, paused.id)).toBe(1);
        const rewound = await store.getThread(threadId);
        expect(rewound).toEqual({
          ...failed,
          status: "interrupted",
          interrupts: [asked],
          error: null,
          updatedAt: expect.any(String),
          latestCheckpointId: paused.id,
        });
        expect(rewound!.updatedAt >= failed!.updatedAt).toBe(true);
        const search = async (status: "interrupted" | "error") =>
          (await store.searchThreads({ status, metadata: { user: "u1" }, graph: "Support" }))
            .threads;
        expect((await search("interrupted")).map((t) => t.threadId)).toContain(threadId);
        expect((await search("error")).map((t) => t.threadId)).not.toContain(threadId);

        expect(await store.rewindThread(threadId, first!.id)).toBe(1);
        expect(await store.getThread(threadId)).toMatchObject({
          status: "idle",
          interrupts: [],
          error: null,
          graph: "Support",
          metadata: { user: "u1" },
          createdAt: failed!.createdAt,
          latestCheckpointId: first!.id,
        });
      });

      it("with runId, that run's pending writes on the kept checkpoints go too, in every namespace; other runs' and unnamed writes stay", async () => {
        const threadId = newThreadId();
        const stopped = randomUUID();
        const earlier = randomUUID();
        const [barrier] = await putChain(store, threadId, "", 1);
        const [child] = await putChain(store, threadId, "child:1", 1);
        const paused = makeCheckpoint(threadId, "", barrier!.id, 0, {
          interrupts: [interruptAt("")],
          metadata: { step: 0, source: "loop", stepOrigin: barrier!.id },
        });
        await store.put(paused, { expectedLatestId: barrier!.id });
        // A paused run's finished sibling, a write naming no run, and what the stopped run
        // stored before it was stopped: on the step's barrier, the latest and a subgraph's.
        await store.putWrites(threadId, "", barrier!.id, write("sibling", earlier));
        await store.putWrites(threadId, "", barrier!.id, write("unnamed"));
        await store.putWrites(threadId, "", barrier!.id, write("resumed", stopped));
        await store.putWrites(threadId, "", paused.id, write("on-latest", stopped));
        await store.putWrites(threadId, "child:1", child!.id, write("in-child", stopped));
        expect((await store.get(threadId, "", barrier!.id))?.pendingWrites).toEqual([
          write("sibling", earlier),
          write("unnamed"),
          write("resumed", stopped),
        ]);
        const record = await store.getThread(threadId);

        // The run stored no checkpoint: a rewind to the latest removes only its writes.
        expect(await store.rewindThread(threadId, paused.id, { runId: stopped })).toBe(0);
        expect((await store.get(threadId, "", barrier!.id))?.pendingWrites).toEqual([
          write("sibling", earlier),
          write("unnamed"),
        ]);
        expect((await store.getLatest(threadId))?.pendingWrites).toEqual([]);
        expect((await store.getLatest(threadId, "child:1"))?.pendingWrites).toEqual([]);
        expect((await store.getLatest(threadId))?.checkpoint).toEqual(paused);
        expect(await store.getThread(threadId)).toEqual({
          ...record,
          updatedAt: expect.any(String),
        });

        // A task's writes replaced by another run belong to that run.
        await store.putWrites(threadId, "", barrier!.id, write("sibling", stopped));
        const copy = newThreadId();
        await store.copyThread(threadId, copy);
        for (const id of [threadId, copy]) {
          expect(await store.rewindThread(id, paused.id, { runId: stopped })).toBe(0);
          expect((await store.get(id, "", barrier!.id))?.pendingWrites).toEqual([write("unnamed")]);
        }
      });

      it("refuses a checkpoint that is not a top-level checkpoint of the thread with RewindTargetNotFoundError, changing nothing", async () => {
        const threadId = newThreadId();
        const other = newThreadId();
        const chain = await putChain(store, threadId, "", 3);
        await store.putWrites(threadId, "", chain[1]!.id, write("t", "r1"));
        const [child] = await putChain(store, threadId, "child:1", 1);
        const [elsewhere] = await putChain(store, other, "", 1);
        const before = {
          top: await everything(threadId),
          child: await everything(threadId, "child:1"),
        };
        const record = await store.getThread(threadId);

        for (const target of [checkpointId(), elsewhere!.id, child!.id]) {
          const error = await store
            .rewindThread(threadId, target, { runId: "r1" })
            .catch((e: unknown) => e);
          expect(error).toBeInstanceOf(RewindTargetNotFoundError);
          expect(error).toMatchObject({
            code: "REWIND_TARGET_NOT_FOUND",
            threadId,
            checkpointId: target,
            message: expect.stringContaining("Nothing was deleted"),
          });
        }
        await expect(store.rewindThread(newThreadId(), chain[0]!.id)).rejects.toBeInstanceOf(
          RewindTargetNotFoundError,
        );
        expect(await everything(threadId)).toEqual(before.top);
        expect(await everything(threadId, "child:1")).toEqual(before.child);
        expect(await store.getThread(threadId)).toEqual(record);
        // Its hold was let go with the rest: a run claims the thread at once.
        await store.claimThread(threadId, claim(chain[2]!.id));
      });

      it("refuses with ThreadBusyError while a run holds the thread, and invalid ids with InvalidIdError, deleting nothing", async () => {
        const threadId = newThreadId();
        const chain = await putChain(store, threadId, "", 3);
        const runId = randomUUID();
        await store.claimThread(threadId, claim(chain[2]!.id, runId));
        for (const target of [chain[0]!.id, null]) {
          const error = await store.rewindThread(threadId, target).catch((e: unknown) => e);
          expect(error).toBeInstanceOf(ThreadBusyError);
        }
        expect(await store.list(threadId)).toHaveLength(3);
        await store.releaseThread(threadId, runId);

        const invalid = (field: string) => expect.objectContaining({ code: "INVALID_ID", field });
        await expect(store.rewindThread("", chain[0]!.id)).rejects.toEqual(invalid("threadId"));
        await expect(store.rewindThread(threadId, "")).rejects.toEqual(invalid("toCheckpointId"));
        await expect(store.rewindThread(threadId, undefined as unknown as null)).rejects.toEqual(
          invalid("toCheckpointId"),
        );
        await expect(
          store.rewindThread(threadId, chain[0]!.id, { runId: "r\u0000" }),
        ).rejects.toEqual(invalid("options.runId"));
        await expect(
          store.putWrites(threadId, "", chain[0]!.id, { ...write("t"), runId: "" }),
        ).rejects.toEqual(invalid("write.runId"));
        expect(await store.list(threadId)).toHaveLength(3);

        expect(await store.rewindThread(threadId, chain[0]!.id)).toBe(2);
        // The rewind's own hold is gone: a run claims the thread at once.
        await store.claimThread(threadId, claim(chain[0]!.id));
      });

      it("every value of the checkpoints kept reads back exactly after a rewind, however it was stored: appended messages, replaced objects, small values", async () => {
        const threadId = newThreadId();
        const step = (parent: Checkpoint | undefined, turn: number): Checkpoint => {
          const messages = (parent?.values.messages as unknown[] | undefined) ?? [];
          const doc = parent?.values.doc as { rev: number; body: string } | undefined;
          return makeCheckpoint(threadId, "", parent?.id ?? null, turn, {
            values: {
              // Appended to, replaced every third turn, unchanged, and small.
              messages: [
                ...messages,
                { role: "ai", content: `message ${turn} ${"x".repeat(300)}` },
              ],
              doc: turn % 3 === 0 || !doc ? { rev: turn, body: "y".repeat(400) } : doc,
              fixed: parent?.values.fixed ?? { note: "z".repeat(300) },
              turn,
            },
          });
        };
        const chain: Checkpoint[] = [];
        for (let turn = 0; turn < 12; turn++) {
          const c = step(chain.at(-1), turn);
          await store.put(c, { expectedLatestId: chain.at(-1)?.id ?? null });
          chain.push(c);
        }
        const kept = chain.slice(0, 7).map((c) => structuredClone(c));

        expect(await store.rewindThread(threadId, chain[6]!.id)).toBe(5);
        expect(await store.list(threadId)).toEqual([...kept].reverse());
        for (const c of kept) expect((await store.get(threadId, "", c.id))?.checkpoint).toEqual(c);
        const head = (await store.getLatest(threadId))!.checkpoint;
        expect(head).toEqual(kept[6]);

        // The thread goes on from what it read, and rewinds again; every step reads exactly.
        const more: Checkpoint[] = [head];
        for (let turn = 7; turn < 11; turn++) {
          const c = step(more.at(-1), turn);
          await store.put(c, { expectedLatestId: more.at(-1)!.id });
          more.push(c);
        }
        expect(await store.rewindThread(threadId, more[2]!.id)).toBe(2);
        const after = step(more[2], 9);
        await store.put(after, { expectedLatestId: more[2]!.id });
        const history = [...kept, more[1]!, more[2]!, after].map((c) => structuredClone(c));
        expect(await store.list(threadId)).toEqual([...history].reverse());
        for (const c of history)
          expect((await store.get(threadId, "", c.id))?.checkpoint).toEqual(c);
      });
    });

    it("a damaged checkpoint row is refused with CorruptCheckpointError naming it; the rest of the thread still reads, and deleteThread works", async () => {
      const threadId = newThreadId();
      const [first, second, third] = await putChain(store, threadId, "", 3);
      const damaged = {
        "{not json": "not valid JSON",
        "[1,2]": "an array",
        null: "null",
        '"text"': "the string",
        [JSON.stringify({ ...second, values: 3 })]: '"values" is the number 3',
        [JSON.stringify({ ...second, id: first!.id })]: `"id" is the string "${first!.id}"`,
        [JSON.stringify({ ...second, next: undefined })]: '"next" is missing',
      };
      const row = { threadId, ns: "", checkpointId: second!.id };
      const corrupt = expect.objectContaining({
        code: "CORRUPT_CHECKPOINT",
        threadId,
        ns: "",
        checkpointId: second!.id,
        taskId: undefined,
      });
      for (const [payload, problem] of Object.entries(damaged)) {
        await damageRow(row, payload);
        const error = await store.get(threadId, "", second!.id).catch((e: Error) => e);
        expect(error).toBeInstanceOf(CorruptCheckpointError);
        expect(error).toEqual(corrupt);
        expect((error as Error).message).toContain(problem);
        expect((error as Error).message).toMatch(/fork the thread from an earlier checkpoint/i);
        await expect(store.list(threadId)).rejects.toEqual(corrupt);
      }
      // What is not damaged still reads, so the thread can be forked from `first`.
      expect((await store.getLatest(threadId))?.checkpoint).toEqual(third);
      expect((await store.get(threadId, "", first!.id))?.checkpoint).toEqual(first);
      expect(await store.list(threadId, { before: second!.id })).toEqual([first]);
      expect(await store.list(threadId, { limit: 1 })).toEqual([third]);

      await damageRow({ threadId, ns: "", checkpointId: third!.id }, "{");
      await expect(store.getLatest(threadId)).rejects.toEqual(
        expect.objectContaining({ code: "CORRUPT_CHECKPOINT", checkpointId: third!.id }),
      );
      // A write still works (it does not read the damaged rows), and so does deleting.
      const fourth = makeCheckpoint(threadId, "", third!.id, 2);
      await store.put(fourth, { expectedLatestId: third!.id });
      expect((await store.getLatest(threadId))?.checkpoint).toEqual(fourth);
      await store.deleteThread(threadId);
      expect(await store.list(threadId)).toEqual([]);
    });

    it("damaged pending writes are refused with CorruptCheckpointError naming the task", async () => {
      const threadId = newThreadId();
      const [checkpoint] = await putChain(store, threadId, "child:1", 1);
      const id = checkpoint!.id;
      const good: PendingWrite = { taskId: "t1", node: "a", writes: [["x", 1]] };
      await store.putWrites(threadId, "child:1", id, good);
      await store.putWrites(threadId, "child:1", id, { taskId: "t2", node: "b", writes: [] });
      const corrupt = expect.objectContaining({
        code: "CORRUPT_CHECKPOINT",
        threadId,
        ns: "child:1",
        checkpointId: id,
        taskId: "t2",
      });
      for (const payload of ["not json", "{}", '{"taskId":"t2","node":"b","writes":[1]}']) {
        await damageRow({ threadId, ns: "child:1", checkpointId: id, taskId: "t2" }, payload);
        await expect(store.getLatest(threadId, "child:1")).rejects.toEqual(corrupt);
        await expect(store.get(threadId, "child:1", id)).rejects.toEqual(corrupt);
      }
      // Storing the task's writes again replaces the damaged row.
      const again: PendingWrite = { taskId: "t2", node: "b", writes: [["y", 2]] };
      await store.putWrites(threadId, "child:1", id, again);
      expect((await store.getLatest(threadId, "child:1"))?.pendingWrites).toEqual([good, again]);
    });

    const unknown = Object.keys(skip).filter((title) => !names.has(title));
    if (unknown.length > 0) {
      throw new Error(
        `${name}: skip names no case of the suite: ${unknown.map((t) => JSON.stringify(t)).join(", ")}.`,
      );
    }
  });
}

/**
 * A valid checkpoint to store in tests of a `Checkpointer`: a fresh id, `values: { step }`,
 * and whatever `overrides` replace.
 *
 * @example
 * await store.put(makeCheckpoint("t1", "", null, 0), { expectedLatestId: null });
 */
export function makeCheckpoint(
  threadId: string,
  ns: string,
  parentId: string | null,
  step: number,
  overrides: Partial<Checkpoint> = {},
): Checkpoint {
  return {
    id: checkpointId(),
    threadId,
    ns,
    parentId,
    snapshot: { status: "active", value: "running", context: { step } },
    values: { step },
    next: ["node"],
    interrupts: [],
    metadata: { step, source: step < 0 ? "input" : "loop", writes: null },
    createdAt: new Date().toISOString(),
    ...overrides,
  };
}

/** Puts `count` checkpoints in a row on (thread, ns) and returns them oldest first. */
async function putChain(
  store: Checkpointer,
  threadId: string,
  ns: string,
  count: number,
  metadata: Record<string, unknown> = {},
): Promise<Checkpoint[]> {
  const chain: Checkpoint[] = [];
  for (let step = -1; chain.length < count; step++) {
    const parentId = chain.at(-1)?.id ?? null;
    const checkpoint = makeCheckpoint(threadId, ns, parentId, step);
    Object.assign(checkpoint.metadata, metadata);
    await store.put(checkpoint, { expectedLatestId: parentId });
    chain.push(checkpoint);
  }
  return chain;
}

/** A pending interrupt of a task in namespace `ns`. */
function interruptAt(ns: string): InterruptRecord {
  return {
    id: randomUUID().replaceAll("-", "").slice(0, 24),
    value: { question: "ok?" },
    node: "review",
    ns,
    step: 0,
    taskId: "task-review",
    timing: "during",
  };
}

/** `bytes` random ASCII letters and digits: text no index can compress. */
function randomText(bytes: number): string {
  return randomBytes(bytes)
    .toString("base64")
    .replace(/[^A-Za-z0-9]/g, "x")
    .slice(0, bytes);
}

/** Asserts one fulfilled and one ConcurrentUpdateError; returns the winner's index. */
function expectOneWinner(settled: PromiseSettledResult<unknown>[]): number {
  const winners = settled.flatMap((result, i) => (result.status === "fulfilled" ? [i] : []));
  expect(winners).toHaveLength(1);
  const loser = settled.find((result) => result.status === "rejected");
  expect(loser?.reason).toBeInstanceOf(ConcurrentUpdateError);
  return winners[0]!;
}
