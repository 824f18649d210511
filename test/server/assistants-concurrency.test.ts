import { randomUUID } from "node:crypto";
import { Client } from "@langchain/langgraph-sdk";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PGliteCheckpointer, PostgresCheckpointer } from "../../src/checkpoint/index.js";
import { MemoryStore, type Store } from "../../src/store/index.js";
import { dropStoreTables } from "../setup/store-tables.js";
import { type RunningServer, startServer, tempDataDir } from "./fixtures/server.js";

// Changes to one assistant made at the same moment, from several servers on one database or
// several requests to one server, behave as LangGraph's server does: each update is exactly
// one new version with a number of its own (1, 2, 3, … none lost), one create of an id wins.

const pgUrl = process.env.STATEWEAVER_PG_URL;
const UPDATES_PER_CLIENT = 12;

const clientOf = (running: RunningServer) =>
  new Client({ apiUrl: running.url, callerOptions: { maxRetries: 0 } });

/** Whether each promise was refused with `status`, else fulfilled: the count of each. */
async function outcomes(calls: Array<Promise<unknown>>) {
  const settled = await Promise.allSettled(calls);
  const refused = settled.flatMap((s) => (s.status === "rejected" ? [String(s.reason)] : []));
  return { ok: settled.length - refused.length, refused };
}

/** The cases, for `clients` that all reach one database (one client per server, or several to one). */
function describeConcurrentChanges(name: string, open: () => Promise<Client[]>) {
  describe(`concurrent assistant changes, ${name}`, () => {
    let clients: Client[];
    beforeAll(async () => {
      clients = await open();
    }, 60_000);

    it("every concurrent update is one version with a number of its own, and the latest is the last", async () => {
      const made = await clients[0]!.assistants.create({ graphId: "ops", name: "hammered" });
      const updates = clients.flatMap((client, c) =>
        Array.from({ length: UPDATES_PER_CLIENT }, (_, n) =>
          client.assistants.update(made.assistant_id, { metadata: { by: `${c}-${n}` } }),
        ),
      );
      const answers = await Promise.all(updates);
      const total = updates.length + 1;
      const expected = Array.from({ length: total }, (_, i) => i + 1);
      expect(answers.map((a) => a.version).sort((a, b) => a - b)).toEqual(expected.slice(1));

      for (const client of clients) {
        const versions = await client.assistants.getVersions(made.assistant_id, { limit: 100 });
        expect(versions.map((v) => v.version)).toEqual([...expected].reverse());
        // Each update's metadata is in the version its answer named, and in no other.
        for (const answer of answers) {
          const mine = versions.filter((v) => v.metadata?.by === answer.metadata?.by);
          expect(mine.map((v) => v.version)).toEqual([answer.version]);
        }
        const latest = await client.assistants.get(made.assistant_id);
        expect(latest.version).toBe(total);
      }
    });

    it("of concurrent creates of one id with if_exists raise, exactly one is made, the rest are 409s", async () => {
      const id = randomUUID();
      const { ok, refused } = await outcomes(
        clients.flatMap((client) =>
          [1, 2].map(() =>
            client.assistants.create({ graphId: "ops", assistantId: id, ifExists: "raise" }),
          ),
        ),
      );
      expect(ok).toBe(1);
      expect(refused.length).toBe(clients.length * 2 - 1);
      for (const reason of refused) expect(reason).toContain("HTTP 409");
      const versions = await clients.at(-1)!.assistants.getVersions(id);
      expect(versions.map((v) => v.version)).toEqual([1]);
    });

    it("of concurrent deletes of one assistant, exactly one succeeds, the rest are 404s", async () => {
      const made = await clients[0]!.assistants.create({ graphId: "ops" });
      const { ok, refused } = await outcomes(
        clients.flatMap((client) => [1, 2].map(() => client.assistants.delete(made.assistant_id))),
      );
      expect(ok).toBe(1);
      for (const reason of refused) expect(reason).toContain("HTTP 404");
      await expect(clients[0]!.assistants.get(made.assistant_id)).rejects.toThrow("HTTP 404");
    });

    it("setLatest between concurrent updates moves the latest and loses no version", async () => {
      const made = await clients[0]!.assistants.create({ graphId: "ops" });
      await Promise.all(
        clients.flatMap((client, c) => [
          client.assistants.update(made.assistant_id, { metadata: { by: `${c}-a` } }),
          client.assistants.setLatest(made.assistant_id, 1),
          client.assistants.update(made.assistant_id, { metadata: { by: `${c}-b` } }),
        ]),
      );
      const versions = await clients[0]!.assistants.getVersions(made.assistant_id);
      const total = clients.length * 2 + 1;
      expect(versions.map((v) => v.version)).toEqual(
        Array.from({ length: total }, (_, i) => total - i),
      );
      // The last change was a setLatest (back to 1) or an update (the newest version).
      const latest = await clients[0]!.assistants.get(made.assistant_id);
      expect([1, total]).toContain(latest.version);
    });
  });
}

describe.skipIf(!pgUrl)("on PostgreSQL", () => {
  const tablePrefix = `sw_acc_${randomUUID().slice(0, 8)}_`;
  const servers: Array<{ running: RunningServer; checkpointer: PostgresCheckpointer }> = [];
  afterAll(async () => {
    for (const { running, checkpointer } of servers) {
      await running.stop();
      await checkpointer.close();
    }
    const pool = new pg.Pool({ connectionString: pgUrl });
    await dropStoreTables(pool, tablePrefix);
    await pool.end();
  });
  // Two servers, each with its own connection pool, on one database: as two processes.
  describeConcurrentChanges("two servers on one PostgreSQL database", async () => {
    for (let i = 0; i < 2; i++) {
      const checkpointer = new PostgresCheckpointer({ connectionString: pgUrl!, tablePrefix });
      servers.push({ running: await startServer({ checkpointer }), checkpointer });
    }
    return servers.map(({ running }) => clientOf(running));
  });
});

describe("on PGlite", () => {
  let dir: Awaited<ReturnType<typeof tempDataDir>>;
  let checkpointer: PGliteCheckpointer;
  let running: RunningServer;
  afterAll(async () => {
    await running.stop();
    await checkpointer.close();
    await dir.dispose();
  });
  describeConcurrentChanges("several requests to one server", async () => {
    dir = await tempDataDir();
    checkpointer = dir.open();
    running = await startServer({ checkpointer });
    return [clientOf(running), clientOf(running)];
  });
});

describe("on an assistantStore without putIf", () => {
  // A custom store that cannot compare-and-set: one server still orders its own changes.
  const memory = new MemoryStore();
  const withoutPutIf: Store = {
    get: (...a) => memory.get(...a),
    put: (...a) => memory.put(...a),
    delete: (...a) => memory.delete(...a),
    search: (...a) => memory.search(...a),
    listNamespaces: (...a) => memory.listNamespaces(...a),
  };
  let running: RunningServer;
  afterAll(() => running.stop());
  describeConcurrentChanges("several requests to one server", async () => {
    running = await startServer({ assistantStore: withoutPutIf });
    return [clientOf(running), clientOf(running)];
  });
});
