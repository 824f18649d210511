import { randomUUID } from "node:crypto";
import { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { PGliteCheckpointer } from "../../src/checkpoint/index.js";
import { ConcurrentUpdateError } from "../../src/errors/index.js";
import { describeCheckpointerConformance, makeCheckpoint } from "../../src/testing/index.js";
import { damageParams, damageStatement } from "./damage.js";

// An in-memory instance of our own, so the damaged-row cases can write to its tables.
let conformanceDb: PGlite;
describeCheckpointerConformance(
  "PGliteCheckpointer({ db })",
  () => {
    conformanceDb = new PGlite("memory://");
    return new PGliteCheckpointer({ db: conformanceDb });
  },
  {
    damage: async (row, payload) => {
      await conformanceDb.query(damageStatement(row), damageParams(row, payload));
    },
    cleanup: () => conformanceDb.close(),
  },
);

describe("PGliteCheckpointer", () => {
  it("rejects a table prefix that is not a plain identifier", () => {
    expect(() => new PGliteCheckpointer({ tablePrefix: "x; drop table y" })).toThrow(
      /Table prefix/,
    );
  });

  it("can be closed before first use; later calls say it is closed", async () => {
    const store = new PGliteCheckpointer();
    await store.close();
    await expect(store.getLatest("t")).rejects.toMatchObject({
      code: "CHECKPOINTER_CLOSED",
      store: "PGliteCheckpointer",
    });
  });
});

const checkpoint = (threadId: string, parentId: string | null, step: number) =>
  makeCheckpoint(threadId, "", parentId, step);

describe("PGliteCheckpointer statements", () => {
  // One instance for these cases (each on its own threads): PGlite takes seconds to start.
  let db: PGlite;
  let store: PGliteCheckpointer;
  beforeAll(async () => {
    db = new PGlite("memory://");
    store = new PGliteCheckpointer({ db });
    await store.getLatest("warm-up"); // creates the tables
  });
  afterAll(async () => {
    await store?.close();
    await db?.close();
  });

  /** Counts the calls the store makes on `db` while `fn` runs. */
  async function countCalls(fn: () => Promise<unknown>) {
    const calls = { execProtocol: 0, query: 0, exec: 0, transaction: 0 };
    const spies = (Object.keys(calls) as Array<keyof typeof calls>).map((method) =>
      vi.spyOn(db, method).mockImplementation(function (this: PGlite, ...args: never[]) {
        calls[method]++;
        return (PGlite.prototype[method] as (...a: never[]) => unknown).apply(this, args);
      } as never),
    );
    try {
      await fn();
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
    return calls;
  }

  it("put is one statement, one exchange with PGlite, no transaction; its failure reads the latest once more", async () => {
    const threadId = `one-${randomUUID()}`;
    const first = checkpoint(threadId, null, -1);
    const second = checkpoint(threadId, first.id, 0);
    const third = checkpoint(threadId, second.id, 1);
    await store.put(first, { expectedLatestId: null });
    await store.put(second, { expectedLatestId: first.id }); // both statements are prepared now

    const success = await countCalls(() => store.put(third, { expectedLatestId: second.id }));
    expect(success).toEqual({ execProtocol: 1, query: 0, exec: 0, transaction: 0 });

    const claim = await countCalls(() =>
      store.put(checkpoint(`one-${randomUUID()}`, null, -1), { expectedLatestId: null }),
    );
    expect(claim).toEqual({ execProtocol: 1, query: 0, exec: 0, transaction: 0 });

    let error: unknown;
    const failure = await countCalls(async () => {
      error = await store
        .put(checkpoint(threadId, first.id, 1), { expectedLatestId: first.id })
        .catch((e) => e);
    });
    expect(error).toBeInstanceOf(ConcurrentUpdateError);
    expect((error as Error).message).toContain(third.id);
    expect(failure).toEqual({ execProtocol: 1, query: 1, exec: 0, transaction: 0 });

    // getLatest, get and putWrites are one exchange each too.
    const write = { taskId: "t", node: "a", writes: [["x", 1]] as Array<[string, unknown]> };
    const reads = await countCalls(async () => {
      await store.putWrites(threadId, "", third.id, write);
      expect(await store.getLatest(threadId)).toEqual({
        checkpoint: third,
        pendingWrites: [write],
      });
      expect((await store.get(threadId, "", first.id))?.checkpoint).toEqual(first);
    });
    expect(reads).toEqual({ execProtocol: 3, query: 0, exec: 0, transaction: 0 });
  });

  it("putPause is one statement, one exchange with PGlite, once prepared", async () => {
    const threadId = `pause-${randomUUID()}`;
    const first = checkpoint(threadId, null, -1);
    await store.put(first, { expectedLatestId: null });
    const pause = (taskId: string) => ({
      writes: [
        { taskId, node: "a", writes: [["x", 'a "quoted" \\ value']] as Array<[string, unknown]> },
      ],
      interrupts: [],
    });
    await store.putPause(threadId, "", first.id, pause("t1")); // prepared now
    const calls = await countCalls(() => store.putPause(threadId, "", first.id, pause("t2")));
    expect(calls).toEqual({ execProtocol: 1, query: 0, exec: 0, transaction: 0 });
    const writes = (await store.getLatest(threadId))?.pendingWrites;
    expect(writes).toEqual([pause("t1").writes[0], pause("t2").writes[0]]);
  });

  it("a duplicate id rolls back the head-row change made by the same statement", async () => {
    const threadId = `dup-${randomUUID()}`;
    const first = checkpoint(threadId, null, -1);
    const second = checkpoint(threadId, first.id, 0);
    await store.put(first, { expectedLatestId: null });
    await store.put(second, { expectedLatestId: first.id });

    await expect(
      store.put({ ...first, parentId: second.id }, { expectedLatestId: second.id }),
    ).rejects.toMatchObject({ code: "DUPLICATE_CHECKPOINT" });
    const { rows } = await db.query<{ latest_id: string }>(
      "select latest_id from stateweaver_threads where thread_id = $1",
      [threadId],
    );
    expect(rows).toEqual([{ latest_id: second.id }]);
  });

  it("survives DEALLOCATE ALL and a second store on the same instance", async () => {
    const threadId = `prep-${randomUUID()}`;
    const first = checkpoint(threadId, null, -1);
    await store.put(first, { expectedLatestId: null });
    await db.exec("deallocate all");
    const second = checkpoint(threadId, first.id, 0);
    await store.put(second, { expectedLatestId: first.id });

    // A second store prepares the same statements under the same names.
    const other = new PGliteCheckpointer({ db });
    const third = checkpoint(threadId, second.id, 1);
    await other.put(third, { expectedLatestId: second.id });
    expect((await other.getLatest(threadId))?.checkpoint).toEqual(third);
    expect((await store.list(threadId)).map((c) => c.id)).toEqual([third.id, second.id, first.id]);
    await other.close();
    expect(db.closed).toBe(false);
  });

  it("never runs inside a transaction() someone else has open on the instance", async () => {
    const threadId = `tx-${randomUUID()}`;
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => {
      entered = resolve;
    });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const transaction = db.transaction(async (tx) => {
      await tx.query("select 1");
      entered();
      await gate;
      await tx.rollback();
    });
    await inside;
    const only = checkpoint(threadId, null, -1);
    let stored = false;
    const put = store.put(only, { expectedLatestId: null }).then(() => {
      stored = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(stored).toBe(false);
    release();
    await transaction;
    await put;
    // Had the put run inside that transaction, the rollback would have taken it away.
    expect((await store.getLatest(threadId))?.checkpoint).toEqual(only);
  });
});
