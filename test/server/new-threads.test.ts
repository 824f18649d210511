import { Client } from "@langchain/langgraph-sdk";
import { describe, expect, it } from "vitest";
import { startServer, tempDataDir } from "./fixtures/server.js";

// Threads made with POST /threads are stored at once, before anything runs on them.
describe("a thread made with POST /threads that has not run yet", () => {
  it("is found after a restart, by id and by search, and its first run keeps its metadata", async () => {
    const data = await tempDataDir();
    try {
      const firstStore = data.open();
      const first = await startServer({ checkpointer: firstStore });
      const made = await new Client({ apiUrl: first.url }).threads.create({
        metadata: { ticket: "NEW-1" },
      });
      expect(made).toMatchObject({ status: "idle", metadata: { ticket: "NEW-1" } });
      await first.stop();
      await firstStore.close();

      const secondStore = data.open();
      const second = await startServer({ checkpointer: secondStore });
      try {
        const client = new Client({ apiUrl: second.url });
        const again = await client.threads.get(made.thread_id);
        expect(again).toMatchObject({ status: "idle", metadata: { ticket: "NEW-1" } });
        expect(again.created_at).toBe(made.created_at);
        const found = await client.threads.search({ metadata: { ticket: "NEW-1" } });
        expect(found.map((t) => t.thread_id)).toEqual([made.thread_id]);
        expect(await client.threads.getHistory(made.thread_id)).toEqual([]);
        // Made twice: refused, or the existing one with do_nothing.
        await expect(client.threads.create({ threadId: made.thread_id })).rejects.toThrow(
          /already exists/,
        );
        const same = await client.threads.create({
          threadId: made.thread_id,
          ifExists: "do_nothing",
        });
        expect(same.thread_id).toBe(made.thread_id);

        const paused = (await client.runs.wait(made.thread_id, "question", {
          input: { question: "Proceed?" },
        })) as { __interrupt__?: unknown[] };
        expect(paused.__interrupt__).toHaveLength(1);
        const [interrupted] = await client.threads.search({
          status: "interrupted",
          metadata: { ticket: "NEW-1" },
        });
        expect(interrupted?.thread_id).toBe(made.thread_id);
        expect(interrupted?.created_at).toBe(made.created_at);
      } finally {
        await second.stop();
        await secondStore.close();
      }
    } finally {
      await data.dispose();
    }
  });

  it.each(["memory", "PGlite"])(
    "made by a run's if_not_exists on %s, it is found while that run waits: a second run on it is queued, not a 404",
    async (store) => {
      const data = store === "PGlite" ? await tempDataDir() : undefined;
      const running = await startServer(data ? { checkpointer: data.open() } : {});
      try {
        const client = new Client({ apiUrl: running.url });
        const threadId = crypto.randomUUID();
        const first = await client.runs.create(threadId, "question", {
          input: { question: "Later?" },
          ifNotExists: "create",
          afterSeconds: 30,
        });
        expect((await client.threads.get(threadId)).thread_id).toBe(threadId);
        const second = await client.runs.create(threadId, "question", {
          input: { question: "Now?" },
          multitaskStrategy: "enqueue",
        });
        expect((await client.runs.list(threadId)).map((r) => r.run_id).sort()).toEqual(
          [first.run_id, second.run_id].sort(),
        );
        await client.runs.cancel(threadId, first.run_id);
        await client.runs.cancel(threadId, second.run_id);
      } finally {
        await running.stop();
        await running.checkpointer.close?.();
        await data?.dispose();
      }
    },
  );
});
