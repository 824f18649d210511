/**
 * One queue worker process for `queues.ts`: takes no-op jobs one at a time from pg-boss or
 * graphile-worker and tells the parent, for each, how long after its enqueue it started.
 *
 *   node --import tsx test/bench/queues/worker.ts <pg-boss|graphile-worker> <schema>
 */
import { Logger, run } from "graphile-worker";
import PgBoss from "pg-boss";

const [lib, schema] = process.argv.slice(2);
const connectionString = process.env.STATEWEAVER_PG_URL!;
const now = () => performance.timeOrigin + performance.now();
const report = (payload: { at: number; i: number }) => {
  process.send!({ pickupMs: now() - payload.at, i: payload.i });
};

if (lib === "graphile-worker") {
  const runner = await run({
    connectionString,
    schema,
    concurrency: 1,
    noHandleSignals: true,
    pollInterval: 2000,
    logger: new Logger(() => () => {}),
    taskList: { run: async (payload) => report(payload as { at: number; i: number }) },
  });
  process.send!({ ready: true });
  process.on("disconnect", () => void runner.stop().then(() => process.exit(0)));
} else {
  const boss = new PgBoss({ connectionString, schema });
  boss.on("error", () => {});
  await boss.start();
  await boss.work<{ at: number; i: number }>(
    "runs",
    { pollingIntervalSeconds: 0.5, batchSize: 1 },
    async ([job]) => report(job!.data),
  );
  process.send!({ ready: true });
  process.on("disconnect", () => void boss.stop({ graceful: false }).then(() => process.exit(0)));
}
