import { randomUUID } from "node:crypto";
import { Client } from "@langchain/langgraph-sdk";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import {
  type Checkpointer,
  PGliteCheckpointer,
  PostgresCheckpointer,
} from "../../src/checkpoint/index.js";
import type { GraphDefaults } from "../../src/server/index.js";
import { dropRunQueueTables } from "../setup/store-tables.js";
import { startServer, tempDataDir } from "./fixtures/server.js";

// Assistants made through the API live in the database beside the threads: a server started
// again on the same PGlite directory or PostgreSQL database finds them as they were.

const pgUrl = process.env.STATEWEAVER_PG_URL;
const pgPrefix = `sw_asst_${randomUUID().slice(0, 8)}_`;

/** One server's life on `open()`'s store: started, used, stopped, its store closed. */
async function served<T>(
  open: () => Checkpointer & { close(): Promise<void> },
  use: (client: Client) => Promise<T>,
  graphDefaults?: Record<string, GraphDefaults>,
): Promise<T> {
  const checkpointer = open();
  const running = await startServer({ checkpointer, ...(graphDefaults && { graphDefaults }) });
  try {
    return await use(new Client({ apiUrl: running.url, callerOptions: { maxRetries: 0 } }));
  } finally {
    await running.stop();
    await checkpointer.close();
  }
}

function describeRestart(name: string, open: () => Checkpointer & { close(): Promise<void> }) {
  describe(`assistants across a restart, on ${name}`, () => {
    it("finds an assistant made through the API, with its versions, and runs it", async () => {
      const made = await served(open, async (client) => {
        const a = await client.assistants.create({
          graphId: "question",
          name: "asker",
          context: { team: "infra" },
          metadata: { owner: "ana" },
        });
        await client.assistants.update(a.assistant_id, { metadata: { reviewed: true } });
        return a;
      });

      await served(open, async (client) => {
        const again = await client.assistants.get(made.assistant_id);
        expect(again).toMatchObject({
          assistant_id: made.assistant_id,
          graph_id: "question",
          name: "asker",
          version: 2,
          context: { team: "infra" },
          metadata: { owner: "ana", reviewed: true },
          created_at: made.created_at,
        });
        expect(
          (await client.assistants.getVersions(made.assistant_id)).map((v) => v.version),
        ).toEqual([2, 1]);
        const found = await client.assistants.search({ metadata: { owner: "ana" } });
        expect(found.map((a) => a.assistant_id)).toEqual([made.assistant_id]);

        const thread = await client.threads.create();
        await client.runs.wait(thread.thread_id, made.assistant_id, {
          input: { question: "Ship it?" },
        });
        expect((await client.threads.get(thread.thread_id)).status).toBe("interrupted");
      });
    });

    it("forgets a deleted assistant for good", async () => {
      const id = await served(open, async (client) => {
        const a = await client.assistants.create({ graphId: "ops" });
        await client.assistants.delete(a.assistant_id);
        return a.assistant_id;
      });
      await served(open, async (client) => {
        await expect(client.assistants.get(id)).rejects.toThrow("HTTP 404: Assistant not found");
      });
    });

    it("gives a graph's system assistant the defaults configured now", async () => {
      const config = (model: string) => ({ config: { configurable: { model_name: model } } });
      await served(
        open,
        async (client) => {
          expect((await client.assistants.get("ops")).config).toEqual(config("first").config);
        },
        { ops: config("first") },
      );
      await served(
        open,
        async (client) => {
          const system = await client.assistants.get("ops");
          expect(system.config).toEqual(config("second").config);
          expect(system.metadata).toEqual({ created_by: "system" });
          expect(await client.assistants.count({ graphId: "ops" })).toBeGreaterThanOrEqual(1);
        },
        { ops: config("second") },
      );
    });
  });
}

const dir = await tempDataDir();
afterAll(() => dir.dispose());
describeRestart("PGlite", () => new PGliteCheckpointer(dir.dir));

describe.skipIf(!pgUrl)("on PostgreSQL", () => {
  afterAll(async () => {
    const pool = new pg.Pool({ connectionString: pgUrl });
    const { rows } = await pool.query("select tablename from pg_tables where tablename like $1", [
      `${pgPrefix}%`,
    ]);
    for (const { tablename } of rows)
      await pool.query(`drop table if exists "${tablename}" cascade`);
    await dropRunQueueTables(pool, pgPrefix);
    await pool.query(`drop function if exists ${pgPrefix}notify_thread_change()`);
    await pool.end();
  });
  describeRestart(
    "PostgreSQL",
    () => new PostgresCheckpointer({ connectionString: pgUrl!, tablePrefix: pgPrefix }),
  );
});
