/**
 * Locks that outlive their job. When connections drop, graphile-worker can leave a job or a
 * thread's queue locked in the name of a pool that is alive and not working on it: nobody
 * frees what a live pool holds, so the thread's runs would wait for ever beside idle
 * workers. These tests make each such lock by hand, as the database faults leave it, and
 * check that the runs go on within a lease.
 */
import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, expect, it } from "vitest";
import { PostgresCheckpointer } from "../../src/checkpoint/index.js";
import { createRuns, PostgresRunQueue, type Runs } from "../../src/runs/index.js";
import { dropRunQueueTables, dropStoreTables } from "../setup/store-tables.js";
import { STEPS, stepsGraph } from "./fixtures/steps-graph.js";

const pgUrl = process.env.STATEWEAVER_PG_URL;
const tablePrefix = `sw_stray_${randomUUID().slice(0, 8)}_`;
const schema = `${tablePrefix}queue`;
const LEASE_MS = 1000;
let checkpointer: PostgresCheckpointer | undefined;
let observer: pg.Pool | undefined;
const opened: Runs[] = [];

afterAll(async () => {
  for (const runs of opened) await runs.close();
  await checkpointer?.close();
  if (!observer) return;
  await dropStoreTables(observer, tablePrefix);
  await dropRunQueueTables(observer, tablePrefix);
  await observer.end();
});

/** A working `Runs` on the shared tables, and the id of its (only) graphile-worker pool. */
async function worker() {
  checkpointer ??= new PostgresCheckpointer({ connectionString: pgUrl!, tablePrefix });
  observer ??= new pg.Pool({ connectionString: pgUrl!, max: 2 });
  const graph = stepsGraph().compile({ checkpointer });
  const before = await poolIds();
  const queue = await PostgresRunQueue.open({ connectionString: pgUrl!, tablePrefix });
  const runs = createRuns({ graphs: [graph], queue, leaseMs: LEASE_MS });
  opened.push(runs);
  await runs.work({ concurrency: 1 });
  const pool = (await poolIds()).find((id) => !before.includes(id));
  expect(pool).toBeDefined();
  return { runs, graph, pool: pool! };
}

async function poolIds(): Promise<string[]> {
  const exists = await observer!.query("select to_regclass($1) as t", [
    `${tablePrefix}run_workers`,
  ]);
  if (!exists.rows[0].t) return [];
  const r = await observer!.query(`select worker_id from ${tablePrefix}run_workers`);
  return r.rows.map((row) => row.worker_id as string);
}

const finalState = { n: STEPS, trail: Array.from({ length: STEPS }, (_, i) => i + 1) };

it.skipIf(!pgUrl)(
  "a thread's queue left locked by a live pool that holds none of its jobs is freed, and the thread's run goes on",
  async () => {
    const { runs, graph, pool } = await worker();
    const threadId = randomUUID();
    // The queue as a completion by another pool leaves it: locked for a pool whose job is gone.
    await observer!.query(
      `insert into ${schema}._private_job_queues (queue_name, locked_by, locked_at)
       values ($1, $2, now() - interval '1 minute')`,
      [`thread:${threadId}`, pool],
    );
    const run = await runs.graph("steps")!.runs.create(threadId, { n: 0 });
    const ended = await runs.join(run.runId, { signal: AbortSignal.timeout(20 * LEASE_MS) });
    expect(ended.status).toBe("success");
    expect((await graph.getState({ configurable: { thread_id: threadId } })).values).toEqual(
      finalState,
    );
  },
  30_000,
);

it.skipIf(!pgUrl)(
  "a job locked for a live pool that never heard of it (the answer to its pick was lost) is freed within a lease, and its run goes on",
  async () => {
    const { runs, graph, pool } = await worker();
    const threadId = randomUUID();
    // Due in a minute, so no worker picks it before it is locked by hand below.
    const run = await runs.graph("steps")!.runs.create(threadId, { n: 0 }, { delayMs: 60_000 });
    // What a pick leaves when its connection drops as it commits: the job (and its named
    // queue, had it one) locked for the pool, one attempt counted, and the pool none the wiser.
    const locked = await observer!.query(
      `with j as (
         update ${schema}._private_jobs set locked_by = $2, locked_at = now() - interval '1 minute',
                attempts = attempts + 1, run_at = now()
          where key = $1 returning job_queue_id),
       q as (
         update ${schema}._private_job_queues set locked_by = $2, locked_at = now() - interval '1 minute'
          where id in (select job_queue_id from j))
       select count(*)::int as jobs from j`,
      [run.runId, pool],
    );
    expect(locked.rows[0].jobs).toBe(1);
    const ended = await runs.join(run.runId, { signal: AbortSignal.timeout(20 * LEASE_MS) });
    expect(ended.status).toBe("success");
    expect((await graph.getState({ configurable: { thread_id: threadId } })).values).toEqual(
      finalState,
    );
  },
  30_000,
);
