// The rest of the SDK's thread API (issue 26), through the official SDK client, on PGlite
// (with the in-process run queue) and on PostgreSQL (with the PostgreSQL run queue).
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { END, Graph, START } from "../../src/index.js";
import { type RunningServer, startServer } from "./fixtures/server.js";
import { serverStores } from "./fixtures/server-stores.js";

vi.setConfig({ testTimeout: 60_000 });

/** Notes each word it is given, one step per run; `slow` makes the step take a while. */
const notes = () =>
  new Graph<{ words: string[]; slow: number }>({
    name: "notes",
    state: z.object({
      words: z.array(z.string()).default([]),
      slow: z.number().default(0),
      word: z.string().optional(),
    }),
  })
    .addNode("note", async (s: { words: string[]; slow: number; word?: string }) => {
      if (s.slow > 0) await new Promise((resolve) => setTimeout(resolve, s.slow));
      return { words: [...s.words, s.word ?? "?"] };
    })
    .addEdge(START, "note")
    .addEdge("note", END)
    .compile();

describe.each(serverStores)("the thread API's last routes, on %s", (_name, enabled, open) => {
  let server: RunningServer | undefined;
  let dispose: (() => Promise<void>) | undefined;
  let client: Client<any>;
  beforeAll(async () => {
    if (!enabled) return;
    const store = await open();
    dispose = store.dispose;
    server = await startServer({
      graphs: { notes: notes() },
      checkpointer: store.checkpointer,
      ...(store.queue && { queue: store.queue }),
    });
    client = new Client<any>({ apiUrl: server.url });
  });
  afterAll(async () => {
    await server?.stop();
    await dispose?.();
  });

  it.skipIf(!enabled)(
    "threads.search extract picks values and metadata by path into `extracted`",
    async () => {
      const thread = await client.threads.create({ metadata: { owner: { name: "ana" } } });
      await client.runs.wait(thread.thread_id, "notes", { input: { word: "one" } });
      await client.runs.wait(thread.thread_id, "notes", { input: { word: "two" } });
      const [found] = await client.threads.search({
        ids: [thread.thread_id],
        select: ["thread_id"],
        extract: {
          last: "values.words[-1]",
          first: "values.words[0]",
          owner: "metadata.owner.name",
          missing: "values.words[5]",
        },
      });
      expect(found).toEqual({
        thread_id: thread.thread_id,
        extracted: { last: "two", first: "one", owner: "ana", missing: null },
      });
      // Without extract, no `extracted` field.
      const [plain] = await client.threads.search({ ids: [thread.thread_id] });
      expect(plain).not.toHaveProperty("extracted");
    },
  );

  it.skipIf(!enabled)(
    "threads.search refuses an extract that is not paths, saying why",
    async () => {
      const tooMany = Object.fromEntries(
        Array.from({ length: 11 }, (_, i) => [`a${i}`, "values.words"]),
      );
      await expect(client.threads.search({ extract: tooMany })).rejects.toThrow(
        /HTTP 400: .*at most 10 paths/s,
      );
      await expect(client.threads.search({ extract: { bad: "values..words" } })).rejects.toThrow(
        /extract\.bad.*not a path into the thread/s,
      );
      await expect(client.threads.search({ extract: { all: "values.words[*]" } })).rejects.toThrow(
        /extract\.all.*\[n\] or \[-n\]/s,
      );
    },
  );
  it.skipIf(!enabled)(
    "threads.patchState merges metadata into the latest checkpoint's; values and history stay",
    async () => {
      const thread = await client.threads.create();
      await client.runs.wait(thread.thread_id, "notes", { input: { word: "one" } });
      await client.runs.wait(thread.thread_id, "notes", { input: { word: "two" } });
      const before = await client.threads.getState(thread.thread_id);
      const historyBefore = await client.threads.getHistory(thread.thread_id);
      await client.threads.patchState(thread.thread_id, { reviewed: true, by: "ana" });
      // The SDK also takes a config naming the thread.
      await client.threads.patchState(
        { configurable: { thread_id: thread.thread_id } },
        { by: "bo" },
      );
      const after = await client.threads.getState(thread.thread_id);
      expect(after).toEqual({
        ...before,
        metadata: { ...before.metadata, reviewed: true, by: "bo" },
      });
      const historyAfter = await client.threads.getHistory(thread.thread_id);
      expect(historyAfter.slice(1)).toEqual(historyBefore.slice(1));
      expect(historyAfter.map((s) => s.checkpoint.checkpoint_id)).toEqual(
        historyBefore.map((s) => s.checkpoint.checkpoint_id),
      );
      // Found by the metadata it was given, as any checkpoint's.
      const found = await client.threads.getHistory(thread.thread_id, {
        metadata: { reviewed: true },
      });
      expect(found.map((s) => s.checkpoint.checkpoint_id)).toEqual([
        before.checkpoint.checkpoint_id,
      ]);
    },
  );

  it.skipIf(!enabled)(
    "threads.patchState refuses what it cannot patch, writing nothing",
    async () => {
      const thread = await client.threads.create();
      await expect(client.threads.patchState(thread.thread_id, { x: 1 })).rejects.toThrow(
        /HTTP 409: .*no checkpoint yet/s,
      );
      await client.runs.wait(thread.thread_id, "notes", { input: { word: "one" } });
      const before = await client.threads.getState(thread.thread_id);
      await expect(client.threads.patchState(thread.thread_id, { step: 7 })).rejects.toThrow(
        /HTTP 400: .*"step" is the runtime's own/s,
      );
      await expect(client.threads.patchState(crypto.randomUUID(), { x: 1 })).rejects.toThrow(
        /HTTP 404/,
      );
      expect(await client.threads.getState(thread.thread_id)).toEqual(before);
    },
  );
});
