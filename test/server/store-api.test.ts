import { randomUUID } from "node:crypto";
import { Client } from "@langchain/langgraph-sdk";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Checkpointer,
  PGliteCheckpointer,
  PostgresCheckpointer,
} from "../../src/checkpoint/index.js";
import { END, Graph, START } from "../../src/index.js";
import { dropStoreTables } from "../setup/store-tables.js";
import { type RunningServer, startServer, testGraphs } from "./fixtures/server.js";

/** A node that keeps what it learns in the server's long-term store. */
const remember = new Graph<{ user: string; fact: string }>({ name: "remember" })
  .addNode("learn", async (s, runtime) => {
    await runtime.store?.put(["memories", s.user], "fact", { text: s.fact });
    return {};
  })
  .addEdge(START, "learn")
  .addEdge("learn", END)
  .compile();

const url = process.env.STATEWEAVER_PG_URL;
const prefix = `sw_test_${randomUUID().slice(0, 8)}_`;

const setups: Array<[string, () => Checkpointer, boolean]> = [
  ["PGlite", () => new PGliteCheckpointer("memory://"), false],
  [
    "PostgreSQL",
    () => new PostgresCheckpointer({ connectionString: url!, tablePrefix: prefix }),
    !url,
  ],
];

for (const [name, makeCheckpointer, skip] of setups) {
  // The official SDK client's store calls, unchanged, against our server.
  describe.skipIf(skip)(`the store API through the SDK client (${name})`, () => {
    let running: RunningServer;
    let client: Client;
    beforeAll(async () => {
      running = await startServer({
        checkpointer: makeCheckpointer(),
        graphs: { ...testGraphs(), remember },
      });
      client = new Client({ apiUrl: running.url, callerOptions: { maxRetries: 0 } });
      // Open the database here: a PGlite start takes seconds on a busy machine.
      await running.checkpointer.searchThreads({ limit: 1 });
    }, 120_000);
    afterAll(async () => {
      await running.stop();
      await running.checkpointer.close?.();
      if (name === "PostgreSQL") {
        const pool = new pg.Pool({ connectionString: url });
        await dropStoreTables(pool, prefix);
        await pool.end();
      }
    });

    it("puts, gets and deletes an item", async () => {
      await client.store.putItem(["users", "u1"], "prefs", { theme: "dark" });
      const item = await client.store.getItem(["users", "u1"], "prefs");
      expect(item).toMatchObject({
        namespace: ["users", "u1"],
        key: "prefs",
        value: { theme: "dark" },
      });
      expect(Date.parse(item!.createdAt)).not.toBeNaN();
      expect(item!.updatedAt).toBe(item!.createdAt);
      await client.store.deleteItem(["users", "u1"], "prefs");
      expect(await client.store.getItem(["users", "u1"], "prefs")).toBeNull();
    });

    it("searches under a namespace prefix with a filter, limit and offset", async () => {
      for (const [key, status] of [
        ["a", "open"],
        ["b", "done"],
        ["c", "open"],
      ] as const) {
        await client.store.putItem(["tickets", "team1"], key, { status });
      }
      await client.store.putItem(["tickets2"], "z", { status: "open" });
      const open = await client.store.searchItems(["tickets"], { filter: { status: "open" } });
      expect(open.items.map((i) => i.key)).toEqual(["c", "a"]);
      const page = await client.store.searchItems(["tickets"], { limit: 1, offset: 1 });
      expect(page.items.map((i) => i.key)).toEqual(["b"]);
    });

    it("lists namespaces with a prefix and maxDepth", async () => {
      await client.store.putItem(["docs", "a", "x"], "k", { v: 1 });
      await client.store.putItem(["docs", "b"], "k", { v: 1 });
      const { namespaces } = await client.store.listNamespaces({ prefix: ["docs"], maxDepth: 2 });
      expect(namespaces).toEqual([
        ["docs", "a"],
        ["docs", "b"],
      ]);
    });

    it("an item put with a TTL is gone once it passes", async () => {
      await client.store.putItem(["short"], "k", { v: 1 }, { ttl: 0.02 }); // 1.2 s
      expect(await client.store.getItem(["short"], "k", { refreshTtl: false })).not.toBeNull();
      await new Promise((done) => setTimeout(done, 1500));
      expect(await client.store.getItem(["short"], "k")).toBeNull();
    });

    it("a hosted graph's nodes write to the same store as runtime.store", async () => {
      const thread = await client.threads.create();
      await client.runs.wait(thread.thread_id, "remember", {
        input: { user: "ana", fact: "likes tea" },
      });
      const item = await client.store.getItem(["memories", "ana"], "fact");
      expect(item?.value).toEqual({ text: "likes tea" });
    });

    it("refuses a value that is not an object and a namespace label the API cannot name", async () => {
      const put = (body: unknown) =>
        fetch(`${running.url}/store/items`, {
          method: "PUT",
          headers: { accept: "application/json", "content-type": "application/json" },
          body: JSON.stringify(body),
        });
      const notObject = await put({ namespace: ["a"], key: "k", value: [1] });
      expect(notObject.status).toBe(400);
      const empty = await put({ namespace: ["a", ""], key: "k", value: { v: 1 } });
      expect(empty.status).toBe(422);
      expect(((await empty.json()) as { error: { code: string } }).error.code).toBe(
        "INVALID_STORE_REQUEST",
      );
      expect(await client.store.searchItems(["a"])).toEqual({ items: [] });
    });
  });
}
