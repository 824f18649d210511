/**
 * A server on a PostgreSQL that goes away: it stays up, answers what needs the database
 * with 503 and `Retry-After`, and carries on when the database is back.
 */
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, expect, it } from "vitest";
import { PostgresCheckpointer } from "../../src/checkpoint/index.js";
import { PostgresRunQueue } from "../../src/runs/index.js";
import { type RunningServer, startServer } from "../server/fixtures/server.js";
import { PrivatePostgres, postgresBinaries } from "./private-postgres.js";

let database: PrivatePostgres | undefined;
let running: RunningServer | undefined;
let store: PostgresCheckpointer | undefined;

afterAll(async () => {
  await running?.stop().catch(() => undefined);
  await store?.close().catch(() => undefined);
  await database?.destroy();
});

it.skipIf(!postgresBinaries())(
  "during a database outage the API answers 503 with Retry-After, the server stays up, and all works again when the database is back",
  async () => {
    database = await PrivatePostgres.create();
    store = new PostgresCheckpointer({ connectionString: database.url() });
    const queue = await PostgresRunQueue.open({ connectionString: database.url() });
    const unexpected: unknown[] = [];
    running = await startServer({
      checkpointer: store,
      queue,
      onUnexpectedError: (error) => unexpected.push(error),
    });
    const client = new Client({ apiUrl: running.url });
    const thread = await client.threads.create();
    const search = () =>
      fetch(`${running!.url}/threads/search`, {
        method: "POST",
        headers: { accept: "application/json", "content-type": "application/json" },
        body: JSON.stringify({ limit: 10 }),
      });
    expect((await search()).status).toBe(200);

    await database.stopImmediately();
    const during = await search();
    expect(during.status).toBe(503);
    expect(during.headers.get("retry-after")).toBe("5");
    const body = (await during.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("DATABASE_UNAVAILABLE");
    expect(body.error.message).toMatch(/database is unavailable/);
    const state = await fetch(`${running.url}/threads/${thread.thread_id}/state`);
    expect(state.status).toBe(503);
    // What needs no database still answers: the server is up.
    expect((await fetch(`${running.url}/ok`)).status).toBe(200);

    await database.start();
    let after = await search();
    for (let i = 0; after.status !== 200 && i < 40; i++) {
      await new Promise((r) => setTimeout(r, 250));
      after = await search();
    }
    expect(after.status).toBe(200);
    // Runs go on too: the server's own worker pool came back with the database.
    const result = (await client.runs.wait(thread.thread_id, "stepper", {
      input: { n: 1 },
    })) as Record<string, unknown>;
    expect(result).toMatchObject({ n: 2 });
    expect(unexpected).toEqual([]);
  },
  120_000,
);
