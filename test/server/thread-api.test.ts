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

type Chunk = { id?: string; event: string; data: any };

/**
 * Reads `threads.joinStream` until `enough` says so, then closes it (the stream itself
 * stays open for ever, as LangGraph's does).
 */
async function joined(
  client: Client<any>,
  threadId: string,
  enough: (chunks: Chunk[]) => boolean,
  options: { lastEventId?: string; streamMode?: any } = {},
): Promise<Chunk[]> {
  const stop = new AbortController();
  const chunks: Chunk[] = [];
  try {
    for await (const chunk of client.threads.joinStream(threadId, {
      ...options,
      signal: stop.signal,
    })) {
      chunks.push(chunk);
      if (enough(chunks)) break;
    }
  } finally {
    stop.abort();
  }
  return chunks;
}

const isRunDone = (c: Chunk) => c.event === "metadata" && c.data?.status === "run_done";
const runsDone = (n: number) => (chunks: Chunk[]) => chunks.filter(isRunDone).length >= n;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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
  it.skipIf(!enabled)(
    "threads.joinStream relays the active run, then each run that starts while joined",
    async () => {
      const thread = await client.threads.create();
      const id = thread.thread_id;
      const listening = server!.server.context.events.listenerCount;
      const watching = joined(client, id, runsDone(2), { streamMode: "run_modes" });
      // Joined once the stream listens for the thread's new runs.
      while (server!.server.context.events.listenerCount === listening) await sleep(10);
      const first = await client.runs.create(id, "notes", { input: { word: "one", slow: 300 } });
      const second = await client.runs.create(id, "notes", {
        input: { word: "two" },
        multitaskStrategy: "enqueue",
      });
      const chunks = await watching;
      const byRun = (runId: string) => chunks.filter((c) => c.id?.startsWith(`${runId}:`));
      for (const [run, words] of [
        [first, ["one"]],
        [second, ["one", "two"]],
      ] as const) {
        const own = byRun(run.run_id);
        expect(own[0]).toEqual({
          id: `${run.run_id}:0`,
          event: "metadata",
          data: { run_id: run.run_id, attempt: 1 },
        });
        expect(own.at(-1)).toEqual({
          id: `${run.run_id}:done`,
          event: "metadata",
          data: { status: "run_done", run_id: run.run_id },
        });
        expect(own.filter((c) => c.event === "values").at(-1)?.data).toMatchObject({ words });
      }
      // One run after the other, each whole.
      expect(chunks).toEqual([...byRun(first.run_id), ...byRun(second.run_id)]);

      // Resumed after the first run's metadata: the rest of that run, then the next.
      const resumed = await joined(client, id, runsDone(2), {
        lastEventId: `${first.run_id}:0`,
        streamMode: "run_modes",
      });
      expect(resumed).toEqual(chunks.slice(1));
      // "-" replays every run kept; after a run_done, the next run.
      expect(
        await joined(client, id, runsDone(2), {
          lastEventId: "-",
          streamMode: "run_modes",
        }),
      ).toEqual(chunks);
      expect(
        await joined(client, id, runsDone(1), {
          lastEventId: `${first.run_id}:done`,
          streamMode: "run_modes",
        }),
      ).toEqual(byRun(second.run_id));
    },
  );

  it.skipIf(!enabled)(
    "threads.joinStream modes: lifecycle is each run's start and run_done, state_update the updates outside runs",
    async () => {
      const thread = await client.threads.create();
      const run = await client.runs.create(thread.thread_id, "notes", { input: { word: "w" } });
      await client.runs.join(thread.thread_id, run.run_id);
      const lifecycle = await joined(client, thread.thread_id, runsDone(1), {
        lastEventId: "-",
        streamMode: "lifecycle",
      });
      expect(lifecycle.map((c) => c.data)).toEqual([
        { run_id: run.run_id, attempt: 1 },
        { status: "run_done", run_id: run.run_id },
      ]);

      const listening = server!.server.context.stateUpdates.listening(thread.thread_id);
      expect(listening).toBe(false);
      const watching = joined(client, thread.thread_id, (chunks) => chunks.length >= 1, {
        streamMode: "state_update",
      });
      while (!server!.server.context.stateUpdates.listening(thread.thread_id)) await sleep(10);
      await client.threads.updateState(thread.thread_id, { values: { words: ["edited"] } });
      const [update] = await watching;
      const state = await client.threads.getState(thread.thread_id);
      expect(update).toEqual({
        id: undefined,
        event: "state_update",
        data: { state, thread_id: thread.thread_id },
      });
      expect(state.values).toMatchObject({ words: ["edited"] });
    },
  );

  it.skipIf(!enabled)(
    "threads.joinStream answers with its own Location, where the SDK reconnects with Last-Event-ID",
    async () => {
      const thread = await client.threads.create();
      const stop = new AbortController();
      const res = await fetch(`${server!.url}/threads/${thread.thread_id}/stream`, {
        signal: stop.signal,
      });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
      expect(res.headers.get("location")).toBe(`/threads/${thread.thread_id}/stream`);
      stop.abort();
      await res.body?.cancel().catch(() => undefined);
    },
  );

  it.skipIf(!enabled)("threads.joinStream refuses what it cannot join, saying why", async () => {
    const thread = await client.threads.create();
    const first = (options: { lastEventId?: string; streamMode?: any }) =>
      joined(client, thread.thread_id, () => true, options);
    await expect(first({ streamMode: "values" })).rejects.toThrow(/HTTP 422: .*no mode "values"/s);
    await expect(first({ lastEventId: "17" })).rejects.toThrow(
      /HTTP 422: .*Last-Event-ID "17" is not an id/s,
    );
    await expect(first({ lastEventId: "no-such-run:3" })).rejects.toThrow(/HTTP 404/);
    await expect(joined(client, crypto.randomUUID(), () => true)).rejects.toThrow(/HTTP 404/);
  });
});
