/**
 * A thread's turn on PostgreSQL: run jobs have no named queue, so a run is offered to the
 * workers whenever its job is due, and `take` refuses it until it is its thread's turn (no
 * older run of the thread pending or running, no scheduled job of the thread being worked
 * on). These check that a refused run starts as soon as its turn comes, not a lease later
 * (the lease here is a minute, longer than each test may take), and that a scheduled job
 * holds its thread's runs back while it works.
 */
import { randomUUID } from "node:crypto";
import { afterAll, afterEach, expect, it } from "vitest";
import { PostgresCheckpointer } from "../../src/checkpoint/index.js";
import { Command } from "../../src/index.js";
import { createRuns, PostgresRunQueue, type Runs } from "../../src/runs/index.js";
import { dropDeploymentTables } from "../setup/store-tables.js";
import { STEPS, stepsGraph } from "./fixtures/steps-graph.js";

const pgUrl = process.env.STATEWEAVER_PG_URL;
const tablePrefix = `sw_turns_${randomUUID().slice(0, 8)}_`;
const LEASE_MS = 60_000;
const checkpointer = pgUrl
  ? new PostgresCheckpointer({ connectionString: pgUrl, tablePrefix })
  : undefined;
const opened: Array<{ close(): Promise<void> }> = [];

afterEach(async () => {
  for (const o of opened.splice(0)) await o.close();
});
afterAll(async () => {
  await checkpointer?.close();
  if (pgUrl) await dropDeploymentTables(pgUrl, tablePrefix);
});

async function working(): Promise<Runs> {
  const queue = await PostgresRunQueue.open({ connectionString: pgUrl!, tablePrefix });
  const runs = createRuns({
    graphs: [stepsGraph().compile({ checkpointer: checkpointer! })],
    queue,
    leaseMs: LEASE_MS,
  });
  opened.push(runs);
  await runs.work({ concurrency: 4 });
  return runs;
}

it.skipIf(!pgUrl)(
  "runs queued behind a working run start each as the one before ends, in order",
  async () => {
    const runs = await working();
    const graph = runs.graph("steps")!;
    const threadId = randomUUID();
    const a = await graph.runs.create(threadId, { n: 0 }, { context: { delayMs: 20 } });
    const b = await graph.runs.create(threadId, null, { multitaskStrategy: "enqueue" });
    const c = await graph.runs.create(threadId, new Command({ update: { n: 100 } }), {
      multitaskStrategy: "enqueue",
    });
    // Joined within a third of a lease: a refused run offered again only after a lease fails.
    const signal = AbortSignal.timeout(LEASE_MS / 3);
    const [ea, eb, ec] = [
      await runs.join(a.runId, { signal }),
      await runs.join(b.runId, { signal }),
      await runs.join(c.runId, { signal }),
    ];
    expect([ea.status, eb.status, ec.status]).toEqual(["success", "success", "success"]);
    expect(Date.parse(eb.startedAt!)).toBeGreaterThanOrEqual(Date.parse(ea.endedAt!));
    expect(Date.parse(ec.startedAt!)).toBeGreaterThanOrEqual(Date.parse(eb.endedAt!));
    expect((await graph.getState({ configurable: { thread_id: threadId } })).values.n).toBe(
      100 + STEPS,
    );
  },
  LEASE_MS / 2,
);

it.skipIf(!pgUrl)(
  "a run waiting behind a pending run that is cancelled starts at once",
  async () => {
    const runs = await working();
    const graph = runs.graph("steps")!;
    const threadId = randomUUID();
    // Pending for a minute; the run behind it is offered now and refused (not its turn).
    const first = await graph.runs.create(threadId, { n: 0 }, { delayMs: LEASE_MS });
    const behind = await graph.runs.create(threadId, { n: 50 }, { multitaskStrategy: "enqueue" });
    await runs.queue.requestCancel(first.runId, "interrupt");
    const ended = await runs.join(behind.runId, { signal: AbortSignal.timeout(LEASE_MS / 3) });
    expect(ended.status).toBe("success");
    expect((await runs.get(first.runId))!.status).toBe("cancelled");
    expect((await graph.getState({ configurable: { thread_id: threadId } })).values.n).toBe(
      50 + STEPS,
    );
  },
  LEASE_MS / 2,
);

it.skipIf(!pgUrl)(
  "no run of a thread is taken while a scheduled job of the thread is worked on",
  async () => {
    const queue = await PostgresRunQueue.open({
      connectionString: pgUrl!,
      tablePrefix,
      pollInterval: 100,
    });
    opened.push(queue);
    const threadId = randomUUID();
    let entered!: () => void;
    const working = new Promise<void>((r) => {
      entered = r;
    });
    let finish!: () => void;
    const finished = new Promise<void>((r) => {
      finish = r;
    });
    // Runs' jobs are handed over and left alone: the test takes the run itself.
    await queue.consume(async () => {}, {
      concurrency: 2,
      onScheduled: async () => {
        entered();
        await finished;
      },
    });
    await queue.schedule({
      key: `turns:${threadId}`,
      threadId,
      at: new Date().toISOString(),
      payload: {},
    });
    await working;
    const { run } = await queue.enqueue({
      runId: randomUUID(),
      threadId,
      graphId: "steps",
      multitaskStrategy: "enqueue",
      request: { input: { input: { n: 0 } } },
      metadata: {},
    });
    expect(await queue.take(run.runId, "turns-test", LEASE_MS)).toEqual({
      held: true,
      threadId,
    });
    finish();
    // Once the job ended (and its queue is unlocked), the run is the thread's to take.
    for (;;) {
      const taken = await queue.take(run.runId, "turns-test", LEASE_MS);
      if ("taken" in taken) break;
      expect(taken).toEqual({ held: true, threadId });
      await new Promise((r) => setTimeout(r, 50));
    }
    expect((await queue.get(run.runId))!.status).toBe("running");
  },
  LEASE_MS / 2,
);
