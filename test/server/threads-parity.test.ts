// Threads and runs (and assistants' pages) as LangGraph's server answers them, through the
// official SDK client, on PGlite (with the in-process run queue) and on PostgreSQL (with the
// PostgreSQL run queue).
import { randomUUID } from "node:crypto";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { type Checkpointer, PostgresCheckpointer } from "../../src/checkpoint/index.js";
import { END, Graph, START } from "../../src/index.js";
import { PostgresRunQueue } from "../../src/runs/index.js";
import { dropDeploymentTables } from "../setup/store-tables.js";
import { type RunningServer, startServer, tempDataDir } from "./fixtures/server.js";

vi.setConfig({ testTimeout: 60_000 });

/** Counts to `until`, one step per loop; each step notes the `tone` its config carried. */
const counter = () =>
  new Graph<{ n: number; until: number; tones: string[] }>({
    name: "counter",
    state: z.object({
      n: z.number().default(0),
      until: z.number().default(3),
      tones: z.array(z.string()).default([]),
    }),
  })
    .addNode("count", (s, runtime) => ({
      n: s.n + 1,
      tones: [...s.tones, String(runtime.config.configurable?.tone ?? "none")],
    }))
    .addEdge(START, "count")
    .addConditionalEdges("count", (s) => (s.n >= s.until ? END : "count"))
    .compile();

/** Ticks until `until`, a short pause per step: long enough a run to stop on the way. */
const ticker = () =>
  new Graph<{ n: number; until: number }>({
    name: "ticker",
    state: z.object({ n: z.number().default(0), until: z.number().default(1) }),
  })
    .addNode("tick", async (s) => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      return { n: s.n + 1 };
    })
    .addEdge(START, "tick")
    .addConditionalEdges("tick", (s) => (s.n >= s.until ? END : "tick"))
    .compile();
const graphs = () => ({ counter: counter(), ticker: ticker() });

const pgUrl = process.env.STATEWEAVER_PG_URL;
const tablePrefix = `sw_tp_${randomUUID().slice(0, 8)}_`;

const setups: Array<
  [string, boolean, () => Promise<{ server: RunningServer; done(): Promise<void> }>]
> = [
  [
    "PGlite",
    true,
    async () => {
      const dir = await tempDataDir();
      const server = await startServer({
        graphs: graphs(),
        checkpointer: dir.open(),
      });
      return { server, done: dir.dispose };
    },
  ],
  [
    "PostgreSQL",
    Boolean(pgUrl),
    async () => {
      const checkpointer: Checkpointer = new PostgresCheckpointer({
        connectionString: pgUrl!,
        tablePrefix,
      });
      const queue = await PostgresRunQueue.open({ connectionString: pgUrl!, tablePrefix });
      const server = await startServer({ graphs: graphs(), checkpointer, queue });
      return {
        server,
        done: async () => {
          await checkpointer.close?.();
          await dropDeploymentTables(pgUrl!, tablePrefix);
        },
      };
    },
  ],
];

describe.each(setups)("threads and runs as LangGraph's server, on %s", (_name, enabled, open) => {
  let running: { server: RunningServer; done(): Promise<void> } | undefined;
  let client: Client<any>;
  beforeAll(async () => {
    if (!enabled) return;
    running = await open();
    client = new Client<any>({ apiUrl: running.server.url });
  });
  afterAll(async () => {
    await running?.server.stop();
    await running?.done();
  });
  const scope = () => ({ scope: randomUUID() });

  it.skipIf(!enabled)(
    "threads.update merges metadata into the thread, before and after runs",
    async () => {
      const thread = await client.threads.create({ metadata: { owner: "ana", stage: "new" } });
      const updated = await client.threads.update(thread.thread_id, {
        metadata: { stage: "triage" },
      });
      expect(updated.metadata).toEqual({ owner: "ana", stage: "triage" });
      await client.runs.wait(thread.thread_id, "counter", { input: { until: 1 } });
      await client.threads.update(thread.thread_id, { metadata: { flag: true } });
      const read = await client.threads.get(thread.thread_id);
      expect(read.metadata).toMatchObject({ owner: "ana", stage: "triage", flag: true });
      expect(read.values).toMatchObject({ n: 1 });
      await expect(client.threads.update(randomUUID(), { metadata: { a: 1 } })).rejects.toThrow(
        "HTTP 404",
      );
    },
  );

  it.skipIf(!enabled)(
    "threads.count counts the threads matching metadata, status and values",
    async () => {
      const metadata = scope();
      const done = await client.threads.create({ metadata });
      await client.runs.wait(done.thread_id, "counter", { input: { until: 2 } });
      await client.threads.create({ metadata });
      expect(await client.threads.count({ metadata })).toBe(2);
      expect(await client.threads.count({ metadata, values: { n: 2 } })).toBe(2); // the unrun one has no values yet
      expect(await client.threads.count({ metadata, values: { n: 5 } })).toBe(1);
      expect(await client.threads.count({ metadata, status: "interrupted" })).toBe(0);
    },
  );

  it.skipIf(!enabled)(
    "threads.search sorts by created_at and thread_id both ways, filters by values, and selects fields",
    async () => {
      const metadata = scope();
      const first = await client.threads.create({ metadata });
      const second = await client.threads.create({ metadata });
      // The first is written to last: by update time it comes first, by creation time last.
      await client.runs.wait(first.thread_id, "counter", { input: { until: 1 } });
      const ids = async (q: Parameters<typeof client.threads.search>[0]) =>
        (await client.threads.search({ metadata, ...q })).map((t) => t.thread_id);
      expect(await ids({})).toEqual([first.thread_id, second.thread_id]);
      expect(await ids({ sortBy: "created_at", sortOrder: "asc" })).toEqual([
        first.thread_id,
        second.thread_id,
      ]);
      expect(await ids({ sortBy: "created_at", sortOrder: "desc" })).toEqual([
        second.thread_id,
        first.thread_id,
      ]);
      expect(await ids({ sortBy: "updated_at", sortOrder: "asc" })).toEqual([
        second.thread_id,
        first.thread_id,
      ]);
      const byId = [first.thread_id, second.thread_id].sort();
      expect(await ids({ sortBy: "thread_id", sortOrder: "asc" })).toEqual(byId);
      expect(await ids({ sortBy: "thread_id", sortOrder: "desc" })).toEqual([...byId].reverse());
      expect(await ids({ sortBy: "created_at", sortOrder: "asc", offset: 1, limit: 1 })).toEqual([
        second.thread_id,
      ]);
      expect(await ids({ values: { n: 1 }, sortBy: "created_at", sortOrder: "asc" })).toEqual([
        first.thread_id,
        second.thread_id,
      ]);
      expect(await ids({ values: { n: 9 } })).toEqual([second.thread_id]);
      const [selected] = await client.threads.search({
        metadata,
        select: ["thread_id", "status"],
        limit: 1,
      });
      expect(selected).toEqual({ thread_id: first.thread_id, status: "idle" });
    },
  );

  it.skipIf(!enabled)(
    "history keeps the checkpoints of the run whose metadata it filters by; a checkpoint names one",
    async () => {
      const thread = await client.threads.create();
      await client.runs.wait(thread.thread_id, "counter", { input: { until: 1 } });
      await client.runs.wait(thread.thread_id, "counter", {
        input: { until: 2 },
        metadata: { batch: "second" },
      });
      const all = await client.threads.getHistory(thread.thread_id, { limit: 100 });
      const second = await client.threads.getHistory(thread.thread_id, {
        limit: 100,
        metadata: { batch: "second" },
      });
      expect(second.length).toBeGreaterThan(0);
      expect(second.length).toBeLessThan(all.length);
      expect(second.every((s) => s.metadata?.batch === "second")).toBe(true);
      expect(all.filter((s) => s.metadata?.batch === "second")).toEqual(second);
      const limited = await client.threads.getHistory(thread.thread_id, {
        limit: 1,
        metadata: { batch: "second" },
      });
      expect(limited).toEqual(second.slice(0, 1));
      const oldest = all.at(-1)!;
      const named = await client.threads.getHistory(thread.thread_id, {
        checkpoint: { checkpoint_id: oldest.checkpoint.checkpoint_id },
      });
      expect(named).toEqual([oldest]);
    },
  );

  it.skipIf(!enabled)(
    "threads.prune deletes whole threads, or keeps only their latest checkpoint",
    async () => {
      const gone = await client.threads.create();
      const kept = await client.threads.create();
      for (const t of [gone, kept]) {
        await client.runs.wait(t.thread_id, "counter", { input: { until: 2 } });
      }
      expect(await client.threads.prune([gone.thread_id, randomUUID()])).toEqual({
        pruned_count: 1,
      });
      await expect(client.threads.get(gone.thread_id)).rejects.toThrow("HTTP 404");
      const state = await client.threads.getState(kept.thread_id);
      expect(await client.threads.prune([kept.thread_id], { strategy: "keep_latest" })).toEqual({
        pruned_count: 1,
      });
      expect(await client.threads.getHistory(kept.thread_id)).toHaveLength(1);
      expect(await client.threads.getState(kept.thread_id)).toEqual(state);
    },
  );

  it.skipIf(!enabled)(
    "config.configurable reaches the nodes, and recursion_limit stops the run with GraphRecursionError",
    async () => {
      const thread = await client.threads.create();
      const values = await client.runs.wait(thread.thread_id, "counter", {
        input: { until: 2 },
        config: { configurable: { tone: "warm", thread_id: "not this one" } },
      });
      expect(values).toMatchObject({ n: 2, tones: ["warm", "warm"] });

      const looping = await client.threads.create();
      await expect(
        client.runs.wait(looping.thread_id, "counter", {
          input: { until: 50 },
          config: { recursion_limit: 3 },
        }),
      ).rejects.toThrow(/GraphRecursionError/);
      expect((await client.threads.get(looping.thread_id)).status).toBe("error");
    },
  );

  it.skipIf(!enabled)("a run given a checkpoint object starts from that checkpoint", async () => {
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, "counter", { input: { until: 3 } });
    const history = await client.threads.getHistory(thread.thread_id, { limit: 100 });
    const afterOne = history.find((s) => (s.values as { n?: number }).n === 1 && s.next.length)!;
    await client.runs.wait(thread.thread_id, "counter", {
      input: null,
      checkpoint: afterOne.checkpoint,
      config: { configurable: { tone: "forked" } },
    });
    const state = await client.threads.getState(thread.thread_id);
    expect(state.values).toMatchObject({ n: 3, tones: ["none", "forked", "forked"] });
    expect(state.parent_checkpoint?.checkpoint_id).not.toBe(history[0]!.checkpoint.checkpoint_id);
  });

  it.skipIf(!enabled)(
    "after_seconds keeps a run pending, its thread busy, until it falls due; cancelled, it reads interrupted",
    async () => {
      const thread = await client.threads.create();
      const later = await client.runs.create(thread.thread_id, "counter", {
        input: { until: 1 },
        afterSeconds: 600,
      });
      expect(later.status).toBe("pending");
      expect((await client.runs.get(thread.thread_id, later.run_id)).status).toBe("pending");
      expect((await client.threads.get(thread.thread_id)).status).toBe("busy");
      await expect(
        client.runs.create(thread.thread_id, "counter", { input: { until: 1 } }),
      ).rejects.toThrow("HTTP 409");
      await client.runs.cancel(thread.thread_id, later.run_id, true);
      expect((await client.runs.get(thread.thread_id, later.run_id)).status).toBe("interrupted");
      expect(await client.runs.list(thread.thread_id, { status: "interrupted" })).toHaveLength(1);

      const soon = await client.runs.create(thread.thread_id, "counter", {
        input: { until: 1 },
        afterSeconds: 0.2,
      });
      await client.runs.join(thread.thread_id, soon.run_id);
      expect((await client.runs.get(thread.thread_id, soon.run_id)).status).toBe("success");
      expect((await client.threads.getState(thread.thread_id)).values).toMatchObject({ n: 1 });
    },
  );

  it.skipIf(!enabled)(
    "a rolled-back run is deleted, as LangGraph does; runs.delete forgets an ended run",
    async () => {
      const thread = await client.threads.create();
      const doomed = await client.runs.create(thread.thread_id, "counter", {
        input: { until: 1 },
        afterSeconds: 600,
      });
      const next = await client.runs.create(thread.thread_id, "counter", {
        input: { until: 1 },
        multitaskStrategy: "rollback",
      });
      await client.runs.join(thread.thread_id, next.run_id);
      await vi.waitFor(
        () => expect(client.runs.get(thread.thread_id, doomed.run_id)).rejects.toThrow("HTTP 404"),
        { timeout: 20_000 },
      );
      const other = await client.runs.create(thread.thread_id, "counter", {
        input: { until: 1 },
        afterSeconds: 600,
      });
      await client.runs.cancel(thread.thread_id, other.run_id, true, "rollback");
      await expect(client.runs.get(thread.thread_id, other.run_id)).rejects.toThrow("HTTP 404");

      await client.runs.delete(thread.thread_id, next.run_id);
      await expect(client.runs.get(thread.thread_id, next.run_id)).rejects.toThrow("HTTP 404");
      const pending = await client.runs.create(thread.thread_id, "counter", {
        input: { until: 1 },
        afterSeconds: 600,
      });
      await expect(client.runs.delete(thread.thread_id, pending.run_id)).rejects.toThrow(
        "HTTP 409",
      );
      await client.runs.cancel(thread.thread_id, pending.run_id, true);
    },
  );

  it.skipIf(!enabled)(
    'on_disconnect "cancel" stops a streamed or waited run when its client goes away',
    async () => {
      const thread = await client.threads.create();
      const gone = new AbortController();
      let runId: string | undefined;
      const stream = client.runs.stream(thread.thread_id, "ticker", {
        input: { until: 10_000 },
        config: { recursion_limit: 20_000 },
        streamMode: "values",
        onDisconnect: "cancel",
        signal: gone.signal,
      });
      // The SDK ends the stream quietly (or with an AbortError) once its signal aborts.
      try {
        for await (const chunk of stream) {
          if (chunk.event === "metadata") runId = (chunk.data as { run_id: string }).run_id;
          if (chunk.event === "values") gone.abort();
        }
      } catch (error) {
        if (!gone.signal.aborted) throw error;
      }
      expect(gone.signal.aborted).toBe(true);
      expect(runId).toBeDefined();
      await vi.waitFor(
        async () =>
          expect((await client.runs.get(thread.thread_id, runId!)).status).toBe("interrupted"),
        { timeout: 30_000, interval: 100 },
      );
      const state = await client.threads.getState(thread.thread_id);
      expect((state.values as { n: number }).n).toBeLessThan(10_000);

      // The same for a wait: the client's request is aborted once the run is working.
      const waiting = await client.threads.create();
      const leave = new AbortController();
      const wait = client.runs
        .wait(waiting.thread_id, "ticker", {
          input: { until: 10_000 },
          config: { recursion_limit: 20_000 },
          onDisconnect: "cancel",
          signal: leave.signal,
        })
        .catch(() => undefined);
      let waited: { run_id: string; status: string } | undefined;
      await vi.waitFor(
        async () => {
          [waited] = await client.runs.list(waiting.thread_id);
          expect(waited?.status).toBe("running");
        },
        { timeout: 30_000, interval: 100 },
      );
      leave.abort();
      await wait;
      await vi.waitFor(
        async () =>
          expect((await client.runs.get(waiting.thread_id, waited!.run_id)).status).toBe(
            "interrupted",
          ),
        { timeout: 30_000, interval: 100 },
      );
    },
  );

  it.skipIf(!enabled)(
    'on_disconnect "cancel" stops a stateless run too when the client of its stream goes away',
    async () => {
      const probe = randomUUID();
      const gone = new AbortController();
      let threadId: string | undefined;
      let runId: string | undefined;
      try {
        for await (const chunk of client.runs.stream(null, "ticker", {
          input: { until: 10_000 },
          config: { recursion_limit: 20_000 },
          metadata: { probe },
          onDisconnect: "cancel",
          signal: gone.signal,
        })) {
          if (chunk.event === "metadata") runId = (chunk.data as { run_id: string }).run_id;
          if (chunk.event !== "values") continue;
          // Its thread of its own, found while the run holds it (it is deleted after).
          threadId = (await client.threads.search({ metadata: { probe } }))[0]?.thread_id;
          gone.abort();
        }
      } catch (error) {
        if (!gone.signal.aborted) throw error;
      }
      await vi.waitFor(
        async () => expect((await client.runs.get(threadId!, runId!)).status).toBe("interrupted"),
        { timeout: 30_000, interval: 100 },
      );
    },
  );

  it.skipIf(!enabled)(
    "runs.joinStream finds a run by its id alone, and with cancelOnDisconnect stops it when left",
    async () => {
      const thread = await client.threads.create();
      const done = await client.runs.create(thread.thread_id, "counter", { input: { until: 2 } });
      await client.runs.join(thread.thread_id, done.run_id);
      const replayed = [];
      for await (const chunk of client.runs.joinStream(null, done.run_id, { lastEventId: "-1" }))
        replayed.push(chunk);
      expect(replayed[0]).toMatchObject({ event: "metadata", data: { run_id: done.run_id } });
      expect(replayed.at(-1)).toMatchObject({ event: "values", data: { n: 2 } });
      await expect(async () => {
        for await (const _ of client.runs.joinStream(null, randomUUID())) break;
      }).rejects.toThrow("HTTP 404");

      const ticking = await client.threads.create();
      const long = await client.runs.create(ticking.thread_id, "ticker", {
        input: { until: 10_000 },
        config: { recursion_limit: 20_000 },
      });
      const leave = new AbortController();
      try {
        for await (const chunk of client.runs.joinStream(null, long.run_id, {
          cancelOnDisconnect: true,
          signal: leave.signal,
        }))
          if (chunk.event === "values") leave.abort();
      } catch (error) {
        if (!leave.signal.aborted) throw error;
      }
      await vi.waitFor(
        async () =>
          expect((await client.runs.get(ticking.thread_id, long.run_id)).status).toBe(
            "interrupted",
          ),
        { timeout: 30_000, interval: 100 },
      );
    },
  );

  it.skipIf(!enabled)(
    "runs.cancelMany cancels the runs it names, or those of a thread pending or running; rollback deletes them",
    async () => {
      const thread = await client.threads.create();
      const later = (multitaskStrategy: "reject" | "enqueue" = "enqueue") =>
        client.runs.create(thread.thread_id, "counter", {
          input: { until: 1 },
          afterSeconds: 600,
          multitaskStrategy,
        });
      const status = async (runId: string) =>
        (await client.runs.get(thread.thread_id, runId)).status;
      const first = await later("reject");
      const second = await later();
      await client.runs.cancelMany({ threadId: thread.thread_id, runIds: [first.run_id] });
      expect([await status(first.run_id), await status(second.run_id)]).toEqual([
        "interrupted",
        "pending",
      ]);
      await expect(
        client.runs.cancelMany({ threadId: thread.thread_id, runIds: [randomUUID()] }),
      ).rejects.toThrow("HTTP 404");
      await expect(client.runs.cancelMany({ threadId: thread.thread_id })).rejects.toThrow(
        "HTTP 400",
      );
      await client.runs.cancelMany({ threadId: thread.thread_id, status: "all" });
      expect(await status(second.run_id)).toBe("interrupted");

      const third = await later();
      await client.runs.cancelMany({
        threadId: thread.thread_id,
        status: "pending",
        action: "rollback",
      });
      await vi.waitFor(
        () => expect(client.runs.get(thread.thread_id, third.run_id)).rejects.toThrow("HTTP 404"),
        { timeout: 20_000 },
      );
    },
  );

  it.skipIf(!enabled)(
    "assistants.search with includePagination says where the next page starts, until the last",
    async () => {
      const metadata = scope();
      for (const name of ["a", "b", "c"])
        await client.assistants.create({ graphId: "counter", name, metadata });
      const first = await client.assistants.search({ metadata, limit: 2, includePagination: true });
      expect(first.assistants).toHaveLength(2);
      expect(first.next).toBe("2");
      const last = await client.assistants.search({
        metadata,
        limit: 2,
        offset: 2,
        includePagination: true,
      });
      expect(last.assistants).toHaveLength(1);
      expect(last.next).toBeNull();
    },
  );

  it.skipIf(!enabled)(
    "input keys the state has not are dropped, as LangGraph drops them",
    async () => {
      const thread = await client.threads.create();
      const values = await client.runs.wait(thread.thread_id, "counter", {
        input: { until: 1, not_a_key: "dropped" },
      });
      expect(values).toEqual({ n: 1, until: 1, tones: ["none"] });
    },
  );
});
