import { randomUUID } from "node:crypto";
import { Client } from "@langchain/langgraph-sdk";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresCheckpointer } from "../../src/checkpoint/index.js";
import { PostgresRunQueue } from "../../src/runs/index.js";
import { factoryGraph, startWorker } from "../../src/server/index.js";
import { dropRunQueueTables } from "../setup/store-tables.js";
import { stepFactory } from "./fixtures/cli-graphs.js";
import { type RunningServer, startServer, testGraphs } from "./fixtures/server.js";

// Runs against a real server only: STATEWEAVER_PG_URL=postgres://postgres@127.0.0.1:5432/test
const url = process.env.STATEWEAVER_PG_URL;
// Tables of this run's own, so other branches' runs on the same database do not meet ours.
const tablePrefix = `sw_srv_${randomUUID().slice(0, 8)}_`;

describe.skipIf(!url)("the server on PostgreSQL", () => {
  let running: RunningServer;
  let store: PostgresCheckpointer;
  beforeAll(async () => {
    store = new PostgresCheckpointer({ connectionString: url!, tablePrefix });
    running = await startServer({ checkpointer: store });
  });
  afterAll(async () => {
    await running.stop();
    await store.close();
    const pool = new pg.Pool({ connectionString: url });
    const { rows } = await pool.query("select tablename from pg_tables where tablename like $1", [
      `${tablePrefix}%`,
    ]);
    for (const { tablename } of rows)
      await pool.query(`drop table if exists "${tablename}" cascade`);
    await dropRunQueueTables(pool, tablePrefix);
    await pool.query(`drop function if exists ${tablePrefix}notify_thread_change()`);
    await pool.end();
  });

  it("pauses for review, is found by status, and takes a recorded, linkable decision", async () => {
    const client = new Client({ apiUrl: running.url });
    const thread = await client.threads.create({ metadata: { ticket: "PG-1" } });
    await client.runs.wait(thread.thread_id, "ops", {
      input: { messages: [{ type: "human", content: "remove pg.txt" }] },
    });
    const [found] = await client.threads.search({
      status: "interrupted",
      metadata: { ticket: "PG-1" },
    });
    expect(found?.thread_id).toBe(thread.thread_id);

    const page = (await (
      await fetch(`${running.url}/inbox/threads/${thread.thread_id}`)
    ).json()) as any;
    const [item] = page.pending;
    const decide = () =>
      fetch(`${running.url}/inbox/threads/${thread.thread_id}/decisions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          checkpointId: item.checkpointId,
          interruptId: item.interruptId,
          answer: { decisions: [{ type: "approve" }] },
          reviewer: "pg",
          idempotencyKey: "pg-key-1",
        }),
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));
    const first = await decide();
    expect(first.status).toBe(202);
    await client.runs.join(thread.thread_id, first.body.runId);
    const again = await decide();
    expect(again.body.runId).toBe(first.body.runId);

    const link = (await (
      await fetch(`${running.url}/inbox/reviews/${item.interruptId}`)
    ).json()) as any;
    expect(link.decision.reviewer).toBe("pg");
    expect(link.toolResults[0].content).toBe("removed pg.txt");
  });

  it("a run that a worker process executes streams what it ended with to the server that queued it", async () => {
    // The server only queues (concurrency 0); a worker with its own queue connection, as in
    // another process, executes.
    const queued = await startServer({
      checkpointer: store,
      queue: await PostgresRunQueue.open({ connectionString: url!, tablePrefix }),
      concurrency: 0,
    });
    const worker = await startWorker({
      graphs: testGraphs(),
      checkpointer: store,
      queue: await PostgresRunQueue.open({ connectionString: url!, tablePrefix }),
    });
    try {
      const client = new Client({ apiUrl: queued.url });
      const thread = await client.threads.create();
      const events = [];
      for await (const part of client.runs.stream(thread.thread_id, "pair", {
        input: {},
        streamMode: "values",
      }))
        events.push(part);
      expect(events.map((e) => e.event)).toEqual(["metadata", "values"]);
      const values = events[1]!.data as { __interrupt__?: Array<{ value: unknown }> };
      expect(values.__interrupt__?.map((i) => i.value).sort()).toEqual(["first?", "second?"]);
      const [run] = await client.runs.list(thread.thread_id);
      expect(run?.status).toBe("interrupted");
    } finally {
      await worker.close();
      await queued.stop();
    }
  });

  it("a worker process builds a graph factory's graph from the run's config, as the server would", async () => {
    const graphs = { ...testGraphs(), steps: await factoryGraph(stepFactory) };
    const queued = await startServer({
      graphs,
      checkpointer: store,
      queue: await PostgresRunQueue.open({ connectionString: url!, tablePrefix }),
      concurrency: 0,
    });
    const worker = await startWorker({
      graphs,
      checkpointer: store,
      queue: await PostgresRunQueue.open({ connectionString: url!, tablePrefix }),
    });
    try {
      const client = new Client({ apiUrl: queued.url });
      const thread = await client.threads.create();
      const done = await client.runs.wait(thread.thread_id, "steps", {
        input: {},
        config: { configurable: { step: "in_worker" } },
      });
      expect(done).toEqual({ done: "in_worker" });
    } finally {
      await worker.close();
      await queued.stop();
    }
  });

  it("tells the inbox pages of one server what another server on the same database changed", async () => {
    const otherStore = new PostgresCheckpointer({ connectionString: url!, tablePrefix });
    const other = await startServer({ checkpointer: otherStore });
    try {
      await other.server.context.events.ready;
      await running.server.context.events.ready;
      const feed = new AbortController();
      const res = await fetch(`${other.url}/inbox/events`, { signal: feed.signal });
      const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
      let text = "";
      const heard = (threadId: string, reason: string) => {
        const wanted = JSON.stringify({ threadId, reason });
        return (async () => {
          while (!text.includes(wanted)) text += (await reader.read()).value ?? "";
        })();
      };

      // A thread started, paused and deleted through the first server only.
      const client = new Client({ apiUrl: running.url });
      const thread = await client.threads.create();
      const paused = heard(thread.thread_id, "paused");
      await client.runs.wait(thread.thread_id, "question", { input: { q: "cross-process?" } });
      await paused;
      expect(text).toContain(JSON.stringify({ threadId: thread.thread_id, reason: "started" }));
      const deleted = heard(thread.thread_id, "deleted");
      await client.threads.delete(thread.thread_id);
      await deleted;
      feed.abort();

      // A thread made through the first server, not run yet, is there for the other.
      const made = await client.threads.create({ metadata: { ticket: "PG-NEW" } });
      const seen = await new Client({ apiUrl: other.url }).threads.get(made.thread_id);
      expect(seen).toMatchObject({ status: "idle", metadata: { ticket: "PG-NEW" } });

      // The other server's inbox lists what the first one paused.
      const second = await client.threads.create();
      await client.runs.wait(second.thread_id, "question", { input: { q: "listed?" } });
      const list = (await (await fetch(`${other.url}/inbox/items`)).json()) as any;
      expect(list.items.map((i: { threadId: string }) => i.threadId)).toContain(second.thread_id);
    } finally {
      await other.stop();
      await otherStore.close();
    }
  });
});
