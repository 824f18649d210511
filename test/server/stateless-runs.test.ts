import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, startServer } from "./fixtures/server.js";
import { type ServerStore, serverStores } from "./fixtures/server-stores.js";

// Runs without a thread, through the official SDK client, on PGlite and on PostgreSQL.
// PGlite on a machine shared with other work: its first run can take seconds.
describe.each(serverStores)("stateless runs on %s", { timeout: 60_000 }, (_name, enabled, open) => {
  let running: RunningServer;
  let store: ServerStore;
  let client: Client;
  beforeAll(async () => {
    if (!enabled) return;
    store = await open();
    running = await startServer({
      checkpointer: store.checkpointer,
      ...(store.queue && { queue: store.queue }),
    });
    client = new Client({ apiUrl: running.url });
  }, 60_000);
  afterAll(async () => {
    if (!enabled) return;
    await running.stop();
    await store.dispose();
  });

  const threadsNow = async () => (await client.threads.search({ limit: 100 })).length;

  it.skipIf(!enabled)(
    "waits for a run on a thread of its own and deletes that thread afterwards",
    async () => {
      const before = await threadsNow();
      const values = await client.runs.wait(null, "stepper", { input: { n: 1 } });
      expect(values).toEqual({ n: 2 });
      expect(await threadsNow()).toBe(before);
    },
  );

  it.skipIf(!enabled)(
    "keeps the thread when on_completion is keep, where the run left it",
    async () => {
      const run = await client.runs.create(null, "stepper", {
        input: { n: 5 },
        // The API's values are "delete" and "keep"; the SDK 1.15 types name others.
        onCompletion: "keep" as never,
      });
      await client.runs.join(run.thread_id, run.run_id);
      const state = await client.threads.getState(run.thread_id);
      expect(state.values).toEqual({ n: 6 });
      expect(state.next).toEqual(["publish"]);
    },
  );

  it.skipIf(!enabled)(
    "streams a run and starts a batch of runs, each on its own thread",
    async () => {
      const events = [];
      for await (const part of client.runs.stream(null, "question", {
        input: { question: "Name?" },
        streamMode: "updates",
      }))
        events.push(part);
      expect(events.map((e) => e.event)).toEqual(["metadata", "updates"]);
      expect(events[1]!.data).toMatchObject({
        __interrupt__: [{ value: { question: "Name?" }, resumable: true }],
      });

      // createBatch sends each payload's keys as given, apart from assistantId.
      const batch = await client.runs.createBatch([
        { assistantId: "stepper", input: { n: 1 }, on_completion: "keep" },
        { assistantId: "stepper", input: { n: 10 }, on_completion: "keep" },
      ] as never);
      expect(new Set(batch.map((r) => r.thread_id)).size).toBe(2);
      for (const run of batch) await client.runs.join(run.thread_id, run.run_id);
      const ns = await Promise.all(
        batch.map(async (r) => (await client.threads.getState(r.thread_id)).values),
      );
      expect(ns).toEqual([{ n: 2 }, { n: 11 }]);
    },
  );

  it.skipIf(!enabled)(
    "refuses an unknown assistant with a 404 that names the hosted graphs",
    async () => {
      await expect(client.runs.wait(null, "nope", { input: {} })).rejects.toThrow(
        /HTTP 404: No assistant found for "nope".*ops, question, stepper, pair/,
      );
    },
  );
});
