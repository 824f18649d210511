/**
 * A graceful shutdown hands a run back, and that is not a failure: however often it
 * happens, the run's job is due at once with no attempts counted, and the next worker
 * takes the run straight away and finishes it from its last checkpoint.
 */
import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, expect, it } from "vitest";
import { PostgresCheckpointer } from "../../src/checkpoint/index.js";
import { createRuns, PostgresRunQueue, type Runs } from "../../src/runs/index.js";
import { dropDeploymentTables } from "../setup/store-tables.js";
import { STEPS, stepsGraph } from "./fixtures/steps-graph.js";

const pgUrl = process.env.STATEWEAVER_PG_URL;
const tablePrefix = `sw_handback_${randomUUID().slice(0, 8)}_`;
const RESTARTS = 6;
let checkpointer: PostgresCheckpointer | undefined;
const opened: Runs[] = [];

afterAll(async () => {
  for (const runs of opened) await runs.close();
  await checkpointer?.close();
  if (!pgUrl) return;
  await dropDeploymentTables(pgUrl, tablePrefix);
});

it.skipIf(!pgUrl)(
  "a run handed back by six graceful shutdowns in a row is due again at once each time, and ends in success",
  async () => {
    const connectionString = pgUrl!;
    checkpointer = new PostgresCheckpointer({ connectionString, tablePrefix });
    const graph = stepsGraph().compile({ checkpointer });
    const worker = async () => {
      const queue = await PostgresRunQueue.open({ connectionString, tablePrefix });
      const runs = createRuns({ graphs: [graph], queue, leaseMs: 3000 });
      opened.push(runs);
      await runs.work({ concurrency: 1 });
      return runs;
    };
    const pool = new pg.Pool({ connectionString });
    const job = async (runId: string) =>
      (
        await pool.query(
          `select attempts, run_at <= now() as due, locked_at from ${tablePrefix}queue._private_jobs where key = $1`,
          [runId],
        )
      ).rows[0];

    let runs = await worker();
    const run = await runs
      .graph("steps")!
      .runs.create(randomUUID(), { n: 0 }, { context: { delayMs: 400 } });
    const pickups: number[] = [];
    for (let i = 1; i <= RESTARTS; i++) {
      // Wait until this worker holds the run, then shut it down gracefully.
      for (;;) {
        const now = await runs.queue.get(run.runId);
        if (now?.status === "running" && now.attempt === i) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      opened.splice(opened.indexOf(runs), 1);
      await runs.close();
      const handedBack = Date.now();
      // Due now, not after a retry delay, and nothing counted against it.
      expect(await job(run.runId)).toMatchObject({ attempts: 0, due: true, locked_at: null });
      runs = await worker();
      for (;;) {
        const now = await runs.queue.get(run.runId);
        if (now?.attempt === i + 1) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      pickups.push(Date.now() - handedBack);
    }
    const ended = await runs.join(run.runId);
    await pool.end();
    expect(ended.status).toBe("success");
    expect((await graph.getState({ configurable: { thread_id: run.threadId } })).values).toEqual({
      n: STEPS,
      trail: Array.from({ length: STEPS }, (_, i) => i + 1),
    });
    // graphile-worker's own retry delay would be 2.7 s, then 7.4 s, 20 s, 55 s…
    expect(Math.max(...pickups)).toBeLessThan(2500);
  },
  120_000,
);
