/**
 * Databases written by the released code (schema version 2, before thread records) open
 * with this one: the first call migrates them, and every existing thread gets its record
 * from its latest checkpoint. The fixture holds what that code wrote (see
 * fixtures/make-schema-v2-fixture.ts); it is loaded into PGlite and into PostgreSQL.
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
import { dropStoreTables } from "../setup/store-tables.js";
import { approvalGraph } from "./fixtures/approval-graph.js";

const fixture = readFileSync(new URL("./fixtures/schema-v2.sql", import.meta.url), "utf8");
/** The fixture's tables and rows, under `prefix`. */
const fixtureFor = (prefix: string) => fixture.replaceAll("swfixture_", prefix);

type Query = (text: string) => Promise<Array<Record<string, unknown>>>;

/** What the released code left, before migrating: the latest ids, and one damaged payload. */
async function prepare(query: Query, prefix: string) {
  const heads = await query(`select thread_id, latest_id from ${prefix}threads where ns = ''`);
  const latest = Object.fromEntries(heads.map((r) => [r.thread_id, r.latest_id as string]));
  // A latest checkpoint damaged on disk must not keep the database from opening.
  await query(`update ${prefix}checkpoints set payload = '{' where id = '${latest.failed}'`);
  return latest;
}

async function expectMigrated(
  store: Checkpointer,
  query: Query,
  prefix: string,
  latest: Record<string, string>,
) {
  // The first call migrates.
  const paused = await store.getThread("paused");
  const versions = await query(`select version from ${prefix}schema_version order by version`);
  expect(versions.map((r) => r.version)).toEqual([1, 2, 3, 4, 5, 6, 7]);

  const tuple = await store.getLatest("paused");
  const history = await store.list("paused");
  expect(paused).toEqual({
    threadId: "paused",
    graph: null,
    status: "interrupted",
    interrupts: tuple!.checkpoint.interrupts,
    error: null,
    metadata: {},
    createdAt: history.at(-1)!.createdAt,
    updatedAt: tuple!.checkpoint.createdAt,
    latestCheckpointId: latest.paused,
  });
  expect(paused!.interrupts[0]).toMatchObject({ node: "approval", timing: "during" });

  expect(await store.getThread("done")).toMatchObject({
    status: "idle",
    interrupts: [],
    latestCheckpointId: latest.done,
  });
  const nested = await store.getThread("nested-paused");
  expect(nested).toMatchObject({
    status: "interrupted",
    latestCheckpointId: latest["nested-paused"],
  });
  expect(nested!.interrupts[0]!.ns).toMatch(/^review:/);
  expect(await store.getThread("failed")).toMatchObject({
    status: "error",
    error: { name: "CorruptCheckpointError", message: expect.stringContaining("not valid JSON") },
  });

  // The inbox query finds the paused threads, newest first; subgraph rows are no threads.
  const inbox = await store.searchThreads({ status: "interrupted" });
  expect(inbox.threads.map((t) => t.threadId)).toEqual(["nested-paused", "paused"]);
  expect((await store.searchThreads()).threads).toHaveLength(4);

  // The migrated thread runs on, and its record follows: it learns its graph.
  const graph = approvalGraph(store);
  const config = { configurable: { thread_id: "paused" } };
  const before = await store.list("paused");
  const done = await graph.resume(true, { config, metadata: { migrated: true } });
  expect(done.status).toBe("done");
  // Its history is the rows written before (values in the payload) and after (values by
  // channel version), each read exactly.
  const after = await store.list("paused");
  expect(after.slice(after.length - before.length)).toEqual(before);
  expect(after[0]!.values).toEqual(done.state);
  expect(await graph.threads.get("paused")).toMatchObject({
    graph: "ApprovalFlow",
    status: "idle",
    metadata: { migrated: true },
    createdAt: paused!.createdAt,
  });
}

describe("thread records for a database written at schema version 2", () => {
  it("PGlite: migrates on first open and backfills a record per thread from its latest checkpoint", async () => {
    const db = new PGlite("memory://");
    const prefix = "stateweaver_";
    await db.exec(fixtureFor(prefix));
    const query: Query = async (text) => (await db.query<Record<string, unknown>>(text)).rows;
    const latest = await prepare(query, prefix);
    const store = new PGliteCheckpointer({ db });
    try {
      await expectMigrated(store, query, prefix, latest);
    } finally {
      await store.close();
      await db.close();
    }
  });

  // Runs against a real server only: STATEWEAVER_PG_URL=postgres://postgres@127.0.0.1:5432/test
  const url = process.env.STATEWEAVER_PG_URL;
  describe.skipIf(!url)("PostgreSQL", () => {
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    const prefix = `sw_thmig_${randomUUID().slice(0, 8)}_`;
    afterAll(async () => {
      await dropStoreTables(pool, prefix);
      await pool.end();
    });

    it("migrates on first open and backfills a record per thread from its latest checkpoint", async () => {
      await pool.query(fixtureFor(prefix));
      const query: Query = async (text) => (await pool.query(text)).rows;
      const latest = await prepare(query, prefix);
      const store = new PostgresCheckpointer({ pool, tablePrefix: prefix });
      try {
        await expectMigrated(store, query, prefix, latest);
      } finally {
        await store.close();
      }
    });
  });
});
