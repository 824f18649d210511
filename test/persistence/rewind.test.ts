/**
 * `rewindThread` under real runs, on every store: a thread rewound to an earlier checkpoint
 * reads exactly as it did then and goes on from there, and a stopped run rolled back with
 * its run id leaves nothing behind, not even the writes of the tasks it finished.
 */
import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Checkpointer,
  MemoryCheckpointer,
  PGliteCheckpointer,
  PostgresCheckpointer,
} from "../../src/checkpoint/index.js";
import {
  AbortError,
  END,
  Graph,
  interrupt,
  RewindTargetNotFoundError,
  START,
} from "../../src/index.js";
import { errorResponse } from "../../src/server/errors.js";
import { dropStoreTables } from "../setup/store-tables.js";

const append = (a: string[] = [], b: string | string[]) => [...a, ...[b].flat()];
const url = process.env.STATEWEAVER_PG_URL;

/** A chat: the user speaks (an interrupt), the assistant answers, and round again. */
function chat(checkpointer: Checkpointer) {
  return new Graph({ name: "Chat" })
    .addReducer("messages", append)
    .addNode("user", () => ({ messages: `user: ${interrupt("Your turn") as string}` }))
    .addNode("assistant", (s) => ({ messages: `assistant: ${s.messages.length} so far` }))
    .addEdge(START, "user")
    .addEdge("user", "assistant")
    .addEdge("assistant", "user")
    .compile({ checkpointer });
}

/**
 * Two tasks in one step: `fast` finishes, `slow` waits until the run is stopped (the first
 * time) or finishes (later). Counts the runs of each.
 */
function fanOut(checkpointer: Checkpointer, stop: AbortController) {
  const runs = { fast: 0, slow: 0 };
  const graph = new Graph({ name: "FanOut" })
    .addReducer("log", append)
    .addNode("fast", () => {
      runs.fast++;
      // Stopped once this task's writes are queued: they are stored against the step.
      setTimeout(() => stop.abort(new Error("rolled back")), 20);
      return { log: "fast" };
    })
    .addNode("slow", async (_s, runtime) => {
      runs.slow++;
      if (!stop.signal.aborted) {
        await new Promise((_, reject) =>
          runtime.signal.addEventListener("abort", () => reject(runtime.signal.reason)),
        );
      }
      return { log: "slow" };
    })
    .addEdge(START, "fast")
    .addEdge(START, "slow")
    .addEdge("fast", END)
    .addEdge("slow", END)
    .compile({ checkpointer });
  return { graph, runs };
}

const thread = () => ({ configurable: { thread_id: `rewind-${randomUUID()}` } });
const idOf = (config: { configurable: { thread_id: string } }) => config.configurable.thread_id;

const prefixes: string[] = [];
const stores: Array<{ name: string; make: () => Checkpointer }> = [
  { name: "MemoryCheckpointer", make: () => new MemoryCheckpointer() },
  { name: "PGliteCheckpointer", make: () => new PGliteCheckpointer() },
];
if (url) {
  stores.push({
    name: "PostgresCheckpointer",
    make: () => {
      // Tables of this file's own: the database is shared.
      const prefix = `sw_rewind_${randomUUID().slice(0, 8)}_`;
      prefixes.push(prefix);
      return new PostgresCheckpointer({ connectionString: url, tablePrefix: prefix });
    },
  });
}

afterAll(async () => {
  if (prefixes.length === 0) return;
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  for (const prefix of prefixes) await dropStoreTables(pool, prefix);
  await pool.end();
});

describe.each(stores)("rewinds on $name", ({ make }) => {
  let store: Checkpointer;
  beforeAll(() => {
    store = make();
  });
  afterAll(async () => {
    await store.close?.();
  });

  it("a conversation rewound to an earlier turn reads exactly as it did then, and goes on from there", async () => {
    const graph = chat(store);
    const config = thread();
    await graph.invoke({ messages: [] }, { config });
    for (let turn = 0; turn < 3; turn++) await graph.resume(`hello ${turn}`, { config });
    const then = await graph.getState(config);
    const record = await store.getThread(idOf(config));
    const kept = await store.list(idOf(config));
    for (let turn = 3; turn < 6; turn++) await graph.resume(`hello ${turn}`, { config });
    const all = await store.list(idOf(config));

    const at = then.config.configurable!.checkpoint_id!;
    expect(await store.rewindThread(idOf(config), at)).toBe(all.length - kept.length);
    expect(await graph.getState(config)).toEqual(then);
    expect(await store.list(idOf(config))).toEqual(kept);
    expect(await store.getThread(idOf(config))).toEqual({
      ...record,
      updatedAt: expect.any(String),
    });

    const result = await graph.resume("a different turn", { config });
    expect(result.state.messages).toEqual([
      ...then.values.messages,
      "user: a different turn",
      `assistant: ${then.values.messages.length + 1} so far`,
    ]);
    const history = await store.list(idOf(config));
    expect(history.slice(history.length - kept.length)).toEqual(kept);
    expect((await store.getThread(idOf(config)))?.status).toBe("interrupted");
  });

  it("a stopped run rolled back with its run id loses the writes of the tasks it finished: the next run runs them again", async () => {
    const stop = new AbortController();
    const { graph, runs } = fanOut(store, stop);
    const config = thread();
    const error = await graph
      .invoke({ log: [] }, { config, signal: stop.signal, runId: "stopped-run" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AbortError);
    const head = (await store.getLatest(idOf(config)))!;
    expect(head.pendingWrites).toEqual([
      expect.objectContaining({ node: "fast", runId: "stopped-run" }),
    ]);

    expect(
      await store.rewindThread(idOf(config), head.checkpoint.id, { runId: "stopped-run" }),
    ).toBe(0);
    expect(await store.getLatest(idOf(config))).toEqual({ ...head, pendingWrites: [] });
    const result = await graph.invoke(null, { config });
    expect(result.state.log.sort()).toEqual(["fast", "slow"]);
    expect(runs).toEqual({ fast: 2, slow: 2 });
  });

  it("a rollback keeps the writes of an earlier run: a paused step's finished task is not run again", async () => {
    const runs = { quick: 0 };
    const graph = new Graph({ name: "Paused" })
      .addReducer("log", append)
      .addNode("quick", () => {
        runs.quick++;
        return { log: "quick" };
      })
      .addNode("review", () => ({ log: `review:${interrupt("ok?") as string}` }))
      .addEdge(START, "quick")
      .addEdge(START, "review")
      .addEdge("quick", END)
      .addEdge("review", END)
      .compile({ checkpointer: store });
    const config = thread();
    await graph.invoke({ log: [] }, { config, runId: "paused-run" });
    const before = await graph.getState(config);

    expect(
      await store.rewindThread(idOf(config), before.config.configurable!.checkpoint_id!, {
        runId: "rolled-back-run",
      }),
    ).toBe(0);
    expect(await graph.getState(config)).toEqual(before);
    const done = await graph.resume("yes", { config });
    expect(done.state.log.sort()).toEqual(["quick", "review:yes"]);
    expect(runs.quick).toBe(1);
  });
});

it("the server answers a rewind to a checkpoint the thread does not have with 409 and what to do", () => {
  const { status, body } = errorResponse(new RewindTargetNotFoundError("t1", "nope"));
  expect(status).toBe(409);
  expect(body).toEqual({
    error: {
      code: "REWIND_TARGET_NOT_FOUND",
      message: expect.stringContaining('Pick one from its history (list("t1")'),
    },
  });
});
