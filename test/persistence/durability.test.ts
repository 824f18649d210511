import { describe, expect, it } from "vitest";
import {
  type Checkpoint,
  MemoryCheckpointer,
  type PutOptions,
} from "../../src/checkpoint/index.js";
import { END, Graph, InvalidConfigError, START } from "../../src/index.js";
import { MAX_CHECKPOINT_LAG } from "../../src/runtime/checkpoint-writer.js";

/** The memory store, with each checkpoint write taking a turn of the event loop and logged. */
class SlowMemoryCheckpointer extends MemoryCheckpointer {
  constructor(
    readonly log: string[],
    readonly failAt = Number.POSITIVE_INFINITY,
  ) {
    super();
  }
  puts = 0;
  override async put(checkpoint: Checkpoint, options: PutOptions): Promise<void> {
    const n = ++this.puts;
    await new Promise((resolve) => setTimeout(resolve, 2));
    if (n === this.failAt) throw new Error(`disk full at put ${n}`);
    await super.put(checkpoint, options);
    this.log.push(`stored step ${checkpoint.metadata.step}`);
  }
}

/** START -> a -> b -> END, each node logging that it ran. */
function chain(checkpointer: MemoryCheckpointer, log: string[]) {
  return new Graph({ name: "Chain" })
    .addNode("a", () => {
      log.push("ran a");
      return { a: 1 };
    })
    .addNode("b", () => {
      log.push("ran b");
      return { b: 2 };
    })
    .addEdge(START, "a")
    .addEdge("a", "b")
    .addEdge("b", END)
    .compile({ checkpointer });
}

describe("durability", () => {
  it("async (the default): steps run while checkpoints are written, and all are stored, in order, before invoke returns", async () => {
    const log: string[] = [];
    const store = new SlowMemoryCheckpointer(log);
    const graph = chain(store, log);
    const config = { configurable: { thread_id: "async" } };
    const result = await graph.invoke({}, { config });
    expect(result.state).toEqual({ a: 1, b: 2 });
    // a ran before any write was stored; b waited for the store (the lag bound, below);
    // every write came, in step order, before invoke returned.
    expect(log).toEqual([
      "ran a",
      "stored step 0",
      "stored step 1",
      "stored step 2",
      "ran b",
      "stored step 3",
    ]);
    const history = [];
    for await (const s of graph.getStateHistory(config)) history.push(s);
    expect(history.map((s) => s.metadata?.step)).toEqual([3, 2, 1, 0]);
    // Each checkpoint follows the one before it.
    expect(history.map((s) => s.parentConfig?.configurable?.checkpoint_id)).toEqual([
      history[1]!.config.configurable!.checkpoint_id,
      history[2]!.config.configurable!.checkpoint_id,
      history[3]!.config.configurable!.checkpoint_id,
      undefined,
    ]);
  });

  it(`async runs are never more than MAX_CHECKPOINT_LAG (${MAX_CHECKPOINT_LAG}) checkpoints ahead of the store`, async () => {
    const log: string[] = [];
    const store = new SlowMemoryCheckpointer(log);
    const steps: number[] = [];
    let graph = new Graph({ name: "Long" });
    for (let i = 0; i < 12; i++) {
      graph = graph.addNode(`n${i}`, (_s, runtime) => {
        log.push(`ran ${runtime.step}`);
        steps.push(runtime.step);
      });
      graph = graph.addEdge(i === 0 ? START : `n${i - 1}`, `n${i}`);
    }
    await graph
      .compile({ checkpointer: store })
      .invoke({}, { config: { configurable: { thread_id: "lag" } } });
    expect(steps).toHaveLength(12);
    for (const step of steps) {
      // The step's task runs after barriers 0..step were checkpointed: step + 1 of them.
      const before = log.slice(0, log.indexOf(`ran ${step}`));
      const stored = before.filter((l) => l.startsWith("stored")).length;
      expect(step + 1 - stored).toBeLessThanOrEqual(MAX_CHECKPOINT_LAG);
    }
    // It does run ahead: the bound is reached, not avoided.
    const first = log.indexOf(`ran ${steps[0]}`);
    expect(log.slice(0, first).filter((l) => l.startsWith("stored"))).toHaveLength(0);
  });

  it("sync: each step starts only once the checkpoint before it is stored", async () => {
    const log: string[] = [];
    const graph = chain(new SlowMemoryCheckpointer(log), log);
    const config = { configurable: { thread_id: "sync" } };
    const result = await graph.invoke({}, { config, durability: "sync" });
    expect(result.state).toEqual({ a: 1, b: 2 });
    // The input's checkpoint, START's step (it applies the input), then a's and b's.
    expect(log).toEqual([
      "stored step 0",
      "stored step 1",
      "ran a",
      "stored step 2",
      "ran b",
      "stored step 3",
    ]);
  });

  it("a failed checkpoint write fails the run with the store's error; the thread keeps what was stored before it", async () => {
    for (const durability of ["async", "sync"] as const) {
      const log: string[] = [];
      const store = new SlowMemoryCheckpointer(log, 3);
      const graph = chain(store, log);
      const config = { configurable: { thread_id: `failing-${durability}` } };
      await expect(graph.invoke({}, { config, durability })).rejects.toThrow(/disk full at put 3/);
      // Nothing after the failed write is stored: the thread stays before a, intact.
      expect(log.filter((l) => l.startsWith("stored"))).toEqual(["stored step 0", "stored step 1"]);
      expect(store.puts).toBe(3);
      const state = await graph.getState(config);
      expect([state.metadata?.step, state.next]).toEqual([1, ["a"]]);
      // Continuing from there (the store works again) finishes the run.
      const done = await graph.invoke(null, { config, durability });
      expect(done.state).toEqual({ a: 1, b: 2 });
    }
  });

  it("sync: a run aborted while a checkpoint is stored starts no further step", async () => {
    const log: string[] = [];
    const controller = new AbortController();
    // Abort while the checkpoint after a (step 2) is being written, before b may start.
    const store = new (class extends SlowMemoryCheckpointer {
      override async put(checkpoint: Checkpoint, options: PutOptions): Promise<void> {
        if (checkpoint.metadata.step === 2) controller.abort(new Error("stop"));
        await super.put(checkpoint, options);
      }
    })(log);
    const graph = chain(store, log);
    const config = { configurable: { thread_id: "sync-abort" } };
    const run = graph.invoke({}, { config, durability: "sync", signal: controller.signal });
    await expect(run).rejects.toThrow(/abort/i);
    expect(log).toEqual(["stored step 0", "stored step 1", "ran a", "stored step 2"]);
    // The thread rests after a: continuing runs b, once.
    const done = await graph.invoke(null, { config, durability: "sync" });
    expect(done.state).toEqual({ a: 1, b: 2 });
    expect(log.filter((l) => l === "ran b")).toEqual(["ran b"]);
  });

  it("refuses a durability other than sync or async, before touching the thread", async () => {
    const store = new MemoryCheckpointer();
    const graph = chain(store, []);
    const config = { configurable: { thread_id: "bad-durability" } };
    const run = graph.invoke({}, { config, durability: "exit" as never });
    await expect(run).rejects.toBeInstanceOf(InvalidConfigError);
    await expect(run).rejects.toThrow(/durability "exit".*"sync" or "async"/);
    expect(await store.getLatest("bad-durability", "")).toBeUndefined();
  });
});
