/**
 * A conversation that appends one 1 KB message per step stores about what its messages
 * weigh: channels a step did not write are not stored again, and the messages list
 * stores only what each step appended. Measured on the stored rows of PGlite and
 * PostgreSQL, through a real graph run; and a fork from the middle reads exactly.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import {
  type Checkpointer,
  PGliteCheckpointer,
  PostgresCheckpointer,
} from "../../src/checkpoint/index.js";
import { CorruptCheckpointError, END, Graph, START } from "../../src/index.js";
import { dropStoreTables } from "../setup/store-tables.js";

const STEPS = 120;

type Chat = { messages: Array<{ id: string; role: string; content: string }>; turn: number };

/** One node that appends a 1 KB message per step (random text: nothing compresses it). */
function chat(checkpointer: Checkpointer) {
  return new Graph<Chat>({ name: "Chat" })
    .addReducer("messages", (a: Chat["messages"] = [], b: Chat["messages"]) => [...a, ...b])
    .addNode("reply", (s) => ({
      turn: s.turn + 1,
      messages: [{ id: `m${s.turn}`, role: "ai", content: randomBytes(384).toString("base64") }],
    }))
    .addEdge(START, "reply")
    .addConditionalEdges("reply", (s) => (s.turn < STEPS ? "reply" : END))
    .compile({ checkpointer });
}

type Query = (text: string, params: unknown[]) => Promise<Array<Record<string, unknown>>>;

/** Bytes of every stored payload of the thread, and of each checkpoint row with its values. */
async function storedBytes(query: Query, prefix: string, threadId: string) {
  const sum = async (table: string) =>
    Number(
      (
        await query(
          `select coalesce(sum(octet_length(payload)), 0) as n from ${prefix}${table} where thread_id = $1`,
          [threadId],
        )
      )[0]!.n,
    );
  const rows = await query(
    `select c.step, octet_length(c.payload) + coalesce(pg_column_size(c.channels) + pg_column_size(c.versions), 0)
        + coalesce((select sum(octet_length(v.payload)) from ${prefix}channel_values v
            where v.thread_id = c.thread_id and v.ns = c.ns and v.version = c.id), 0) as n
       from ${prefix}checkpoints c where c.thread_id = $1 order by c.seq`,
    [threadId],
  );
  const total = (await sum("checkpoints")) + (await sum("channel_values")) + (await sum("writes"));
  return { total, perCheckpoint: rows.map((r) => Number(r.n)) };
}

async function expectLinearStorage(store: Checkpointer, query: Query, prefix: string) {
  const graph = chat(store);
  const threadId = `growth-${randomUUID()}`;
  const config = { configurable: { thread_id: threadId } };
  const done = await graph.invoke({ messages: [], turn: 0 }, { config, recursionLimit: 1000 });
  const messageBytes = JSON.stringify(done.state.messages).length;
  expect(done.state.messages).toHaveLength(STEPS);

  const { total, perCheckpoint } = await storedBytes(query, prefix, threadId);
  expect(total).toBeLessThanOrEqual(2 * messageBytes);
  // Flat: the last checkpoints cost what the early ones did (the list keeps growing).
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  expect(mean(perCheckpoint.slice(-20))).toBeLessThan(1.2 * mean(perCheckpoint.slice(10, 30)));

  // Every checkpoint reads its own conversation so far.
  const history = await store.list(threadId);
  for (const c of history) {
    expect(((c.values.messages as unknown[] | undefined) ?? []).length).toBe(c.values.turn ?? 0);
  }

  // A fork from the middle carries on from there, exactly.
  const middle = history.find((c) => c.values.turn === STEPS / 2)!;
  const fork = await graph.invoke(
    { messages: [{ id: "fork", role: "human", content: "a fork" }] },
    {
      config: { configurable: { thread_id: threadId, checkpoint_id: middle.id } },
      recursionLimit: 1000,
    },
  );
  expect(fork.state.messages.slice(0, STEPS / 2)).toEqual(done.state.messages.slice(0, STEPS / 2));
  expect(fork.state.messages[STEPS / 2]).toEqual({ id: "fork", role: "human", content: "a fork" });
  expect((await store.getLatest(threadId))?.checkpoint.values).toEqual(fork.state);
}

describe("storage grows with the conversation, not its square", () => {
  it("PGlite: 1 KB appended per step stores at most twice the messages' bytes, flat per checkpoint", async () => {
    const db = new PGlite("memory://");
    const store = new PGliteCheckpointer({ db });
    const query: Query = async (text, params) =>
      (await db.query<Record<string, unknown>>(text, params)).rows;
    try {
      await expectLinearStorage(store, query, "stateweaver_");
    } finally {
      await store.close();
      await db.close();
    }
  });

  it("a damaged or missing channel value is refused with CorruptCheckpointError naming the channel; earlier checkpoints still read", async () => {
    const db = new PGlite("memory://");
    const store = new PGliteCheckpointer({ db });
    try {
      const graph = chat(store);
      const threadId = `damage-${randomUUID()}`;
      const config = { configurable: { thread_id: threadId } };
      await graph.invoke({ messages: [], turn: STEPS - 5 }, { config, recursionLimit: 100 });
      const history = await store.list(threadId);
      const [latest, previous] = history;
      await db.query(
        `update stateweaver_channel_values set payload = '[{' where thread_id = $1 and channel = 'messages' and version = $2`,
        [threadId, latest!.id],
      );
      const damaged = await store.getLatest(threadId).catch((e: unknown) => e);
      expect(damaged).toBeInstanceOf(CorruptCheckpointError);
      expect((damaged as Error).message).toMatch(/channel "messages".*not valid JSON/);
      expect((await store.get(threadId, "", previous!.id))?.checkpoint).toEqual(previous);

      await db.query(
        `delete from stateweaver_channel_values where thread_id = $1 and channel = 'messages' and version = $2`,
        [threadId, previous!.id],
      );
      const missing = await store.get(threadId, "", previous!.id).catch((e: unknown) => e);
      expect(missing).toBeInstanceOf(CorruptCheckpointError);
      expect((missing as Error).message).toMatch(/channel "messages" at version .* is missing/);
      await store.deleteThread(threadId);
      expect(await store.list(threadId)).toEqual([]);
    } finally {
      await store.close();
      await db.close();
    }
  });

  // Runs against a real server only: STATEWEAVER_PG_URL=postgres://postgres@127.0.0.1:5432/test
  const url = process.env.STATEWEAVER_PG_URL;
  describe.skipIf(!url)("PostgreSQL", () => {
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    const prefix = `sw_growth_${randomUUID().slice(0, 8)}_`;
    afterAll(async () => {
      await dropStoreTables(pool, prefix);
      await pool.end();
    });

    it("1 KB appended per step stores at most twice the messages' bytes, flat per checkpoint", async () => {
      const store = new PostgresCheckpointer({ pool, tablePrefix: prefix });
      const query: Query = async (text, params) => (await pool.query(text, params)).rows;
      try {
        await expectLinearStorage(store, query, prefix);
      } finally {
        await store.close();
      }
    });
  });
});
