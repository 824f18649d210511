/**
 * pg-boss vs graphile-worker as the queue for background runs (the "Runs that outlive a
 * process" issue asks to measure both before choosing). On the local PostgreSQL, with 1, 2
 * and 4 worker processes taking no-op jobs one at a time:
 * - pickup latency: 100 jobs enqueued one after another, each after the last finished
 *   (idle workers), from enqueue to the handler's start: p50 and p95;
 * - throughput: 2,000 jobs enqueued at once (pg-boss: 40, see `bulkJobs`), until the last
 *   has run: jobs per second.
 * The jobs do nothing, so this is the queue's own cost; a run adds its graph's.
 *
 *   STATEWEAVER_PG_URL=postgres://postgres@127.0.0.1:5432/test npm run bench:queues
 */
import { type ChildProcess, fork } from "node:child_process";
import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { Logger, makeWorkerUtils, runMigrations } from "graphile-worker";
import pg from "pg";
import PgBoss from "pg-boss";

const connectionString = process.env.STATEWEAVER_PG_URL;
if (!connectionString) {
  console.error("Set STATEWEAVER_PG_URL (e.g. postgres://postgres@127.0.0.1:5432/test).");
  process.exit(2);
}
const quick = process.argv.includes("--quick");
const LATENCY_JOBS = quick ? 30 : 100;
/**
 * pg-boss polls (every 0.5 s at the least) and fetches one batch per poll, so a worker taking
 * one job at a time runs about two a second: 40 jobs measure that rate in seconds rather than
 * the quarter hour 2,000 would take.
 */
const bulkJobs = (lib: Lib) => (lib === "pg-boss" ? 40 : quick ? 300 : 2000);
const now = () => performance.timeOrigin + performance.now();
const quantile = (xs: number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;

type Lib = "graphile-worker" | "pg-boss";
interface Queue {
  enqueue(payload: { at: number; i: number }): Promise<void>;
  enqueueMany(payloads: Array<{ at: number; i: number }>): Promise<void>;
  close(): Promise<void>;
}

async function openQueue(lib: Lib, schema: string): Promise<Queue> {
  if (lib === "graphile-worker") {
    const logger = new Logger(() => () => {});
    await runMigrations({ connectionString, schema, logger });
    const utils = await makeWorkerUtils({ connectionString, schema, logger });
    return {
      enqueue: async (payload) => void (await utils.addJob("run", payload)),
      enqueueMany: async (payloads) =>
        void (await utils.addJobs(payloads.map((payload) => ({ identifier: "run", payload })))),
      close: async () => void (await utils.release()),
    };
  }
  const boss = new PgBoss({ connectionString: connectionString!, schema });
  boss.on("error", () => {});
  await boss.start();
  await boss.createQueue("runs");
  return {
    enqueue: async (payload) => void (await boss.send("runs", payload)),
    enqueueMany: (payloads) => boss.insert(payloads.map((data) => ({ name: "runs", data }))),
    close: () => boss.stop({ graceful: false }),
  };
}

async function measure(lib: Lib, workers: number) {
  const schema = `bench_q_${lib.replace("-", "_")}_${randomUUID().slice(0, 8)}`;
  const queue = await openQueue(lib, schema);
  const done = new Map<number, number>();
  let waiting: { i: number; resolve: () => void } | undefined;
  let bulkLeft = 0;
  let bulkDone: (() => void) | undefined;
  const children: ChildProcess[] = [];
  for (let w = 0; w < workers; w++) {
    const child = fork(new URL("./worker.ts", import.meta.url), [lib, schema], {
      execArgv: ["--import", "tsx"],
      env: process.env,
    });
    child.on("message", (m: { ready?: boolean; pickupMs?: number; i?: number }) => {
      if (m.i === undefined) return;
      done.set(m.i, m.pickupMs!);
      if (waiting?.i === m.i) waiting.resolve();
      if (m.i >= 1_000_000 && --bulkLeft === 0) bulkDone?.();
    });
    children.push(child);
    await once(child, "message");
  }
  try {
    const pickups: number[] = [];
    for (let i = 0; i < LATENCY_JOBS; i++) {
      const finished = new Promise<void>((resolve) => {
        waiting = { i, resolve };
      });
      await queue.enqueue({ at: now(), i });
      await finished;
      pickups.push(done.get(i)!);
    }
    const BULK_JOBS = bulkJobs(lib);
    bulkLeft = BULK_JOBS;
    const allDone = new Promise<void>((resolve) => {
      bulkDone = resolve;
    });
    const start = now();
    await queue.enqueueMany(
      Array.from({ length: BULK_JOBS }, (_, k) => ({ at: now(), i: 1_000_000 + k })),
    );
    await allDone;
    const seconds = (now() - start) / 1000;
    return {
      lib,
      workers,
      p50: quantile(pickups, 0.5),
      p95: quantile(pickups, 0.95),
      perSecond: BULK_JOBS / seconds,
    };
  } finally {
    for (const child of children) child.disconnect();
    await Promise.all(children.map((c) => (c.exitCode === null ? once(c, "exit") : undefined)));
    await queue.close();
    const pool = new pg.Pool({ connectionString, max: 1 });
    await pool.query(`drop schema if exists ${schema} cascade`);
    await pool.end();
  }
}

const rows = [];
for (const lib of ["graphile-worker", "pg-boss"] as const) {
  for (const workers of [1, 2, 4]) {
    process.stderr.write(`${lib}, ${workers} worker(s)…\n`);
    rows.push(await measure(lib, workers));
  }
}
console.log("queue            workers  pickup p50 ms  pickup p95 ms  jobs/s");
for (const r of rows) {
  console.log(
    `${r.lib.padEnd(16)} ${String(r.workers).padStart(7)}  ${r.p50.toFixed(1).padStart(13)}  ${r.p95.toFixed(1).padStart(13)}  ${r.perSecond.toFixed(0).padStart(6)}`,
  );
}
process.exit(0);
