/**
 * Databases written at schema version 4 (pending writes naming no run) open with this one:
 * the first call adds the writes' run column (migration 6; the thread-change trigger, 5, comes first), old writes read exactly as that
 * code stored them, and rewinds work on old threads: a rollback's run id never removes a
 * write that names no run. The fixture holds what that code wrote (see
 * fixtures/make-schema-v4-fixture.ts); it is loaded into PGlite and into PostgreSQL.
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import {
  type Checkpointer,
  type PendingWrite,
  PGliteCheckpointer,
  PostgresCheckpointer,
} from "../../src/checkpoint/index.js";
import { END, Graph, interrupt, START } from "../../src/index.js";
import { dropStoreTables } from "../setup/store-tables.js";

const fixture = readFileSync(new URL("./fixtures/schema-v4.sql", import.meta.url), "utf8");
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

/** The graph of "parallel-paused", counting the runs of its finished task. */
function parallel(checkpointer: Checkpointer) {
  const runs = { check: 0 };
  type Parallel = { log: string[]; answer: unknown };
  const graph = new Graph<Parallel>({ name: "Parallel" })
    .addReducer("log", (a: string[] = [], b: string[]) => [...a, ...b])
    .addNode("check", () => {
      runs.check++;
      return { log: ["checked"] };
    })
    .addNode("ask", () => ({ answer: interrupt({ question: "Go?" }) }))
    .addEdge(START, "check")
    .addEdge(START, "ask")
    .addEdge("check", END)
    .addEdge("ask", END)
    .compile({ checkpointer });
  return { graph, runs };
}

async function expectMigrated(store: Checkpointer, query: Query, prefix: string) {
  // What the old code stored of the paused step's finished task, straight from its rows.
  const raw = await query(
    `select checkpoint_id, payload from ${prefix}writes where thread_id = 'parallel-paused' order by seq`,
  );
  const head = (await store.getLatest("parallel-paused"))!;
  const versions = await query(`select version from ${prefix}schema_version order by version`);
  expect(versions.map((r) => r.version)).toEqual([1, 2, 3, 4, 5, 6, 7]);
  const origin = head.checkpoint.metadata.stepOrigin as string;
  const stored = (id: string) =>
    raw.filter((r) => r.checkpoint_id === id).map((r) => JSON.parse(r.payload as string));
  expect((await store.get("parallel-paused", "", origin))?.pendingWrites).toEqual(stored(origin));
  expect(head.pendingWrites).toEqual(stored(head.checkpoint.id));
  expect(stored(origin)).toEqual([expect.objectContaining({ node: "check" })]);
  const named = (await store.get("parallel-paused", "", origin))!.pendingWrites;
  expect(named.every((w: PendingWrite) => w.runId === undefined)).toBe(true);

  // A rollback's run id leaves writes that name no run: the finished task is not run again.
  expect(await store.rewindThread("parallel-paused", head.checkpoint.id, { runId: "r" })).toBe(0);
  expect((await store.get("parallel-paused", "", origin))?.pendingWrites).toEqual(stored(origin));
  const { graph, runs } = parallel(store);
  const done = await graph.resume("go", {
    config: { configurable: { thread_id: "parallel-paused" } },
  });
  expect(done.state).toEqual({ log: ["start", "checked"], answer: "go" });
  expect(runs.check).toBe(0);

  // The conversation (values stored as what each step appended) rewinds to its middle,
  // reads exactly as before, and goes on from there.
  const history = await store.list("chat");
  const middle = history.findIndex((c) => c.values.turn === 6);
  expect(await store.rewindThread("chat", history[middle]!.id)).toBe(middle);
  expect(await store.list("chat")).toEqual(history.slice(middle));
  expect((await store.getThread("chat"))?.latestCheckpointId).toBe(history[middle]!.id);
  await store.put(
    { ...history[0]!, id: randomUUID(), parentId: history[middle]!.id },
    { expectedLatestId: history[middle]!.id },
  );
  expect(await store.rewindThread("chat", history[middle]!.id)).toBe(1);
  const again = await chat(store).invoke(null, { config: { configurable: { thread_id: "chat" } } });
  expect(again.state.messages).toEqual(Array.from({ length: 12 }, (_, i) => `message ${i + 1}`));
  const after = await store.list("chat");
  expect(after.slice(after.length - (history.length - middle))).toEqual(history.slice(middle));
}

describe("pending writes for a database written at schema version 4", () => {
  it("PGlite: migrates on first open; old writes read exactly and old threads rewind", async () => {
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
    const prefix = `sw_wrmig_${randomUUID().slice(0, 8)}_`;
    afterAll(async () => {
      await dropStoreTables(pool, prefix);
      await pool.end();
    });

    it("migrates on first open; old writes read exactly and old threads rewind", async () => {
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
