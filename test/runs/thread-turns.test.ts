/**
 * A thread's turn on PostgreSQL: run jobs have no named queue, so a run is offered to the
 * workers whenever its job is due, and `take` refuses it until it is its thread's turn (no
 * other run of the thread running, no older one due, no scheduled job of the thread being
 * worked on); a refused run's job is dropped, and the run gets a new one when the run before
 * it ends or is cancelled, no sooner than its own due time. These check that a waiting run
 * starts as soon as its turn comes, not a lease later (the lease here is a minute, longer
 * than each test may take), that a delayed run still waits for its delay, that a scheduled
 * job and a run of its thread never work at once, and that queue rows no job uses go.
 */
import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, afterEach, expect, it } from "vitest";
import { PostgresCheckpointer } from "../../src/checkpoint/index.js";
import { Command } from "../../src/index.js";
import { createRuns, PostgresRunQueue, type Runs } from "../../src/runs/index.js";
import { dropDeploymentTables } from "../setup/store-tables.js";
import { STEPS, stepsGraph } from "./fixtures/steps-graph.js";

const pgUrl = process.env.STATEWEAVER_PG_URL;
const tablePrefix = `sw_turns_${randomUUID().slice(0, 8)}_`;
const schema = `${tablePrefix}queue`;
const LEASE_MS = 60_000;
const checkpointer = pgUrl
  ? new PostgresCheckpointer({ connectionString: pgUrl, tablePrefix })
  : undefined;
const observer = pgUrl ? new pg.Pool({ connectionString: pgUrl, max: 2 }) : undefined;
const opened: Array<{ close(): Promise<void> }> = [];

afterEach(async () => {
  for (const o of opened.splice(0)) await o.close();
});
afterAll(async () => {
  await checkpointer?.close();
  await observer?.end();
  if (pgUrl) await dropDeploymentTables(pgUrl, tablePrefix);
});

/** `Runs` of the steps graph on the shared tables, working unless told otherwise. */
async function opening(options: { work?: boolean } = {}): Promise<Runs> {
  const queue = await PostgresRunQueue.open({ connectionString: pgUrl!, tablePrefix });
  const runs = createRuns({
    graphs: [stepsGraph().compile({ checkpointer: checkpointer! })],
    queue,
    leaseMs: LEASE_MS,
  });
  opened.push(runs);
  if (options.work ?? true) await runs.work({ concurrency: 4 });
  return runs;
}

function pause(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

async function jobsKeyed(key: string): Promise<number> {
  const r = await observer!.query(
    `select count(*)::int as n from ${schema}._private_jobs where key = $1`,
    [key],
  );
  return r.rows[0].n as number;
}

it.skipIf(!pgUrl)(
  "runs queued behind a working run start each as the one before ends, in order",
  async () => {
    const runs = await opening();
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
    // Their jobs were in no named queue: the thread has no queue row.
    const queues = await observer!.query(
      `select count(*)::int as n from ${schema}._private_job_queues where queue_name = $1`,
      [`thread:${threadId}`],
    );
    expect(queues.rows[0].n).toBe(0);
  },
  LEASE_MS / 2,
);

it.skipIf(!pgUrl)(
  "two workers never run two runs of a thread at once, and each run starts promptly",
  async () => {
    const runs = await opening();
    // A second worker on the same tables (its own pool, as another process has).
    await opening();
    const graph = runs.graph("steps")!;
    const threadId = randomUUID();
    const made = [await graph.runs.create(threadId, { n: 0 }, { context: { delayMs: 5 } })];
    for (let i = 1; i < 8; i++) {
      made.push(
        await graph.runs.create(
          threadId,
          { n: 0 },
          {
            multitaskStrategy: "enqueue",
            context: { delayMs: 5 },
            // Some fall due while others run: the turn passes by due time, never early.
            ...(i % 3 === 0 && { delayMs: 200 }),
          },
        ),
      );
    }
    const signal = AbortSignal.timeout(LEASE_MS / 3);
    const ended = [];
    for (const run of made) ended.push(await runs.join(run.runId, { signal }));
    expect(ended.map((r) => r.status)).toEqual(made.map(() => "success"));
    const spans = ended
      .map((r) => [Date.parse(r.startedAt!), Date.parse(r.endedAt!)] as const)
      .sort((x, y) => x[0] - y[0]);
    for (let i = 1; i < spans.length; i++)
      expect(spans[i]![0]).toBeGreaterThanOrEqual(spans[i - 1]![1]);
    // Each ran its ten steps from the start (the trail keeps every step's number).
    const { values } = await graph.getState({ configurable: { thread_id: threadId } });
    expect(values.trail).toHaveLength(8 * STEPS);
  },
  LEASE_MS / 2,
);

it.skipIf(!pgUrl)(
  "a run waiting behind a pending run that is cancelled starts at once",
  async () => {
    const runs = await opening({ work: false });
    const graph = runs.graph("steps")!;
    const threadId = randomUUID();
    // The first run's job in a worker's hands that has not taken it yet (locked by hand for
    // a pool that is not there: freed only after a lease).
    const first = await graph.runs.create(threadId, { n: 0 });
    await observer!.query(
      `update ${schema}._private_jobs set locked_by = 'elsewhere', locked_at = now() where key = $1`,
      [first.runId],
    );
    await runs.work({ concurrency: 4 });
    const behind = await graph.runs.create(threadId, { n: 50 }, { multitaskStrategy: "enqueue" });
    // Refused (the first run is older and due) and its job dropped.
    while ((await jobsKeyed(behind.runId)) > 0) await pause(20);
    expect((await runs.get(behind.runId))!.status).toBe("pending");
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
  "a delayed run queued behind a run that ends still waits for its delay",
  async () => {
    const runs = await opening();
    const graph = runs.graph("steps")!;
    const threadId = randomUUID();
    const DELAY_MS = 3000;
    const a = await graph.runs.create(threadId, { n: 0 });
    const later = await graph.runs.create(threadId, null, {
      multitaskStrategy: "enqueue",
      delayMs: DELAY_MS,
    });
    const ea = await runs.join(a.runId, { signal: AbortSignal.timeout(LEASE_MS / 3) });
    // The turn passed while the delayed run was not due yet.
    expect(Date.parse(ea.endedAt!)).toBeLessThan(Date.parse(later.createdAt) + DELAY_MS);
    const ended = await runs.join(later.runId, { signal: AbortSignal.timeout(LEASE_MS / 3) });
    expect(ended.status).toBe("success");
    expect(Date.parse(ended.startedAt!) - Date.parse(later.createdAt)).toBeGreaterThanOrEqual(
      DELAY_MS,
    );
  },
  LEASE_MS / 2,
);

it.skipIf(!pgUrl)(
  "a delayed run behind a pending run that is cancelled still waits for its delay",
  async () => {
    const runs = await opening();
    const graph = runs.graph("steps")!;
    const threadId = randomUUID();
    const DELAY_MS = 3000;
    // As threads-parity's cancelMany: two delayed runs, the first cancelled at once.
    const first = await graph.runs.create(threadId, { n: 0 }, { delayMs: LEASE_MS });
    const later = await graph.runs.create(
      threadId,
      { n: 7 },
      {
        multitaskStrategy: "enqueue",
        delayMs: DELAY_MS,
      },
    );
    await runs.queue.requestCancel(first.runId, "interrupt");
    await pause(DELAY_MS / 2);
    expect((await runs.get(later.runId))!.status).toBe("pending");
    const ended = await runs.join(later.runId, { signal: AbortSignal.timeout(LEASE_MS / 3) });
    expect(ended.status).toBe("success");
    expect(Date.parse(ended.startedAt!) - Date.parse(later.createdAt)).toBeGreaterThanOrEqual(
      DELAY_MS,
    );
  },
  LEASE_MS / 2,
);

/** A queue whose consumer leaves runs' jobs alone (the test takes runs itself). */
async function bareQueue(onScheduled: () => Promise<void>): Promise<PostgresRunQueue> {
  const queue = await PostgresRunQueue.open({
    connectionString: pgUrl!,
    tablePrefix,
    pollInterval: 100,
  });
  opened.push(queue);
  await queue.consume(async () => {}, { concurrency: 2, onScheduled });
  return queue;
}

function newRun(threadId: string) {
  return {
    runId: randomUUID(),
    threadId,
    graphId: "steps",
    multitaskStrategy: "enqueue" as const,
    request: { input: { input: { n: 0 } } },
    metadata: {},
  };
}

it.skipIf(!pgUrl)(
  "no run of a thread is taken while a scheduled job of the thread is worked on",
  async () => {
    const threadId = randomUUID();
    let entered!: () => void;
    const working = new Promise<void>((r) => {
      entered = r;
    });
    let finish!: () => void;
    const finished = new Promise<void>((r) => {
      finish = r;
    });
    const queue = await bareQueue(async () => {
      entered();
      await finished;
    });
    await queue.schedule({
      key: `turns:${threadId}`,
      threadId,
      at: new Date().toISOString(),
      payload: {},
    });
    await working;
    const { run } = await queue.enqueue(newRun(threadId));
    expect(await queue.take(run.runId, "turns-test", LEASE_MS)).toEqual({
      held: true,
      threadId,
      retryInMs: 1000,
    });
    finish();
    // Once the job ended (and its queue is unlocked), the run is the thread's to take.
    for (;;) {
      const taken = await queue.take(run.runId, "turns-test", LEASE_MS);
      if ("taken" in taken) break;
      expect(taken).toEqual({ held: true, threadId, retryInMs: 1000 });
      await pause(50);
    }
    expect((await queue.get(run.runId))!.status).toBe("running");
  },
  LEASE_MS / 2,
);

it.skipIf(!pgUrl)(
  "a scheduled job of a thread waits while a run of the thread is running",
  async () => {
    const threadId = randomUUID();
    let ranAt: number | undefined;
    const queue = await bareQueue(async () => {
      ranAt ??= Date.now();
    });
    const { run } = await queue.enqueue(newRun(threadId));
    const taken = await queue.take(run.runId, "turns-test", LEASE_MS);
    if (!("taken" in taken)) throw new Error(`not taken: ${JSON.stringify(taken)}`);
    await queue.schedule({
      key: `turns:${threadId}`,
      threadId,
      at: new Date().toISOString(),
      payload: {},
    });
    await pause(1500);
    expect(ranAt).toBeUndefined();
    const settledAt = Date.now();
    await queue.settle(run.runId, taken.taken.attempt, { status: "success" });
    while (ranAt === undefined) await pause(50);
    expect(ranAt).toBeGreaterThanOrEqual(settledAt);
  },
  LEASE_MS / 2,
);

it.skipIf(!pgUrl)(
  "queue rows no job is in are removed by the sweep; one a worker holds or a job waits in stays",
  async () => {
    const queue = await PostgresRunQueue.open({ connectionString: pgUrl!, tablePrefix });
    opened.push(queue);
    const tag = randomUUID().slice(0, 8);
    const name = (what: string) => `thread:${tag}-${what}`;
    // What an older deployment left: a row for each thread that ever had a run.
    await observer!.query(
      `insert into ${schema}._private_job_queues (queue_name) values ($1), ($2)`,
      [name("old-a"), name("old-b")],
    );
    await observer!.query(
      `insert into ${schema}._private_job_queues (queue_name, locked_by, locked_at)
       values ($1, 'a-live-pool', now())`,
      [name("held")],
    );
    await queue.schedule({
      key: `turns:${tag}`,
      threadId: `${tag}-waiting`,
      at: new Date(Date.now() + 3600_000).toISOString(),
      payload: {},
    });
    await queue.sweep(LEASE_MS);
    const left = await observer!.query(
      `select queue_name from ${schema}._private_job_queues where queue_name like $1
        order by queue_name`,
      [`thread:${tag}-%`],
    );
    expect(left.rows.map((r) => r.queue_name)).toEqual([name("held"), name("waiting")]);
  },
  LEASE_MS / 2,
);
