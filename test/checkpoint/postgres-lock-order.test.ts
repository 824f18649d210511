import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { type Checkpoint, PostgresCheckpointer } from "../../src/checkpoint/index.js";
import { StateweaverError, ThreadBusyError } from "../../src/errors/index.js";
import { makeCheckpoint } from "../../src/testing/index.js";
import { dropStoreTables } from "../setup/store-tables.js";

// Runs against a real server only: STATEWEAVER_PG_URL=postgres://postgres@127.0.0.1:5432/test
//
// Calls on one thread over separate connections, raced, and each call's lock order checked
// (see the lock order at the top of src/checkpoint/sql/store.ts). Before that order (main at
// 171d539) every race here met PostgreSQL's `deadlock detected` within its rounds, run after
// run, and the order check found rewind, putPause, a failed run's release and pruneThreads
// holding the claim before the head row, prune and copyThread never taking the head row.
const url = process.env.STATEWEAVER_PG_URL;

/** Tables of this file's own (the database may be shared with other runs). */
const tablePrefix = `sw_lock_${randomUUID().slice(0, 8)}_`;

/** Threads raced side by side, and rounds on each: enough to meet a deadlock every time before the lock order was one. */
const THREADS = 12;
const ROUNDS = 40;
/** A race's whole run: some 10 s on a loaded 2-core machine, with room to spare. */
const RACE_TIMEOUT_MS = 120_000;

describe.skipIf(!url)("PostgreSQL checkpointer lock order", () => {
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  // Two processes, as far as the server can tell: a worker running the thread's runs, and
  // a server (or another worker) rewinding, pruning or deleting it.
  const runner = new PostgresCheckpointer({ connectionString: url!, tablePrefix });
  const keeper = new PostgresCheckpointer({ connectionString: url!, tablePrefix });

  afterAll(async () => {
    await Promise.all([runner.close(), keeper.close()]);
    await dropStoreTables(pool, tablePrefix);
    await pool.end();
  });

  /** A thread of `length` top-level checkpoints (and a subgraph's), oldest first. */
  async function thread(length: number, graph?: string): Promise<Checkpoint[]> {
    const threadId = `lock-${randomUUID()}`;
    const chain: Checkpoint[] = [];
    for (let step = -1; step < length - 1; step++) {
      const c = makeCheckpoint(threadId, "", chain.at(-1)?.id ?? null, step);
      const expectedLatestId = chain.at(-1)?.id ?? null;
      await runner.put(c, { expectedLatestId, ...(graph && { thread: { graph } }) });
      chain.push(c);
    }
    await runner.put(makeCheckpoint(threadId, "child:1", null, 0), { expectedLatestId: null });
    return chain;
  }

  /** One run on the thread: claimed with its read, one checkpoint, released with it. */
  async function run({ threadId, graph }: Raced): Promise<void> {
    const runId = randomUUID();
    const latest = await runner.claimLatest(threadId, { runId, ttlMs: 60_000 });
    const parent = latest?.checkpoint.id ?? null;
    const next = makeCheckpoint(threadId, "", parent, 0);
    await runner.putAndRelease(next, { expectedLatestId: parent, thread: { graph } }, runId);
  }

  /** A run that pauses: its step's writes and interrupt, released with them. */
  async function pausedRun({ threadId }: Raced): Promise<void> {
    const runId = randomUUID();
    const latest = await runner.claimLatest(threadId, { runId, ttlMs: 60_000 });
    if (!latest) return runner.releaseThread(threadId, runId);
    const { id } = latest.checkpoint;
    const write = { taskId: randomUUID(), node: "ask", writes: [], runId };
    await runner.putPause(threadId, "", id, { writes: [write], interrupts: [] }, runId);
  }

  /** A run that fails: its claim goes, leaving the error on the thread's record. */
  async function failedRun({ threadId }: Raced): Promise<void> {
    const runId = randomUUID();
    await runner.claimLatest(threadId, { runId, ttlMs: 60_000 });
    await runner.releaseThread(threadId, runId, { error: { name: "Error", message: "boom" } });
  }

  /** A thread being raced on: its first checkpoints (oldest first) and its graph (one per test). */
  interface Raced {
    threadId: string;
    chain: Checkpoint[];
    graph: string;
  }

  /**
   * An error that tells of a lock cycle the server had to break: the driver's own, or ours
   * (busy) with it as the cause. Other refusals (busy, moved on, no such checkpoint) are the
   * race's fair outcomes.
   */
  const killed = (error: unknown): boolean =>
    !(error instanceof StateweaverError) ||
    ["40P01", "40001"].includes((error.cause as { code?: string } | undefined)?.code ?? "");

  /**
   * Races `a` and `b` on fresh threads, round after round, and returns every error that
   * says the server broke a deadlock between them.
   */
  async function race(
    a: (thread: Raced) => Promise<unknown>,
    b: (thread: Raced) => Promise<unknown>,
  ): Promise<unknown[]> {
    const graph = `race-${randomUUID()}`;
    const raced = await Promise.all(
      Array.from({ length: THREADS }, async () => {
        const chain = await thread(3, graph);
        return { threadId: chain[0]!.threadId, chain, graph };
      }),
    );
    const raw: unknown[] = [];
    await Promise.all(
      raced.map(async (t) => {
        for (let round = 0; round < ROUNDS && raw.length === 0; round++) {
          const settled = await Promise.allSettled([a(t), b(t)]);
          for (const s of settled) {
            if (s.status === "rejected" && killed(s.reason)) raw.push(s.reason);
          }
        }
      }),
    );
    for (const t of raced) await keeper.deleteThread(t.threadId);
    return raw;
  }

  /**
   * The rows of the thread that `call` has locked (or written) by the time it waits for its
   * top-level head row, which another session holds meanwhile, by table: none, if the head
   * row is the first thing it takes. "never waited" if it did not wait for that row at all.
   */
  async function lockedBeforeHead(
    threadId: string,
    call: () => Promise<unknown>,
  ): Promise<string[] | "never waited"> {
    const blocker = await pool.connect();
    const probe = await pool.connect();
    try {
      await blocker.query("begin");
      await blocker.query(
        `select 1 from ${tablePrefix}threads where thread_id = $1 and ns = '' for update`,
        [threadId],
      );
      const { rows } = await blocker.query<{ pid: number }>("select pg_backend_pid() as pid");
      const done = call().then(
        () => undefined,
        (error: unknown) => error,
      );
      let waited = false;
      for (const deadline = Date.now() + 2_000; !waited && Date.now() < deadline; ) {
        const waiting = await probe.query(
          "select 1 from pg_stat_activity where $1 = any(pg_blocking_pids(pid))",
          [rows[0]!.pid],
        );
        waited = (waiting.rowCount ?? 0) > 0;
        if (!waited) await new Promise((resolve) => setTimeout(resolve, 5));
      }
      const locked = waited ? await lockedRows(probe, threadId) : [];
      await blocker.query("rollback");
      const error = await done;
      if (error !== undefined && !(error instanceof StateweaverError)) throw error;
      return waited ? locked : "never waited";
    } finally {
      blocker.release();
      probe.release();
    }
  }

  /** The tables in which some row of the thread (but its top-level head row) is locked by another session. */
  async function lockedRows(probe: pg.PoolClient, threadId: string): Promise<string[]> {
    const t = (name: string) => `${tablePrefix}${name}`;
    const probes: Array<[string, string]> = [
      // A claim deleted, updated or locked; then one inserted and not yet committed.
      ["claims", `select 1 from ${t("claims")} where thread_id = $1 for update nowait`],
      [
        "claims",
        `insert into ${t("claims")} (thread_id, run_id, expires_at) values ($1, 'probe', now())
          on conflict do nothing`,
      ],
      [
        "subgraph heads",
        `select 1 from ${t("threads")} where thread_id = $1 and ns <> '' for update nowait`,
      ],
      ["checkpoints", `select 1 from ${t("checkpoints")} where thread_id = $1 for update nowait`],
      ["writes", `select 1 from ${t("writes")} where thread_id = $1 for update nowait`],
      ["values", `select 1 from ${t("channel_values")} where thread_id = $1 for update nowait`],
    ];
    const locked = new Set<string>();
    await probe.query("begin");
    await probe.query("set local lock_timeout = '200ms'");
    try {
      for (const [table, text] of probes) {
        await probe.query("savepoint probe");
        try {
          await probe.query(text, [threadId]);
        } catch (error) {
          if ((error as { code?: string }).code !== "55P03") throw error;
          locked.add(table);
        }
        await probe.query("rollback to savepoint probe");
      }
    } finally {
      await probe.query("rollback");
    }
    return [...locked];
  }

  // The order itself, call by call: each that locks more than one row of a thread takes the
  // thread's top-level head row before anything else, so two such calls on one thread queue
  // on that row instead of each holding what the other waits for.
  it("every call that locks several rows of a thread locks its head row first", async () => {
    const graph = `lock-order-${randomUUID()}`;
    const claimed = async (threadId: string) => {
      const runId = randomUUID();
      const latest = await runner.claimLatest(threadId, { runId, ttlMs: 60_000 });
      return { runId, latest: latest!.checkpoint };
    };
    const calls: Record<string, (chain: Checkpoint[]) => Promise<() => Promise<unknown>>> = {
      claimThread:
        async ([first, , last]) =>
        () =>
          keeper.claimThread(first!.threadId, {
            runId: randomUUID(),
            expectedLatestId: last!.id,
            ttlMs: 60_000,
            metadata: { by: "probe" },
          }),
      claimLatest:
        async ([first]) =>
        () =>
          keeper.claimLatest(first!.threadId, { runId: randomUUID(), ttlMs: 60_000 }),
      putAndRelease: async ([first]) => {
        const { runId, latest } = await claimed(first!.threadId);
        const next = makeCheckpoint(first!.threadId, "", latest.id, 9);
        return () => keeper.putAndRelease(next, { expectedLatestId: latest.id }, runId);
      },
      putPause: async ([first]) => {
        const { runId, latest } = await claimed(first!.threadId);
        const write = { taskId: randomUUID(), node: "ask", writes: [], runId };
        return () =>
          keeper.putPause(
            first!.threadId,
            "",
            latest.id,
            { writes: [write], interrupts: [] },
            runId,
          );
      },
      "releaseThread with an error": async ([first]) => {
        const { runId } = await claimed(first!.threadId);
        const error = { name: "Error", message: "boom" };
        return () => keeper.releaseThread(first!.threadId, runId, { error });
      },
      rewindThread:
        async ([first]) =>
        () =>
          keeper.rewindThread(first!.threadId, first!.id),
      prune:
        async ([first]) =>
        () =>
          keeper.prune(first!.threadId, { keep: 1 }),
      pruneThreads: async () => () =>
        keeper.pruneThreads({ idleBefore: new Date(Date.now() + 60_000), graph }),
      deleteThread:
        async ([first]) =>
        () =>
          keeper.deleteThread(first!.threadId),
      copyThread:
        async ([first]) =>
        () =>
          keeper.copyThread(first!.threadId, `copy-${randomUUID()}`),
    };
    const locked: Record<string, string[] | "never waited"> = {};
    for (const [name, prepare] of Object.entries(calls)) {
      const chain = await thread(3, graph);
      locked[name] = await lockedBeforeHead(chain[0]!.threadId, await prepare(chain));
      await keeper.deleteThread(chain[0]!.threadId);
    }
    expect(locked).toEqual(Object.fromEntries(Object.keys(calls).map((name) => [name, []])));
  });

  // Should a conflict still end a call (a cycle with a session of the user's own, or an
  // isolation stricter than READ COMMITTED set on the database), the caller hears that the
  // thread is busy, with the driver's error as the cause, and the thread is unchanged.
  it("a call the database ends over a lock conflict is refused as busy, not with the driver's error", async () => {
    const strictUrl = new URL(url!);
    strictUrl.searchParams.set("options", "-c default_transaction_isolation=serializable");
    const strict = new PostgresCheckpointer({ connectionString: strictUrl.href, tablePrefix });
    const [first] = await thread(1);
    const { threadId } = first!;
    const session = await pool.connect();
    try {
      // Serialization failure: the head row changed after the claim's snapshot was taken.
      await session.query("begin");
      await session.query(
        `update ${tablePrefix}threads set updated_at = updated_at where thread_id = $1 and ns = ''`,
        [threadId],
      );
      const claim = strict
        .claimThread(threadId, { runId: randomUUID(), expectedLatestId: first!.id, ttlMs: 60_000 })
        .catch((error: unknown) => error);
      await blockedBy(session);
      await session.query("commit");
      const refused = await claim;
      expect(refused).toBeInstanceOf(ThreadBusyError);
      expect((refused as Error).cause).toMatchObject({ code: "40001" });
      expect((await keeper.getThread(threadId))?.status).toBe("idle");

      // Deadlock: a session holds the claim row, the run's claim takes the head row and
      // waits for the claim row, then the session asks for the head row.
      await session.query("set deadlock_timeout = '10s'").catch(() => {});
      await session.query("begin");
      await session.query(
        `insert into ${tablePrefix}claims (thread_id, run_id, expires_at) values ($1, 'gone', now())`,
        [threadId],
      );
      const claimed = keeper
        .claimLatest(threadId, { runId: randomUUID(), ttlMs: 60_000 })
        .catch((error: unknown) => error);
      await blockedBy(session);
      await session.query(
        `select 1 from ${tablePrefix}threads where thread_id = $1 and ns = '' for update`,
        [threadId],
      );
      await session.query("rollback");
      const killed = await claimed;
      expect(killed).toBeInstanceOf(ThreadBusyError);
      expect((killed as Error).cause).toMatchObject({ code: "40P01" });
      expect((await keeper.getThread(threadId))?.status).toBe("idle");
    } finally {
      await session.query("rollback").catch(() => {});
      session.release();
      await keeper.deleteThread(threadId);
      await strict.close();
    }
  });

  /** Resolves once the server reports a session waiting on a lock that `holder` holds. */
  async function blockedBy(holder: pg.PoolClient): Promise<void> {
    const { rows } = await holder.query<{ pid: number }>("select pg_backend_pid() as pid");
    for (const deadline = Date.now() + 10_000; Date.now() < deadline; ) {
      const waiting = await pool.query(
        "select 1 from pg_stat_activity where $1 = any(pg_blocking_pids(pid))",
        [rows[0]!.pid],
      );
      if (waiting.rowCount) return;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    throw new Error("no session ever waited on the holder's lock");
  }

  const rawCodes = (errors: unknown[]) =>
    errors.map((e) => {
      const { code, cause } = e as { code?: string; cause?: { code?: string } };
      return cause?.code ?? code ?? String(e);
    });

  it(
    "a run's claim racing a rewind of its thread is refused as busy, never killed as a deadlock",
    async () => {
      const raw = await race(run, ({ threadId, chain }) =>
        keeper.rewindThread(threadId, chain[0]!.id),
      );
      expect(rawCodes(raw)).toEqual([]);
    },
    RACE_TIMEOUT_MS,
  );

  it(
    "a paused run's writes and release racing a rewind are refused as busy, never killed as a deadlock",
    async () => {
      const raw = await race(pausedRun, ({ threadId, chain }) =>
        keeper.rewindThread(threadId, chain[0]!.id),
      );
      expect(rawCodes(raw)).toEqual([]);
    },
    RACE_TIMEOUT_MS,
  );

  it(
    "a failed run's release racing the next run's claim never deadlocks",
    async () => {
      const raw = await race(failedRun, run);
      expect(rawCodes(raw)).toEqual([]);
    },
    RACE_TIMEOUT_MS,
  );

  it(
    "two claims that merge their run's metadata into the thread never deadlock",
    async () => {
      const claim = async ({ threadId }: Raced) => {
        const runId = randomUUID();
        const latest = (await runner.getLatest(threadId))?.checkpoint.id ?? null;
        const store = Math.random() < 0.5 ? runner : keeper;
        await store.claimThread(threadId, {
          runId,
          expectedLatestId: latest,
          ttlMs: 60_000,
          metadata: { runId },
        });
        await store.releaseThread(threadId, runId);
      };
      const raw = await race(claim, claim);
      expect(rawCodes(raw)).toEqual([]);
    },
    RACE_TIMEOUT_MS,
  );

  it(
    "a run's claim racing a prune of idle threads is refused as busy, never killed as a deadlock",
    async () => {
      const raw = await race(run, ({ graph }) =>
        keeper.pruneThreads({ idleBefore: new Date(Date.now() + 60_000), graph }),
      );
      expect(rawCodes(raw)).toEqual([]);
    },
    RACE_TIMEOUT_MS,
  );
});
