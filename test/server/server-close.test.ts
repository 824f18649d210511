/**
 * Closing a server: it stops taking requests before its runs and their queue close, and a
 * request still working when they do is answered 503, not reported as a fault.
 */
import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, expect, it } from "vitest";
import { MemoryCheckpointer } from "../../src/checkpoint/index.js";
import { PostgresRunQueue } from "../../src/runs/index.js";
import { createApp, createServer } from "../../src/server/index.js";
import { dropRunQueueTables } from "../setup/store-tables.js";
import { openProtocolSocket } from "./fixtures/protocol-socket.js";
import { testGraphs } from "./fixtures/server.js";

const url = process.env.STATEWEAVER_PG_URL;
const tablePrefix = `sw_close_${randomUUID().slice(0, 8)}_`;

afterAll(async () => {
  if (!url) return;
  const pool = new pg.Pool({ connectionString: url });
  await dropRunQueueTables(pool, tablePrefix);
  await pool.end();
});

it.skipIf(!url)(
  "a request that meets the closed run queue during shutdown is answered 503 SHUTTING_DOWN, and nothing is reported as unexpected",
  async () => {
    const queue = await PostgresRunQueue.open({ connectionString: url!, tablePrefix });
    const reported: unknown[] = [];
    const { app, context } = createApp({
      graphs: testGraphs(),
      checkpointer: new MemoryCheckpointer(),
      queue,
      concurrency: 0,
      token: "secret",
      onUnexpectedError: (error) => reported.push(error),
    });
    await context.runs.close(); // the queue's pool is ended, as in the middle of close()
    const res = await app.request(`/threads/${randomUUID()}/runs`, {
      method: "POST",
      headers: {
        authorization: "Bearer secret",
        "content-type": "application/json",
        accept: "application/json",
      },
      body: JSON.stringify({ assistant_id: "question", input: {}, if_not_exists: "create" }),
    });
    expect(res.status).toBe(503);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("SHUTTING_DOWN");
    expect(reported).toEqual([]);
  },
);

it("close() stops listening before the runs close: a new connection is refused at once", async () => {
  const server = createServer({ graphs: testGraphs(), checkpointer: new MemoryCheckpointer() });
  const { url: base } = await server.listen({ port: 0 });
  expect((await fetch(`${base}/ok`)).status).toBe(200);
  const closing = server.close();
  await expect(fetch(`${base}/ok`)).rejects.toThrow();
  await closing;
});

it("close() ends the thread protocol's WebSockets too (1001, going away), which Node's server.close() leaves open", async () => {
  const server = createServer({ graphs: testGraphs(), checkpointer: new MemoryCheckpointer() });
  const { url: base } = await server.listen({ port: 0 });
  const socket = await openProtocolSocket(base, randomUUID());
  expect(await socket.command("subscription.subscribe", { channels: ["values"] })).toMatchObject({
    type: "success",
  });
  await server.close();
  expect(await socket.closed).toBe(1001);
});
