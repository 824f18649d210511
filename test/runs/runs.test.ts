import { randomUUID } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  type Checkpointer,
  MemoryCheckpointer,
  PostgresCheckpointer,
} from "../../src/checkpoint/index.js";
import {
  Command,
  ConcurrentUpdateError,
  END,
  Graph,
  InvalidRunError,
  RunsNotBoundError,
  START,
  ThreadBusyError,
} from "../../src/index.js";
import {
  createRuns,
  InProcessRunQueue,
  PostgresRunQueue,
  type RunQueue,
  type Runs,
} from "../../src/runs/index.js";
import { dropDeploymentTables } from "../setup/store-tables.js";
import { STEPS, stepsGraph } from "./fixtures/steps-graph.js";

const pgUrl = process.env.STATEWEAVER_PG_URL;

/** How many runs of `meetingGraph` are inside its node now. */
let arrived = 0;
/** One node that waits (up to 15 s) until four runs are inside it at once. */
const meetingGraph = new Graph<{ met: number }>({ name: "meeting" })
  .addNode("meet", async () => {
    arrived++;
    const until = Date.now() + 15_000;
    while (arrived < 4) {
      if (Date.now() > until) throw new Error(`only ${arrived} of 4 runs were working at once`);
      await new Promise((r) => setTimeout(r, 10));
    }
    return { met: arrived };
  })
  .addEdge(START, "meet")
  .addEdge("meet", END);
const done = { n: STEPS, trail: Array.from({ length: STEPS }, (_, i) => i + 1) };

interface Setup {
  checkpointer: Checkpointer;
  queue(): Promise<RunQueue>;
  cleanup(): Promise<void>;
}

const setups: Array<[string, () => Setup, boolean]> = [
  [
    "in this process",
    () => ({
      checkpointer: new MemoryCheckpointer(),
      queue: async () => new InProcessRunQueue(),
      cleanup: async () => {},
    }),
    true,
  ],
  [
    "on PostgreSQL (graphile-worker)",
    () => {
      const tablePrefix = `sw_runs_${randomUUID().slice(0, 8)}_`;
      return {
        checkpointer: new PostgresCheckpointer({ connectionString: pgUrl!, tablePrefix }),
        queue: () =>
          PostgresRunQueue.open({ connectionString: pgUrl!, tablePrefix, pollInterval: 200 }),
        cleanup: async () => {
          await dropDeploymentTables(pgUrl!, tablePrefix);
        },
      };
    },
    pgUrl !== undefined,
  ],
];

describe.each(setups)("background runs %s", (_name, makeSetup, enabled) => {
  let setup: Setup;
  let runs: Runs;
  const opened: Runs[] = [];
  const graph = () => runs.graph("steps")!;
  const open = async (work = true) => {
    const r = createRuns({
      graphs: [
        stepsGraph().compile({ checkpointer: setup.checkpointer }),
        meetingGraph.compile({ checkpointer: setup.checkpointer }),
      ],
      queue: await setup.queue(),
      leaseMs: 2000,
    });
    if (work) await r.work({ concurrency: 4 });
    opened.push(r);
    return r;
  };
  const historyOf = async (threadId: string) => {
    const all = [];
    for await (const s of graph().getStateHistory({ configurable: { thread_id: threadId } }))
      all.push(s);
    return all;
  };
  const state = async (threadId: string) =>
    (await graph().getState({ configurable: { thread_id: threadId } })).values;

  beforeAll(async () => {
    if (!enabled) return;
    setup = makeSetup();
  });
  afterEach(async () => {
    for (const r of opened.splice(0)) await r.close();
  });
  afterAll(async () => {
    if (!enabled) return;
    await setup.checkpointer.close?.();
    await setup.cleanup();
  });

  it.skipIf(!enabled)(
    "a run created with graph.runs.create ends in success with the graph's final state",
    async () => {
      runs = await open();
      const threadId = randomUUID();
      const run = await graph().runs.create(threadId, { n: 0 }, { metadata: { ticket: 7 } });
      expect(run).toMatchObject({ threadId, graphId: "steps", status: "pending", endedAt: null });
      const ended = await graph().runs.join(run.runId);
      expect(ended).toMatchObject({ status: "success", error: null, metadata: { ticket: 7 } });
      expect(ended.startedAt).not.toBeNull();
      expect(Date.parse(ended.endedAt!)).toBeGreaterThanOrEqual(Date.parse(ended.startedAt!));
      expect(await state(threadId)).toEqual(done);
      expect((await graph().runs.get(run.runId))?.status).toBe("success");
    },
  );

  it.skipIf(!enabled)(
    "a run checked against a checkpoint its thread has moved on from is refused with ConcurrentUpdateError, and nothing is queued",
    async () => {
      runs = await open();
      const threadId = randomUUID();
      const first = await runs.create({ graphId: "steps", threadId, input: { input: { n: 0 } } });
      await runs.join(first.runId);
      const latest = (await graph().getState({ configurable: { thread_id: threadId } })).config
        .configurable?.checkpoint_id as string;
      const stale = runs.create({
        graphId: "steps",
        threadId,
        input: { input: { n: 0 } },
        expectedCheckpointId: `${latest}-before`,
      });
      await expect(stale).rejects.toBeInstanceOf(ConcurrentUpdateError);
      await expect(stale).rejects.toThrow(
        /moved on from checkpoint .* before this run was admitted/,
      );
      expect((await runs.list({ threadId })).map((r) => r.runId)).toEqual([first.runId]);
      // Checked against the thread's latest, the run is admitted.
      const current = await runs.create({
        graphId: "steps",
        threadId,
        input: { input: { n: 0 } },
        expectedCheckpointId: latest,
      });
      expect((await runs.join(current.runId)).status).toBe("success");
    },
  );

  it.skipIf(!enabled)(
    "a second run on a busy thread is rejected by default, and the first goes on",
    async () => {
      runs = await open();
      const threadId = randomUUID();
      const first = await runs.create({
        graphId: "steps",
        threadId,
        input: { input: { n: 0 } },
        context: { delayMs: 20 },
      });
      await expect(graph().runs.create(threadId, { n: 100 })).rejects.toThrow(ThreadBusyError);
      expect((await runs.join(first.runId)).status).toBe("success");
      expect(await state(threadId)).toEqual(done);
      expect(await graph().runs.list(threadId)).toHaveLength(1);
    },
  );

  it.skipIf(!enabled)("enqueued runs on one thread run one at a time, in order", async () => {
    runs = await open();
    const threadId = randomUUID();
    const a = await graph().runs.create(threadId, { n: 0 }, { context: { delayMs: 5 } });
    const b = await graph().runs.create(threadId, null, { multitaskStrategy: "enqueue" });
    const c = await graph().runs.create(threadId, new Command({ update: { n: 100 } }), {
      multitaskStrategy: "enqueue",
    });
    const [ea, eb, ec] = [
      await runs.join(a.runId),
      await runs.join(b.runId),
      await runs.join(c.runId),
    ];
    expect([ea.status, eb.status, ec.status]).toEqual(["success", "success", "success"]);
    expect(Date.parse(eb.startedAt!)).toBeGreaterThanOrEqual(Date.parse(ea.endedAt!));
    expect(Date.parse(ec.startedAt!)).toBeGreaterThanOrEqual(Date.parse(eb.endedAt!));
    // c's update came last, then its steps ran on it.
    expect((await state(threadId)).n).toBe(100 + STEPS);
    expect((await graph().runs.list(threadId)).map((r) => r.runId)).toEqual([
      c.runId,
      b.runId,
      a.runId,
    ]);
  });

  it.skipIf(!enabled)(
    "interrupt stops the working run at a barrier, keeps its progress, and starts the new one",
    async () => {
      runs = await open();
      const threadId = randomUUID();
      const first = await graph().runs.create(threadId, { n: 0 }, { context: { delayMs: 40 } });
      await waitFor(async () => ((await state(threadId).catch(() => undefined))?.n ?? 0) >= 2);
      const second = await graph().runs.create(threadId, new Command({ update: { n: 1000 } }), {
        multitaskStrategy: "interrupt",
      });
      expect((await runs.join(first.runId)).status).toBe("interrupted");
      expect((await runs.join(second.runId)).status).toBe("success");
      const history = await historyOf(threadId);
      // The first run's checkpoints are still there, before the second run's.
      expect(history.some((s) => s.metadata?.runId === first.runId)).toBe(true);
      // A Command's update is new input: the graph starts over from it.
      expect((await state(threadId)).n).toBe(1000 + STEPS);
    },
  );

  it.skipIf(!enabled)("rollback stops the working run and drops what it wrote", async () => {
    runs = await open();
    const threadId = randomUUID();
    const setupRun = await graph().runs.create(threadId, { n: 0 });
    await runs.join(setupRun.runId);
    const before = await graph().getState({ configurable: { thread_id: threadId } });
    const doomed = await graph().runs.create(
      threadId,
      { n: 500 },
      { context: { delayMs: 40 }, multitaskStrategy: "enqueue" },
    );
    await waitFor(async () => (await state(threadId)).n >= 500);
    const next = await graph().runs.create(threadId, null, { multitaskStrategy: "rollback" });
    expect((await runs.join(doomed.runId)).status).toBe("cancelled");
    expect((await runs.join(next.runId)).status).toBe("success");
    const history = await historyOf(threadId);
    expect(history.some((s) => s.metadata?.runId === doomed.runId)).toBe(false);
    // The thread went on from where it was before the rolled-back run.
    const beforeId = before.config.configurable?.checkpoint_id;
    expect(history.some((s) => s.config.configurable?.checkpoint_id === beforeId)).toBe(true);
    expect((await state(threadId)).n).toBe(STEPS);
  });

  it.skipIf(!enabled)(
    "cancel aborts a working run, and nothing is stored for it after it stopped",
    async () => {
      runs = await open();
      const threadId = randomUUID();
      const run = await graph().runs.create(threadId, { n: 0 }, { context: { delayMs: 40 } });
      await waitFor(async () => ((await state(threadId).catch(() => undefined))?.n ?? 0) >= 1);
      await graph().runs.cancel(run.runId, { wait: true });
      expect((await graph().runs.get(run.runId))?.status).toBe("cancelled");
      const stopped = await state(threadId);
      await new Promise((r) => setTimeout(r, 150));
      expect(await state(threadId)).toEqual(stopped);
      expect(stopped.n).toBeLessThan(STEPS);
    },
  );

  it.skipIf(!enabled)("a pending run that is cancelled never runs", async () => {
    runs = await open();
    const threadId = randomUUID();
    const first = await graph().runs.create(threadId, { n: 0 }, { context: { delayMs: 10 } });
    const queued = await graph().runs.create(threadId, new Command({ update: { n: 77 } }), {
      multitaskStrategy: "enqueue",
    });
    expect((await graph().runs.cancel(queued.runId))?.status).toBe("cancelled");
    await runs.join(first.runId);
    expect((await runs.join(queued.runId)).status).toBe("cancelled");
    expect((await state(threadId)).n).toBe(STEPS);
  });

  it.skipIf(!enabled)("a run whose graph throws ends in error with the message", async () => {
    runs = await open();
    const threadId = randomUUID();
    const run = await graph().runs.create(threadId, { n: 0, fail: true });
    const ended = await runs.join(run.runId);
    expect(ended.status).toBe("error");
    expect(ended.error?.message).toContain("step 5 failed on purpose");
  });

  it.skipIf(!enabled)("runs of different threads run at the same time", async () => {
    runs = await open();
    arrived = 0;
    // Each run waits inside its node until all four are inside theirs: one at a time, none ends.
    const created = await Promise.all(
      [1, 2, 3, 4].map(() => runs.graph("meeting")!.runs.create(randomUUID(), { met: 0 })),
    );
    const ended = await Promise.all(created.map((r) => runs.join(r.runId)));
    expect(ended.map((r) => [r.status, r.error?.message ?? null])).toEqual(
      created.map(() => ["success", null]),
    );
  });

  it.skipIf(!enabled)(
    "bad run requests are refused with what to do, and nothing is enqueued",
    async () => {
      runs = await open();
      const threadId = randomUUID();
      await expect(runs.create({ graphId: "nope", threadId, input: null })).rejects.toThrow(
        InvalidRunError,
      );
      await expect(
        graph().runs.create(threadId, { n: 0 }, { multitaskStrategy: "sideways" as never }),
      ).rejects.toThrow(/multitaskStrategy "sideways" is not one of/);
      await expect(graph().runs.create(threadId, { n: 1n })).rejects.toThrow(/bigint|JSON/i);
      expect(await graph().runs.list(threadId)).toEqual([]);
    },
  );

  it.skipIf(!enabled || _name === "in this process")(
    "a run created in one process is executed by another and joined from the first",
    async () => {
      const creator = await open(false);
      runs = await open(true);
      const threadId = randomUUID();
      const run = await creator.graph("steps")!.runs.create(threadId, { n: 0 });
      expect((await creator.join(run.runId)).status).toBe("success");
      expect(await state(threadId)).toEqual(done);
    },
  );
});

it("graph.runs without a run service says how to bind one", () => {
  expect(() => stepsGraph().compile().runs).toThrow(RunsNotBoundError);
});

async function waitFor(check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 10));
  }
}

it("a queue consumer that stops by itself is replaced, and runs go on", async () => {
  // What graphile-worker does after losing the database mid-completion: its pool shuts down.
  let consumers = 0;
  class FlakyQueue extends InProcessRunQueue {
    override async consume(...args: Parameters<InProcessRunQueue["consume"]>) {
      const consumer = await super.consume(...args);
      if (++consumers > 1) return consumer;
      await consumer.stop();
      return { ...consumer, ended: Promise.resolve() };
    }
  }
  const runs = createRuns({
    graphs: [stepsGraph().compile({ checkpointer: new MemoryCheckpointer() })],
    queue: new FlakyQueue(),
  });
  try {
    await runs.work();
    const run = await runs.graph("steps")!.runs.create(randomUUID(), { n: 0 });
    expect((await runs.join(run.runId)).status).toBe("success");
    expect(consumers).toBe(2);
  } finally {
    await runs.close();
  }
});
