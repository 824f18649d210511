import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { type Checkpoint, PostgresCheckpointer } from "../../src/checkpoint/index.js";
import { ConcurrentUpdateError } from "../../src/errors/index.js";
import type { ConformanceRow } from "../../src/testing/checkpointer-conformance.js";
import { describeCheckpointerConformance, makeCheckpoint } from "../../src/testing/index.js";
import { dropStoreTables } from "../setup/store-tables.js";
import { damageParams, damageStatement } from "./damage.js";

// Runs against a real server only: STATEWEAVER_PG_URL=postgres://postgres@127.0.0.1:5432/test
const url = process.env.STATEWEAVER_PG_URL;

const checkpoint = (threadId: string, parentId: string | null, step: number) =>
  makeCheckpoint(threadId, "", parentId, step);

/** A table prefix nobody else uses, so the schema starts from nothing. */
function freshPrefix(): string {
  return `sw_test_${randomUUID().slice(0, 8)}_`;
}

// Tables of this run's own: the database may be shared with other branches' runs, whose
// schema can be newer than this one's.
const tablePrefix = freshPrefix();

describe.skipIf(!url)("PostgresCheckpointer", () => {
  const sharedPool = new pg.Pool({ connectionString: url, max: 4 });
  // Both stores use the same tables, so the shared pool can damage their rows.
  const damage = async (row: ConformanceRow, payload: string) => {
    await sharedPool.query(damageStatement(row, tablePrefix), damageParams(row, payload));
  };
  describeCheckpointerConformance(
    "PostgresCheckpointer({ connectionString })",
    () => new PostgresCheckpointer({ connectionString: url!, tablePrefix }),
    { damage },
  );

  describeCheckpointerConformance(
    "PostgresCheckpointer({ pool })",
    () => new PostgresCheckpointer({ pool: sharedPool, tablePrefix }),
    {
      damage,
      cleanup: async () => {
        // close() must have left the caller's pool usable.
        await sharedPool.query("select 1");
      },
    },
  );

  const prefixes: string[] = [tablePrefix];
  afterAll(async () => {
    for (const prefix of prefixes) {
      await dropStoreTables(sharedPool, prefix);
    }
    await sharedPool.end();
  });

  it("two stores on two pools racing the same put: exactly one wins each time", async () => {
    const a = new PostgresCheckpointer({ connectionString: url!, tablePrefix });
    const b = new PostgresCheckpointer({ connectionString: url!, tablePrefix });
    try {
      for (let round = 0; round < 10; round++) {
        const threadId = `race-${randomUUID()}`;
        const firsts = [checkpoint(threadId, null, -1), checkpoint(threadId, null, -1)];
        const first = await Promise.allSettled([
          a.put(firsts[0]!, { expectedLatestId: null }),
          b.put(firsts[1]!, { expectedLatestId: null }),
        ]);
        const head = firsts[winner(first)]!;

        const nexts = [checkpoint(threadId, head.id, 0), checkpoint(threadId, head.id, 0)];
        const next = await Promise.allSettled([
          a.put(nexts[0]!, { expectedLatestId: head.id }),
          b.put(nexts[1]!, { expectedLatestId: head.id }),
        ]);
        const latest = nexts[winner(next)]!;

        expect((await b.getLatest(threadId))?.checkpoint).toEqual(latest);
        expect((await a.list(threadId)).map((c) => c.id)).toEqual([latest.id, head.id]);
        await a.deleteThread(threadId);
      }
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it("a rewind leaves no row of what it deleted: channel versions, writes and subgraph heads go with their checkpoints", async () => {
    const store = new PostgresCheckpointer({ pool: sharedPool, tablePrefix });
    // Another process's store: it remembers the checkpoint it read last.
    const other = new PostgresCheckpointer({ connectionString: url!, tablePrefix });
    const threadId = `rewind-rows-${randomUUID()}`;
    const message = (n: number) => ({ role: "ai", content: `message ${n} ${"x".repeat(300)}` });
    const step = (parent: Checkpoint | undefined, n: number) =>
      makeCheckpoint(threadId, "", parent?.id ?? null, n, {
        values: { messages: [...((parent?.values.messages as unknown[]) ?? []), message(n)] },
      });
    try {
      const chain: Checkpoint[] = [];
      for (let n = 0; n < 6; n++) {
        const c = step(chain.at(-1), n);
        await store.put(c, { expectedLatestId: chain.at(-1)?.id ?? null });
        chain.push(c);
      }
      await store.put(makeCheckpoint(threadId, "child:1", null, -1), { expectedLatestId: null });
      await store.putWrites(threadId, "", chain[5]!.id, { taskId: "t", node: "a", writes: [] });
      const kept = chain[2]!;
      expect((await other.getLatest(threadId))?.checkpoint).toEqual(chain[5]);
      await other.get(threadId, "", kept.id);

      expect(await store.rewindThread(threadId, kept.id)).toBe(4);
      const count = async (table: string, where = "") =>
        (
          await sharedPool.query(
            `select count(*)::int as n from ${tablePrefix}${table} t where t.thread_id = $1 ${where}`,
            [threadId],
          )
        ).rows[0].n;
      const orphan = `and not exists (select 1 from ${tablePrefix}checkpoints c
        where c.thread_id = t.thread_id and c.ns = t.ns and c.id = t.version)`;
      expect(await count("channel_values", orphan)).toBe(0);
      expect(await count("channel_values")).toBe(3);
      expect(await count("writes")).toBe(0);
      expect(await count("threads")).toBe(1);

      // The other store's next checkpoint after the kept one stores what it appended, and
      // reads back exactly from either store.
      const next = step(kept, 6);
      await other.put(next, { expectedLatestId: kept.id });
      expect((await store.getLatest(threadId))?.checkpoint).toEqual(next);
      expect(await store.list(threadId)).toEqual([next, ...chain.slice(0, 3).reverse()]);
      expect(await count("channel_values")).toBe(4);
    } finally {
      await store.deleteThread(threadId);
      await Promise.all([store.close(), other.close()]);
    }
  });

  /** Resolves once the server reports a session waiting on a lock `blocker` holds. */
  async function blockedBy(blocker: pg.PoolClient): Promise<void> {
    const { rows } = await blocker.query<{ pid: number }>("select pg_backend_pid() as pid");
    const pid = rows[0]!.pid;
    for (const deadline = Date.now() + 10_000; Date.now() < deadline; ) {
      const waiting = await sharedPool.query(
        "select 1 from pg_stat_activity where $1 = any(pg_blocking_pids(pid))",
        [pid],
      );
      if (waiting.rowCount) return;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    throw new Error("no session ever waited on the blocker's lock");
  }

  // A put that finds the head row locked by another writer waits for it, then decides on
  // what that writer left (READ COMMITTED re-checks the UPDATE's WHERE on the new row
  // version; ON CONFLICT DO NOTHING sees the committed row). Step by step, on one server.
  it("a put waiting on another writer's head row decides on what that writer committed", async () => {
    const store = new PostgresCheckpointer({ connectionString: url!, tablePrefix });
    const threads = `${tablePrefix}threads`;
    try {
      for (const outcome of ["commit", "rollback"] as const) {
        // Later puts: another session moves the head away (or tries to) while ours waits.
        const threadId = `lock-${randomUUID()}`;
        const head = checkpoint(threadId, null, -1);
        await store.put(head, { expectedLatestId: null });
        const blocker = await sharedPool.connect();
        try {
          await blocker.query("begin");
          await blocker.query(`update ${threads} set latest_id = 'moved' where thread_id = $1`, [
            threadId,
          ]);
          const next = checkpoint(threadId, head.id, 0);
          const put = store.put(next, { expectedLatestId: head.id }).then(
            () => "stored",
            (error: unknown) => error,
          );
          await blockedBy(blocker);
          await blocker.query(outcome);
          const result = await put;
          if (outcome === "commit") {
            expect(result).toBeInstanceOf(ConcurrentUpdateError);
            expect((result as Error).message).toContain("moved");
            expect(await store.get(threadId, "", next.id)).toBeUndefined();
          } else {
            expect(result).toBe("stored");
            expect((await store.getLatest(threadId))?.checkpoint).toEqual(next);
          }
        } finally {
          blocker.release();
        }
        await store.deleteThread(threadId);

        // A first put: another session claims the thread (or tries to) while ours waits.
        const fresh = `lock-${randomUUID()}`;
        const claimer = await sharedPool.connect();
        try {
          await claimer.query("begin");
          await claimer.query(
            `insert into ${threads} (thread_id, ns, latest_id) values ($1, '', 'theirs')`,
            [fresh],
          );
          const first = checkpoint(fresh, null, -1);
          const put = store.put(first, { expectedLatestId: null }).then(
            () => "stored",
            (error: unknown) => error,
          );
          await blockedBy(claimer);
          await claimer.query(outcome);
          const result = await put;
          if (outcome === "commit") {
            expect(result).toBeInstanceOf(ConcurrentUpdateError);
            expect((result as Error).message).toContain("theirs");
            expect(await store.list(fresh)).toEqual([]);
          } else {
            expect(result).toBe("stored");
            expect((await store.getLatest(fresh))?.checkpoint).toEqual(first);
          }
        } finally {
          claimer.release();
        }
        await store.deleteThread(fresh);
      }
    } finally {
      await store.close();
    }
  });

  // A run's last checkpoint and its release commit together (putAndRelease). A claim that
  // started before that commit waits for it, then must see the checkpoint, not its own
  // older snapshot in which the thread was still at the latest it expects.
  it("a claim waiting on a run's last checkpoint and release is refused: it sees that checkpoint", async () => {
    const store = new PostgresCheckpointer({ connectionString: url!, tablePrefix });
    const threadId = `lock-${randomUUID()}`;
    const runner = await sharedPool.connect();
    try {
      const head = checkpoint(threadId, null, -1);
      await store.put(head, { expectedLatestId: null });
      const holder = randomUUID();
      await store.claimThread(threadId, {
        runId: holder,
        expectedLatestId: head.id,
        ttlMs: 60_000,
      });
      // The holder's last write and release, as one transaction still open.
      await runner.query("begin");
      await runner.query(
        `update ${tablePrefix}threads set latest_id = 'last' where thread_id = $1 and ns = ''`,
        [threadId],
      );
      await runner.query(`delete from ${tablePrefix}claims where thread_id = $1 and run_id = $2`, [
        threadId,
        holder,
      ]);
      const claim = store
        .claimThread(threadId, { runId: randomUUID(), expectedLatestId: head.id, ttlMs: 60_000 })
        .then(
          () => "claimed",
          (error: unknown) => error,
        );
      await blockedBy(runner);
      await runner.query("commit");
      const result = await claim;
      expect(result).toBeInstanceOf(ConcurrentUpdateError);
      expect((result as Error).message).toContain("last");
    } finally {
      runner.release();
      await store.deleteThread(threadId);
      await store.close();
    }
  });

  // The same race for a claim that reads its thread (claimLatest): the checkpoint committed
  // with the release is not in the waiting statement's snapshot, yet it is what the claim
  // must hold the thread at and hand back, never the one before it, nor "no checkpoint".
  it("a claim that reads its thread in one call, waiting on a run's last checkpoint and release, returns that checkpoint", async () => {
    const store = new PostgresCheckpointer({ connectionString: url!, tablePrefix });
    const threadId = `lock-latest-${randomUUID()}`;
    const runner = await sharedPool.connect();
    // The holder's store, on one connection, so its last write can stay uncommitted.
    const oneConnection = {
      query: (text: string, params?: unknown[]) => runner.query(text, params),
      connect: async () => ({ query: runner.query.bind(runner), release: () => {} }),
    };
    const holderStore = new PostgresCheckpointer({
      pool: oneConnection as unknown as pg.Pool,
      tablePrefix,
    });
    try {
      const head = checkpoint(threadId, null, -1);
      await store.put(head, { expectedLatestId: null });
      const holder = randomUUID();
      expect(await holderStore.claimLatest(threadId, { runId: holder, ttlMs: 60_000 })).toEqual({
        checkpoint: head,
        pendingWrites: [],
      });
      // The holder's last write and release, as one transaction still open.
      await runner.query("begin");
      const last = checkpoint(threadId, head.id, 0);
      await holderStore.putAndRelease(last, { expectedLatestId: head.id }, holder);
      const claim = store.claimLatest(threadId, { runId: randomUUID(), ttlMs: 60_000 }).then(
        (tuple) => tuple,
        (error: unknown) => error,
      );
      await blockedBy(runner);
      await runner.query("commit");
      expect(await claim).toEqual({ checkpoint: last, pendingWrites: [] });
      expect((await store.getThread(threadId))?.status).toBe("busy");
    } finally {
      await runner.query("rollback").catch(() => {});
      runner.release();
      await store.deleteThread(threadId);
      await store.close();
    }
  });

  it("a duplicate id rolls back the head-row change made by the same statement", async () => {
    const store = new PostgresCheckpointer({ pool: sharedPool, tablePrefix });
    const threadId = `dup-${randomUUID()}`;
    const first = checkpoint(threadId, null, -1);
    const second = checkpoint(threadId, first.id, 0);
    await store.put(first, { expectedLatestId: null });
    await store.put(second, { expectedLatestId: first.id });

    await expect(
      store.put({ ...first, parentId: second.id }, { expectedLatestId: second.id }),
    ).rejects.toMatchObject({ code: "DUPLICATE_CHECKPOINT" });
    const { rows } = await sharedPool.query(
      `select latest_id from ${tablePrefix}threads where thread_id = $1`,
      [threadId],
    );
    expect(rows).toEqual([{ latest_id: second.id }]);
    await store.deleteThread(threadId);
  });

  it("creates the schema once when several fresh stores start at the same moment", async () => {
    const prefix = freshPrefix();
    prefixes.push(prefix);
    const stores = [0, 1, 2, 3].map(
      () => new PostgresCheckpointer({ connectionString: url!, tablePrefix: prefix }),
    );
    try {
      // Each store's first call creates or migrates the tables on its own pool.
      const threadId = `init-${randomUUID()}`;
      expect(await Promise.all(stores.map((s) => s.getLatest(threadId)))).toEqual([
        undefined,
        undefined,
        undefined,
        undefined,
      ]);
      const { rows } = await sharedPool.query(`select version from ${prefix}schema_version`);
      expect(rows).toEqual([1, 2, 3, 4, 5, 6, 7].map((version) => ({ version })));

      const only = checkpoint(threadId, null, -1);
      await stores[0]!.put(only, { expectedLatestId: null });
      expect((await stores[3]!.getLatest(threadId))?.checkpoint).toEqual(only);
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  });

  it("refuses tables written by a newer schema version, saying what to do", async () => {
    const prefix = freshPrefix();
    prefixes.push(prefix);
    const store = new PostgresCheckpointer({ pool: sharedPool, tablePrefix: prefix });
    await store.getLatest("x");
    await sharedPool.query(`insert into ${prefix}schema_version (version) values (999)`);

    const newcomer = new PostgresCheckpointer({ pool: sharedPool, tablePrefix: prefix });
    await expect(newcomer.getLatest("x")).rejects.toMatchObject({
      code: "SCHEMA_TOO_NEW",
      tablePrefix: prefix,
      version: 999,
      knownVersion: 7,
      message: expect.stringContaining("Upgrade stateweaver"),
    });
  });

  it("reports an unreachable server on use, and retries on the next call", async () => {
    const store = new PostgresCheckpointer({
      connectionString: "postgres://postgres@127.0.0.1:1/none",
    });
    await expect(store.getLatest("x")).rejects.toThrow();
    await expect(store.getLatest("x")).rejects.toThrow();
    await store.close();
  });
});

function winner(settled: PromiseSettledResult<void>[]): number {
  const fulfilled = settled.flatMap((result, i) => (result.status === "fulfilled" ? [i] : []));
  expect(fulfilled).toHaveLength(1);
  const rejected = settled.find((result) => result.status === "rejected");
  expect(rejected?.reason).toBeInstanceOf(ConcurrentUpdateError);
  return fulfilled[0]!;
}
