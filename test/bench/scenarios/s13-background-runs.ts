/**
 * S13: background runs on PostgreSQL. Real `stateweaver worker` processes (the build's bin)
 * execute runs of the ten-step graph (test/runs/fixtures/steps-graph.ts, no delays) that this
 * process creates through `graph.runs.create`, on the local PostgreSQL:
 * - pickup: with idle workers, runs created one after another, each once the last ended;
 *   from the run's creation to a worker taking it (both stamped by the database): p50, p95;
 * - throughput: runs created at once, until the last ended: runs per second, with 1, 2 and
 *   4 worker processes (4 runs at once each).
 * There is no peer: the figure is held to the budget, pickup p50 ≤ 20 ms, so
 * `ours_us` is that p50 and `peer_us` the budget. Needs STATEWEAVER_PG_URL.
 */
import { randomUUID } from "node:crypto";
import { PostgresCheckpointer } from "stateweaver/checkpoint";
import { createRuns, PostgresRunQueue } from "stateweaver/runs";
import { stepsGraph } from "../../runs/fixtures/steps-graph.js";
import { WORKER_BIN, WorkerFleet } from "../../runs/fixtures/worker-fleet.js";
import { dropDeploymentTables } from "../../setup/store-tables.js";
import { check, result, round, type Scenario } from "../scenario.js";

const BUDGET_MS = 20;
const quantile = (xs: number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;

async function measure(url: string, workers: number, pickups: number, bulk: number) {
  const tablePrefix = `sw_bench_runs_${randomUUID().slice(0, 8)}_`;
  const checkpointer = new PostgresCheckpointer({ connectionString: url, tablePrefix });
  await checkpointer.searchThreads({ limit: 1 }); // the store's tables, before the workers start
  const queue = await PostgresRunQueue.open({ connectionString: url, tablePrefix });
  const runs = createRuns({ graphs: [stepsGraph().compile({ checkpointer })], queue });
  const steps = runs.graph("steps")!;
  const fleet = new WorkerFleet({
    size: workers,
    databaseUrl: url,
    tablePrefix,
    concurrency: 4,
    leaseMs: 30_000,
    bin: WORKER_BIN.build,
  });
  try {
    await fleet.start();
    const pickupMs: number[] = [];
    for (let i = 0; i < pickups; i++) {
      const run = await steps.runs.create(randomUUID(), { n: 0 });
      const ended = await runs.join(run.runId);
      check(ended.status === "success", "S13 run ends in success", ended);
      pickupMs.push(Date.parse(ended.startedAt!) - Date.parse(ended.createdAt));
    }
    const started = performance.now();
    const created = await Promise.all(
      Array.from({ length: bulk }, () => steps.runs.create(randomUUID(), { n: 0 })),
    );
    for (const run of created) {
      const ended = await runs.join(run.runId);
      check(ended.status === "success", "S13 run ends in success", ended);
    }
    const perSecond = bulk / ((performance.now() - started) / 1000);
    return { pickupMs, perSecond };
  } finally {
    await fleet.stop();
    await runs.close();
    await checkpointer.close();
    await dropDeploymentTables(url, tablePrefix);
  }
}

export const s13: Scenario = {
  id: "S13",
  title: "background runs: pickup and throughput, 1/2/4 workers",
  async run({ quick, log }) {
    const url = process.env.STATEWEAVER_PG_URL;
    check(url !== undefined, "S13 needs STATEWEAVER_PG_URL (the local PostgreSQL)", url);
    const extra: Record<string, number | string> = {};
    let pickupMs: number[] = [];
    for (const workers of [1, 2, 4]) {
      const m = await measure(url!, workers, quick ? 20 : 60, quick ? 100 : 400);
      log(`  ${workers} worker(s): ${round(m.perSecond)} runs/s`);
      extra[`runs_per_s_${workers}w`] = round(m.perSecond);
      extra[`pickup_p50_ms_${workers}w`] = round(quantile(m.pickupMs, 0.5));
      extra[`pickup_p95_ms_${workers}w`] = round(quantile(m.pickupMs, 0.95));
      pickupMs = pickupMs.concat(m.pickupMs);
    }
    extra.pickup_p95_ms = round(quantile(pickupMs, 0.95));
    return result({
      scenario: "S13",
      title: this.title,
      ours_us: quantile(pickupMs, 0.5) * 1000,
      peer_us: BUDGET_MS * 1000,
      target: 1,
      peer: `the issue's budget (pickup p50 ≤ ${BUDGET_MS} ms; a run is 10 checkpointed steps)`,
      extra,
    });
  },
};
