/**
 * The durability test of background runs: four real `stateweaver worker` processes on the
 * local PostgreSQL execute 1,000 runs of the ten-step graph while one of them, picked at
 * random every one to three seconds, is killed with SIGKILL and started again. A killed
 * worker's runs wait out their lease and are continued by another worker from their last
 * checkpoint. Every run must end once, in success, with exactly the state one undisturbed
 * run gives.
 */
import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, expect, it } from "vitest";
import { MemoryCheckpointer, PostgresCheckpointer } from "../../src/checkpoint/index.js";
import { createRuns, PostgresRunQueue, type Runs } from "../../src/runs/index.js";
import { dropDeploymentTables } from "../setup/store-tables.js";
import { STEPS, stepsGraph } from "./fixtures/steps-graph.js";
import { WORKER_BIN, WorkerFleet } from "./fixtures/worker-fleet.js";

const pgUrl = process.env.STATEWEAVER_PG_URL;
const RUNS = 1000;
const WORKERS = 4;
const LEASE_MS = 2000;
const tablePrefix = `sw_kill_${randomUUID().slice(0, 8)}_`;

type StepsGraph = ReturnType<ReturnType<typeof stepsGraph>["compile"]>;

let fleet: WorkerFleet | undefined;
let runs: Runs | undefined;
let checkpointer: PostgresCheckpointer | undefined;

/** The steps of a thread's history, oldest first, after checking it is one chain. */
async function stepsOf(graph: StepsGraph, config: { configurable: { thread_id: string } }) {
  const history: Awaited<ReturnType<StepsGraph["getState"]>>[] = [];
  for await (const snapshot of graph.getStateHistory(config)) history.push(snapshot);
  history.forEach((snapshot, i) => {
    const older = history[i + 1]?.config.configurable?.checkpoint_id;
    expect(snapshot.parentConfig?.configurable?.checkpoint_id).toBe(older);
  });
  return [...new Set(history.map((s) => s.metadata?.step))].reverse();
}

afterAll(async () => {
  await fleet?.stop();
  await runs?.close();
  await checkpointer?.close();
  if (!pgUrl) return;
  await dropDeploymentTables(pgUrl, tablePrefix);
});

it.skipIf(!pgUrl)(
  "runs survive workers killed with SIGKILL: each ends once, in success, with the exact final state",
  async () => {
    const connectionString = pgUrl!;
    checkpointer = new PostgresCheckpointer({ connectionString, tablePrefix });
    const queue = await PostgresRunQueue.open({ connectionString, tablePrefix });
    const graph = stepsGraph().compile({ checkpointer });
    // This process only creates runs and listens; the workers execute them.
    runs = createRuns({ graphs: [graph], queue });
    const successes = new Map<string, number>();
    runs.onSettled((change) => {
      if (change.status === "success")
        successes.set(change.runId, (successes.get(change.runId) ?? 0) + 1);
    });
    await checkpointer.searchThreads({ limit: 1 }); // creates the store's tables once, here

    // What one undisturbed run leaves: its state and how many checkpoints it wrote.
    const reference = stepsGraph().compile({ checkpointer: new MemoryCheckpointer() });
    const config = { configurable: { thread_id: "reference" } };
    await reference.invoke({ n: 0 }, { config });
    const done = (await reference.getState(config)).values;
    const referenceSteps = await stepsOf(reference, config);
    expect(done).toEqual({ n: STEPS, trail: Array.from({ length: STEPS }, (_, i) => i + 1) });

    fleet = new WorkerFleet({
      size: WORKERS,
      databaseUrl: connectionString,
      tablePrefix,
      concurrency: 4,
      leaseMs: LEASE_MS,
      bin: WORKER_BIN.sources,
    });
    await fleet.start();

    const created: Array<{ runId: string; threadId: string }> = [];
    const steps = runs.graph("steps")!;
    for (let i = 0; i < RUNS; i += 50) {
      const batch = Array.from({ length: Math.min(50, RUNS - i) }, () =>
        steps.runs.create(randomUUID(), { n: 0 }, { context: { delayMs: 3 } }),
      );
      for (const run of await Promise.all(batch))
        created.push({ runId: run.runId, threadId: run.threadId });
    }

    const pool = new pg.Pool({ connectionString });
    const unfinished = async () =>
      Number(
        (
          await pool.query(
            `select count(*) from ${tablePrefix}runs where status in ('pending', 'running')`,
          )
        ).rows[0].count,
      );
    const giveUpAt = Date.now() + 8 * 60_000;
    while ((await unfinished()) > 0) {
      if (Date.now() > giveUpAt) {
        throw new Error(
          `${await unfinished()} runs never ended; workers said: ${fleet.stderr.join("").slice(-2000)}`,
        );
      }
      await new Promise((r) => setTimeout(r, 1000 + Math.random() * 2000));
      if ((await unfinished()) > 0) await fleet.killAndRestart(Math.floor(Math.random() * WORKERS));
    }
    await fleet.stop();

    const statuses = await pool.query(
      `select status, count(*)::int as count, max(attempt)::int as attempts
         from ${tablePrefix}runs group by status`,
    );
    const takenOver = await pool.query(
      `select count(*)::int as count from ${tablePrefix}runs where attempt > 1`,
    );
    await pool.end();
    expect(statuses.rows.map((r) => [r.status, r.count])).toEqual([["success", RUNS]]);
    // The chaos was real: workers died holding runs, and others continued them.
    expect(fleet.kills).toBeGreaterThan(0);
    expect(takenOver.rows[0].count).toBeGreaterThan(0);

    for (const { runId, threadId } of created) {
      expect(successes.get(runId), `run ${runId} ended in success once`).toBe(1);
      const threadConfig = { configurable: { thread_id: threadId } };
      expect((await steps.getState(threadConfig)).values).toEqual(done);
      // One unbroken chain with the undisturbed run's steps: nothing forked. (A run continued
      // by another worker checkpoints the barrier it continues from again, so a step may repeat.)
      expect(await stepsOf(steps, threadConfig)).toEqual(referenceSteps);
    }
  },
  10 * 60_000,
);
