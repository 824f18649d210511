import { describe, expect, it } from "vitest";
import { serverOnStore, serverStores } from "./fixtures/server-stores.js";

// Runs without a thread, through the official SDK client, on PGlite and on PostgreSQL.
// PGlite on a machine shared with other work: its first run can take seconds.
describe.each(serverStores)("stateless runs on %s", { timeout: 60_000 }, (_name, enabled, open) => {
  const on = serverOnStore(enabled, open);

  const threadsNow = async () => (await on.client.threads.search({ limit: 100 })).length;

  it.skipIf(!enabled)(
    "waits for a run on a thread of its own and deletes that thread afterwards",
    async () => {
      const before = await threadsNow();
      const values = await on.client.runs.wait(null, "stepper", { input: { n: 1 } });
      expect(values).toEqual({ n: 2 });
      expect(await threadsNow()).toBe(before);
    },
  );

  it.skipIf(!enabled)(
    "keeps the thread when on_completion is keep, where the run left it",
    async () => {
      const run = await on.client.runs.create(null, "stepper", {
        input: { n: 5 },
        // The API's values are "delete" and "keep"; the SDK 1.15 types name others.
        onCompletion: "keep" as never,
      });
      await on.client.runs.join(run.thread_id, run.run_id);
      const state = await on.client.threads.getState(run.thread_id);
      expect(state.values).toEqual({ n: 6 });
      expect(state.next).toEqual(["publish"]);
    },
  );

  it.skipIf(!enabled)(
    "streams a run and starts a batch of runs, each on its own thread",
    async () => {
      const events = [];
      for await (const part of on.client.runs.stream(null, "question", {
        input: { question: "Name?" },
        streamMode: "updates",
      }))
        events.push(part);
      expect(events.map((e) => e.event)).toEqual(["metadata", "updates"]);
      expect(events[1]!.data).toMatchObject({
        __interrupt__: [{ value: { question: "Name?" }, resumable: true }],
      });

      // createBatch sends each payload's keys as given, apart from assistantId.
      const batch = await on.client.runs.createBatch([
        { assistantId: "stepper", input: { n: 1 }, on_completion: "keep" },
        { assistantId: "stepper", input: { n: 10 }, on_completion: "keep" },
      ] as never);
      expect(new Set(batch.map((r) => r.thread_id)).size).toBe(2);
      for (const run of batch) await on.client.runs.join(run.thread_id, run.run_id);
      const ns = await Promise.all(
        batch.map(async (r) => (await on.client.threads.getState(r.thread_id)).values),
      );
      expect(ns).toEqual([{ n: 2 }, { n: 11 }]);
    },
  );

  it.skipIf(!enabled)(
    "refuses an unknown assistant with a 404 that names the hosted graphs",
    async () => {
      await expect(on.client.runs.wait(null, "nope", { input: {} })).rejects.toThrow(
        /HTTP 404: No assistant found for "nope".*ops, question, stepper, pair/,
      );
    },
  );
});
