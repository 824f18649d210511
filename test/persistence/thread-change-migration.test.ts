/**
 * Databases written at schema version 4 open with this one: the first call adds the
 * thread-change trigger (migration 5), and from then on every committed change of a
 * thread's status or pending interrupts, and every run taking or leaving a thread, is sent
 * on `<prefix>thread_changes`, while the steps inside a run that change neither send nothing. The fixture holds what that code
 * wrote (see fixtures/make-schema-v4-fixture.ts); it is loaded into PGlite and PostgreSQL.
 * A PGlite database (one process) gets no triggers: there is nobody else to tell.
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import {
  type Checkpointer,
  PGliteCheckpointer,
  PostgresCheckpointer,
} from "../../src/checkpoint/index.js";
import { END, Graph, START } from "../../src/index.js";
import { dropStoreTables } from "../setup/store-tables.js";
import { approvalGraph } from "./fixtures/approval-graph.js";

const fixture = readFileSync(new URL("./fixtures/schema-v4.sql", import.meta.url), "utf8");
const fixtureFor = (prefix: string) => fixture.replaceAll("swfixture_", prefix);

type Change = { threadId: string; change: string };

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

/**
 * Runs a whole conversation again (a dozen steps, status idle throughout), then resumes the
 * paused approval; `heard` collects what was sent. Notifications arrive in commit order, so
 * once the approval's has come, any the conversation's steps had sent are in too.
 */
async function expectChangesSent(store: Checkpointer, heard: Change[]) {
  expect(await store.getThread("paused")).toMatchObject({ status: "interrupted" });
  const chatHistory = await store.list("chat");
  const first = chatHistory[chatHistory.length - 1]!;
  await chat(store).invoke(null, {
    config: { configurable: { thread_id: "chat", checkpoint_id: first.id } },
  });
  await approvalGraph(store).resume(true, { config: { configurable: { thread_id: "paused" } } });
  await expect.poll(() => heard).toContainEqual({ threadId: "paused", change: "finished" });
  // The run took the thread and let it go; its dozen steps sent nothing.
  expect(heard.filter((c) => c.threadId === "chat").map((c) => c.change)).toEqual([
    "started",
    "released",
  ]);

  // A new thread that pauses: its first row says so.
  await approvalGraph(store).invoke(
    { details: "Transfer $1" },
    { config: { configurable: { thread_id: "new" } } },
  );
  await expect.poll(() => heard).toContainEqual({ threadId: "new", change: "paused" });
  await store.deleteThread("new");
  await expect.poll(() => heard).toContainEqual({ threadId: "new", change: "deleted" });
}

describe("thread changes for a database written at schema version 4", () => {
  it("PGlite: migrates on first open without the triggers, which one process does not need", async () => {
    const db = new PGlite("memory://");
    const prefix = "stateweaver_";
    await db.exec(fixtureFor(prefix));
    const store = new PGliteCheckpointer({ db });
    try {
      await approvalGraph(store).resume(true, {
        config: { configurable: { thread_id: "paused" } },
      });
      expect(await store.getThread("paused")).toMatchObject({ status: "idle" });
      const { rows } = await db.query<{ version: number }>(
        `select version from ${prefix}schema_version order by version`,
      );
      expect(rows.map((r) => r.version)).toEqual([1, 2, 3, 4, 5, 6, 7]);
      const triggers = await db.query<{ n: number }>(
        "select count(*)::int as n from pg_trigger where tgname like $1",
        [`${prefix}%`],
      );
      expect(triggers.rows[0]?.n).toBe(0);
    } finally {
      await store.close();
      await db.close();
    }
  });

  // Runs against a real server only: STATEWEAVER_PG_URL=postgres://postgres@127.0.0.1:5432/test
  const url = process.env.STATEWEAVER_PG_URL;
  describe.skipIf(!url)("PostgreSQL", () => {
    const pool = new pg.Pool({ connectionString: url, max: 3 });
    const prefix = `sw_chgmig_${randomUUID().slice(0, 8)}_`;
    afterAll(async () => {
      await dropStoreTables(pool, prefix);
      await pool.end();
    });

    it("migrates on first open; watchThreadChanges hears every process's changes", async () => {
      await pool.query(fixtureFor(prefix));
      const store = new PostgresCheckpointer({ pool, tablePrefix: prefix });
      const heard: Change[] = [];
      const stop = await store.watchThreadChanges((c) => heard.push(c));
      try {
        await expectChangesSent(store, heard);
      } finally {
        await stop();
        await store.close();
      }
    });

    it("listens again when its connection is dropped, and says changes may have been missed", async () => {
      const store = new PostgresCheckpointer({ pool, tablePrefix: prefix });
      const heard: Change[] = [];
      const stop = await store.watchThreadChanges((c) => heard.push(c));
      try {
        const { rows } = await pool.query(
          "select pg_terminate_backend(pid) as ended from pg_stat_activity where query = $1",
          [`listen ${prefix}thread_changes`],
        );
        expect(rows).toEqual([{ ended: true }]);
        await expect.poll(() => heard).toContainEqual({ threadId: "", change: "released" });
        await approvalGraph(store).invoke(
          { details: "Transfer $2" },
          { config: { configurable: { thread_id: "after-drop" } } },
        );
        await expect.poll(() => heard).toContainEqual({ threadId: "after-drop", change: "paused" });
      } finally {
        await stop();
        await store.close();
      }
    });
  });
});
