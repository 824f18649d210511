/**
 * Crons, as LangGraph's API has them, through the official SDK client: runs started on a
 * schedule (six fields here, seconds first, so the tests wait seconds), on a thread of
 * their own each time or on one thread, kept beside the threads, fired once per due time
 * however many servers share the database.
 */
import { randomUUID } from "node:crypto";
import { Client } from "@langchain/langgraph-sdk";
import pg from "pg";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { MemoryCheckpointer, PostgresCheckpointer } from "../../src/checkpoint/index.js";
import { END, Graph, START } from "../../src/index.js";
import { PostgresRunQueue } from "../../src/runs/index.js";
import { createApp, startWorker } from "../../src/server/index.js";
import { dropRunQueueTables } from "../setup/store-tables.js";
import { type RunningServer, startServer, tempDataDir } from "./fixtures/server.js";

/** One step that counts the runs of its thread. */
const tickGraph = () =>
  new Graph<{ n: number }>({ name: "tick" })
    .addNode("tick", (s) => ({ n: (s.n ?? 0) + 1 }))
    .addEdge(START, "tick")
    .addEdge("tick", END)
    .compile();

const EVERY_SECOND = "* * * * * *";
const servers: RunningServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.stop();
});

async function serve(options: Parameters<typeof startServer>[0] = {}) {
  const running = await startServer({ graphs: { tick: tickGraph() }, ...options });
  servers.push(running);
  return { running, client: new Client({ apiUrl: running.url }) };
}

const until = async (check: () => Promise<boolean>, ms = 8000) => {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 100));
  }
};

describe("crons", () => {
  it("a stateless cron starts a run on a new thread at each due time, keeping the threads when asked", async () => {
    const { client } = await serve();
    const cron = await client.crons.create("tick", {
      schedule: EVERY_SECOND,
      input: { n: 10 },
      metadata: { job: "nightly" },
      onRunCompleted: "keep",
    });
    expect(cron).toMatchObject({
      assistant_id: "tick",
      thread_id: null,
      schedule: EVERY_SECOND,
      metadata: { job: "nightly" },
      enabled: true,
    });
    expect(Date.parse(cron.next_run_date!)).toBeGreaterThan(Date.now() - 1000);
    const threads = () => client.threads.search({ metadata: { cron_id: cron.cron_id } });
    await until(async () => (await threads()).length >= 2);
    for (const thread of await threads()) {
      await until(async () => (await client.threads.get(thread.thread_id)).status === "idle");
      expect((await client.threads.getState(thread.thread_id)).values).toEqual({ n: 11 });
    }
    await client.crons.delete(cron.cron_id);
    expect(await client.crons.search()).toEqual([]);
  });

  it("a stateless cron's threads are deleted after their runs by default", async () => {
    const { client } = await serve();
    const cron = await client.crons.create("tick", { schedule: EVERY_SECOND, input: { n: 1 } });
    // The first firing's thread comes and goes.
    await new Promise((r) => setTimeout(r, 2500));
    await client.crons.update(cron.cron_id, { enabled: false });
    await new Promise((r) => setTimeout(r, 500));
    expect(await client.threads.search({ metadata: { cron_id: cron.cron_id } })).toEqual([]);
  });

  it("a thread's cron runs on that thread; disabled it stops, enabled it goes on", async () => {
    const { client } = await serve();
    const thread = await client.threads.create();
    const cron = await client.crons.createForThread(thread.thread_id, "tick", {
      schedule: EVERY_SECOND,
      input: {},
      multitaskStrategy: "enqueue",
    });
    expect(cron.thread_id).toBe(thread.thread_id);
    const n = async () =>
      ((await client.threads.getState(thread.thread_id)).values as { n?: number }).n ?? 0;
    await until(async () => (await n()) >= 2);
    const off = await client.crons.update(cron.cron_id, { enabled: false });
    expect(off).toMatchObject({ enabled: false, next_run_date: null });
    await until(async () => (await client.threads.get(thread.thread_id)).status === "idle");
    const stopped = await n();
    await new Promise((r) => setTimeout(r, 2200));
    expect(await n()).toBe(stopped);
    await client.crons.update(cron.cron_id, { enabled: true });
    await until(async () => (await n()) > stopped);
    expect(await client.crons.count({ threadId: thread.thread_id })).toBe(1);
    expect(await client.crons.count({ threadId: randomUUID() })).toBe(0);
  });

  it("searches, counts, sorts and pages crons by assistant, thread, enabled and metadata", async () => {
    const { client } = await serve();
    const made = [];
    for (const job of ["a", "b", "c"])
      made.push(
        await client.crons.create("tick", { schedule: "0 9 * * *", input: {}, metadata: { job } }),
      );
    expect((await client.crons.search({ metadata: { job: "b" } })).map((c) => c.cron_id)).toEqual([
      made[1]!.cron_id,
    ]);
    expect(await client.crons.count({ assistantId: "tick" })).toBe(3);
    const asc = await client.crons.search({
      sortBy: "created_at",
      sortOrder: "asc",
      limit: 2,
      offset: 1,
    });
    expect(asc.map((c) => c.cron_id)).toEqual([made[1]!.cron_id, made[2]!.cron_id]);
    await client.crons.update(made[0]!.cron_id, { enabled: false });
    expect(await client.crons.search({ enabled: false })).toHaveLength(1);
    // "0 9 * * *" in New York is 9:00 there, whatever the server's zone.
    const ny = await client.crons.create("tick", {
      schedule: "0 9 * * *",
      timezone: "America/New_York",
      input: {},
    });
    const at = new Date(ny.next_run_date!);
    expect(
      new Intl.DateTimeFormat("en-US", {
        timeZone: "America/New_York",
        hour: "numeric",
        hour12: false,
      }).format(at),
    ).toBe("09");
  });

  it("refuses a schedule or time zone it cannot read, an unknown assistant or thread, and an unknown cron, saying what to send", async () => {
    const { running } = await serve();
    const post = (path: string, body: unknown, method = "POST") =>
      fetch(`${running.url}${path}`, {
        method,
        headers: { "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify(body),
      });
    let res = await post("/runs/crons", { assistant_id: "tick", schedule: "every day", input: {} });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      error: { code: "INVALID_SCHEDULE", fields: [{ path: "schedule" }] },
    });
    res = await post("/runs/crons", {
      assistant_id: "tick",
      schedule: "0 9 * * *",
      timezone: "Mars/Base",
      input: {},
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { fields: [{ path: "timezone" }] } });
    // Each run of a stateless cron starts a new thread: nothing to continue without input.
    res = await post("/runs/crons", { assistant_id: "tick", schedule: "0 9 * * *" });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { fields: [{ path: "input" }] } });
    res = await post("/runs/crons", { assistant_id: "nope", schedule: "0 9 * * *", input: {} });
    expect(res.status).toBe(404);
    res = await post(`/threads/${randomUUID()}/runs/crons`, {
      assistant_id: "tick",
      schedule: "0 9 * * *",
    });
    expect(res.status).toBe(404);
    res = await post(`/runs/crons/${randomUUID()}`, { enabled: false }, "PATCH");
    expect(res.status).toBe(404);
    res = await post("/runs/crons", {
      assistant_id: "tick",
      schedule: "0 9 * * *",
      end_time: "soon",
      input: {},
    });
    expect(res.status).toBe(400);
  });

  it("keeps crons in the PGlite directory: a restarted server still has them and fires them", async () => {
    const dir = await tempDataDir();
    try {
      let { running, client } = await serve({ checkpointer: dir.open() });
      const cron = await client.crons.create("tick", {
        schedule: EVERY_SECOND,
        input: { n: 0 },
        onRunCompleted: "keep",
        enabled: false,
      });
      await running.stop();
      servers.splice(servers.indexOf(running), 1);
      await running.checkpointer.close?.();
      ({ running, client } = await serve({ checkpointer: dir.open() }));
      expect((await client.crons.search()).map((c) => c.cron_id)).toEqual([cron.cron_id]);
      await client.crons.update(cron.cron_id, { enabled: true });
      await until(
        async () =>
          (await client.threads.search({ metadata: { cron_id: cron.cron_id } })).length > 0,
      );
      await running.stop();
      servers.splice(servers.indexOf(running), 1);
      await running.checkpointer.close?.();
    } finally {
      await dir.dispose();
    }
  });
});

const pgUrl = process.env.STATEWEAVER_PG_URL;
const tablePrefix = `sw_crons_${randomUUID().slice(0, 8)}_`;
afterAll(async () => {
  if (!pgUrl) return;
  const pool = new pg.Pool({ connectionString: pgUrl });
  const { rows } = await pool.query("select tablename from pg_tables where tablename like $1", [
    `${tablePrefix}%`,
  ]);
  for (const { tablename } of rows) await pool.query(`drop table if exists "${tablename}" cascade`);
  await pool.query(`drop function if exists ${tablePrefix}notify_thread_change()`);
  await dropRunQueueTables(pool, tablePrefix);
  await pool.end();
});

describe.skipIf(!pgUrl)("crons on PostgreSQL", () => {
  it("servers that run nothing fire each due time once onto the run queue, where workers run it", async () => {
    const open = () => ({
      checkpointer: new PostgresCheckpointer({ connectionString: pgUrl!, tablePrefix }),
      queue: PostgresRunQueue.open({ connectionString: pgUrl!, tablePrefix }),
    });
    const [a, b] = await Promise.all(
      [open(), open()].map(async ({ checkpointer, queue }) =>
        startServer({
          graphs: { tick: tickGraph() },
          checkpointer,
          queue: await queue,
          concurrency: 0,
        }),
      ),
    );
    const workers = await Promise.all(
      [open(), open()].map(async ({ checkpointer, queue }) =>
        startWorker({ graphs: { tick: tickGraph() }, checkpointer, queue: await queue }),
      ),
    );
    try {
      // Ticked by hand below, both servers at the same due time.
      for (const s of [a!, b!]) await s.server.context.crons.stop();
      const client = new Client({ apiUrl: a!.url });
      const thread = await client.threads.create();
      const cron = await client.crons.createForThread(thread.thread_id, "tick", {
        schedule: EVERY_SECOND,
        input: {},
        multitaskStrategy: "enqueue",
      });
      const due = new Date(Date.parse(cron.next_run_date!) + 10);
      await Promise.all([a!, b!].map((s) => s.server.context.crons.tick(due)));

      const other = new Client({ apiUrl: b!.url });
      const runs = await other.runs.list(thread.thread_id);
      expect(runs).toHaveLength(1);
      expect(runs[0]!.metadata).toMatchObject({ cron_id: cron.cron_id });
      expect(await other.runs.join(thread.thread_id, runs[0]!.run_id)).toEqual({ n: 1 });
      // Moved on past the due time, once.
      const [moved] = await other.crons.search({ threadId: thread.thread_id });
      expect(Date.parse(moved!.next_run_date!)).toBeGreaterThan(due.getTime());
    } finally {
      for (const w of workers) await w.close();
      for (const s of [a!, b!]) {
        await s.stop();
        await s.checkpointer.close?.();
      }
    }
  });
});

it("an app never closed by createServer stops its cron tick once its runs are closed", async () => {
  const { context } = createApp({
    graphs: { tick: tickGraph() },
    checkpointer: new MemoryCheckpointer(),
  });
  await context.runs.close();
  await context.crons.tick();
  await context.crons.stop();
});

it("makes no crons table in a database until a cron is made there, however often servers look", async () => {
  const dir = await tempDataDir();
  const checkpointer = dir.open();
  try {
    const { context } = createApp({ graphs: { tick: tickGraph() }, checkpointer, concurrency: 0 });
    await context.crons.stop();
    await context.crons.tick();
    const driver = await checkpointer.sharedDriver();
    const made = async () =>
      (await driver.query("select to_regclass('stateweaver_crons') is not null as made")).rows[0]!
        .made;
    expect(await made()).toBe(false);
    await context.crons.create(
      { assistant_id: "tick", thread_id: null, schedule: "0 9 * * *", payload: {} },
      undefined,
    );
    expect(await made()).toBe(true);
    await context.runs.close();
  } finally {
    await checkpointer.close();
    await dir.dispose();
  }
});

it("stops its cron tick quietly when its store is closed before the server", async () => {
  const dir = await tempDataDir();
  const checkpointer = dir.open();
  try {
    const { context } = createApp({ graphs: { tick: tickGraph() }, checkpointer, concurrency: 0 });
    await context.crons.create(
      { assistant_id: "tick", thread_id: null, schedule: "0 9 * * *", payload: {} },
      undefined,
    );
    await checkpointer.close();
    // Ticks meet the closed store; none may print (the test setup fails a test that does).
    await new Promise((r) => setTimeout(r, 1500));
    await context.runs.close();
  } finally {
    await dir.dispose();
  }
});
