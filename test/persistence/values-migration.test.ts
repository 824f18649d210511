/**
 * Databases written at schema version 3 (every checkpoint with its whole values) open with
 * this one: the first call adds channel versions (migration 4), every old checkpoint reads
 * exactly as that code wrote it, and threads go on in the new format — old rows and new in
 * one history. The fixture holds what that code wrote (see fixtures/make-schema-v3-fixture.ts);
 * it is loaded into PGlite and into PostgreSQL.
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import {
  type Checkpoint,
  type Checkpointer,
  PGliteCheckpointer,
  PostgresCheckpointer,
} from "../../src/checkpoint/index.js";
import { END, Graph, START } from "../../src/index.js";
import { dropStoreTables } from "../setup/store-tables.js";
import { approvalGraph } from "./fixtures/approval-graph.js";

const fixture = readFileSync(new URL("./fixtures/schema-v3.sql", import.meta.url), "utf8");
const fixtureFor = (prefix: string) => fixture.replaceAll("swfixture_", prefix);

type Query = (text: string, params?: unknown[]) => Promise<Array<Record<string, unknown>>>;

/** The chat graph the fixture's "chat" thread was written by. */
function chat(checkpointer: Checkpointer) {
  type Chat = { messages: string[]; turn: number };
  return new Graph<Chat>({ name: "Chat" })
    .addReducer("messages", (a: string[] = [], b: string[]) => [...a, ...b])
    .addNode("reply", (s) => ({ turn: s.turn + 1, messages: [`message ${s.turn + 1}`] }))
    .addEdge(START, "reply")
    .addConditionalEdges("reply", (s) => (s.turn < 12 ? "reply" : END))
    .compile({ checkpointer });
}

async function expectMigrated(store: Checkpointer, query: Query, prefix: string) {
  // What the old code stored, read straight from its rows (values in each payload).
  const stored = async (threadId: string) =>
    (
      await query(
        `select payload from ${prefix}checkpoints where thread_id = $1 and ns = '' order by seq desc`,
        [threadId],
      )
    ).map((r) => JSON.parse(r.payload as string) as Checkpoint);
  const chatBefore = await stored("chat");
  const pausedBefore = await stored("paused");
  expect(chatBefore.length).toBeGreaterThan(12);

  expect(await store.list("chat")).toEqual(chatBefore);
  const versions = await query(`select version from ${prefix}schema_version order by version`);
  expect(versions.map((r) => r.version)).toEqual([1, 2, 3, 4, 5, 6, 7]);
  expect(await store.getThread("paused")).toMatchObject({
    status: "interrupted",
    graph: "ApprovalFlow",
    metadata: { team: "ops" },
  });

  // A paused thread resumes; its history is the old rows and the new, each exact.
  const done = await approvalGraph(store).resume(true, {
    config: { configurable: { thread_id: "paused" } },
  });
  expect(done.status).toBe("done");
  const paused = await store.list("paused");
  expect(paused.slice(paused.length - pausedBefore.length)).toEqual(pausedBefore);
  expect(paused[0]!.values).toEqual(done.state);

  // A fork from the middle of the old conversation goes on in the new format.
  const middle = chatBefore.find((c) => c.values.turn === 6)!;
  const forked = await chat(store).invoke(null, {
    config: { configurable: { thread_id: "chat", checkpoint_id: middle.id } },
  });
  expect(forked.state.messages).toEqual(Array.from({ length: 12 }, (_, i) => `message ${i + 1}`));
  const newRows = await query(
    `select count(*)::int as n from ${prefix}checkpoints where thread_id = 'chat' and channels is not null`,
  );
  expect(newRows[0]!.n).toBeGreaterThan(0);
  const history = await store.list("chat");
  expect(history.slice(history.length - chatBefore.length)).toEqual(chatBefore);
  expect(history[0]!.values).toEqual(forked.state);
}

describe("channel versions for a database written at schema version 3", () => {
  it("PGlite: migrates on first open; old checkpoints read exactly and threads go on", async () => {
    const db = new PGlite("memory://");
    const prefix = "stateweaver_";
    await db.exec(fixtureFor(prefix));
    const query: Query = async (text, params) =>
      (await db.query<Record<string, unknown>>(text, params)).rows;
    const store = new PGliteCheckpointer({ db });
    try {
      await expectMigrated(store, query, prefix);
    } finally {
      await store.close();
      await db.close();
    }
  });

  // Runs against a real server only: STATEWEAVER_PG_URL=postgres://postgres@127.0.0.1:5432/test
  const url = process.env.STATEWEAVER_PG_URL;
  describe.skipIf(!url)("PostgreSQL", () => {
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    const prefix = `sw_valmig_${randomUUID().slice(0, 8)}_`;
    afterAll(async () => {
      await dropStoreTables(pool, prefix);
      await pool.end();
    });

    it("migrates on first open; old checkpoints read exactly and threads go on", async () => {
      await pool.query(fixtureFor(prefix));
      const query: Query = async (text, params) => (await pool.query(text, params)).rows;
      const store = new PostgresCheckpointer({ pool, tablePrefix: prefix });
      try {
        await expectMigrated(store, query, prefix);
      } finally {
        await store.close();
      }
    });
  });
});
