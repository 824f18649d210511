/**
 * The database-fault test of background runs: four real `stateweaver worker` processes on a
 * PostgreSQL server of the test's own execute runs of the ten-step graph while the test
 * terminates their connections at random (`pg_terminate_backend` from a side connection,
 * every one to three seconds) and twice stops the server with `pg_ctl stop -m immediate`
 * and starts it again. Every run must end once, in success, with exactly the state one
 * undisturbed run gives, in one unbroken chain of checkpoints; no run may be left behind
 * and no worker may exit.
 */
import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, expect, it } from "vitest";
import { MemoryCheckpointer, PostgresCheckpointer } from "../../src/checkpoint/index.js";
import { createRuns, PostgresRunQueue, type Runs } from "../../src/runs/index.js";
import { STEPS, stepsGraph } from "../runs/fixtures/steps-graph.js";
import { WORKER_BIN, WorkerFleet } from "../runs/fixtures/worker-fleet.js";
import { PrivatePostgres, postgresBinaries } from "./private-postgres.js";

const RUNS = Number(process.env.STATEWEAVER_FAULT_RUNS ?? 300);
/** Database restarts during the load; more (e.g. 9, with 600 runs) is a harsher run. */
const RESTARTS = Number(process.env.STATEWEAVER_FAULT_RESTARTS ?? 2);
const WORKERS = 4;
const LEASE_MS = 3000;
const tablePrefix = "sw_faults_";
/** The test's own connections: spared by the terminations, so it can watch. */
const OBSERVER = "fault_observer";

type StepsGraph = ReturnType<ReturnType<typeof stepsGraph>["compile"]>;

let server: PrivatePostgres | undefined;
let fleet: WorkerFleet | undefined;
let runs: Runs | undefined;
let checkpointer: PostgresCheckpointer | undefined;

afterAll(async () => {
  await fleet?.stop();
  await runs?.close().catch(() => undefined);
  await checkpointer?.close().catch(() => undefined);
  await server?.destroy();
});

/** `query` again until the database answers (it is being restarted now and then). */
async function patiently<T>(query: () => Promise<T>): Promise<T> {
  for (let i = 0; ; i++) {
    try {
      return await query();
    } catch (error) {
      if (i > 120) throw error;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

async function stepsOf(graph: StepsGraph, config: { configurable: { thread_id: string } }) {
  const history: Awaited<ReturnType<StepsGraph["getState"]>>[] = [];
  for await (const snapshot of graph.getStateHistory(config)) history.push(snapshot);
  history.forEach((snapshot, i) => {
    const older = history[i + 1]?.config.configurable?.checkpoint_id;
    expect(snapshot.parentConfig?.configurable?.checkpoint_id).toBe(older);
  });
  return [...new Set(history.map((s) => s.metadata?.step))].reverse();
}

it.skipIf(!postgresBinaries())(
  "runs survive dropped connections and database restarts: each ends once, in success, with the exact final state, and no worker exits",
  async () => {
    server = await PrivatePostgres.create();
    const connectionString = server.url(OBSERVER);
    checkpointer = new PostgresCheckpointer({ connectionString, tablePrefix });
    const queue = await PostgresRunQueue.open({ connectionString, tablePrefix });
    const graph = stepsGraph().compile({ checkpointer });
    runs = createRuns({ graphs: [graph], queue });
    await checkpointer.searchThreads({ limit: 1 }); // creates the store's tables once, here
    const observer = new pg.Pool({ connectionString, max: 2 });
    observer.on("error", () => {});
    // Every end a run is given, counted by the database itself in the same transaction:
    // notifications would be lost with the connections this test cuts.
    await observer.query(`
      create table fault_settles (run_id text not null, status text not null);
      create function fault_settle() returns trigger language plpgsql as $$
        begin insert into fault_settles values (new.run_id, new.status); return new; end $$;
      create trigger fault_settle after update of status on ${tablePrefix}runs for each row
        when (new.status in ('success', 'error', 'interrupted', 'cancelled')
              and old.status is distinct from new.status)
        execute function fault_settle();`);

    const reference = stepsGraph().compile({ checkpointer: new MemoryCheckpointer() });
    const config = { configurable: { thread_id: "reference" } };
    await reference.invoke({ n: 0 }, { config });
    const done = (await reference.getState(config)).values;
    const referenceSteps = await stepsOf(reference, config);
    expect(done).toEqual({ n: STEPS, trail: Array.from({ length: STEPS }, (_, i) => i + 1) });

    fleet = new WorkerFleet({
      size: WORKERS,
      databaseUrl: server.url(),
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
        // 30 ms a step: a run lasts ~0.3 s, so the load spans several fault rounds on a
        // quick machine too, and a restart meets runs in flight (5 ms let it end first).
        steps.runs.create(randomUUID(), { n: 0 }, { context: { delayMs: 30 } }),
      );
      for (const run of await Promise.all(batch))
        created.push({ runId: run.runId, threadId: run.threadId });
    }

    const unfinished = async () =>
      Number(
        (
          await patiently(() =>
            observer.query(
              `select count(*) from ${tablePrefix}runs where status in ('pending', 'running')`,
            ),
          )
        ).rows[0].count,
      );
    let terminated = 0;
    let restarts = 0;
    const startedAt = Date.now();
    const giveUpAt = startedAt + 4 * 60_000;
    // The restarts follow the runs' progress, not the clock (a quiet machine ends the load
    // within seconds): by default when a fifth and when over half of the runs have ended,
    // each after the one before if the load ran past several at once; terminations every round.
    const restartBelow = Array.from(
      { length: RESTARTS },
      (_, i) => RUNS * (0.8 - (0.7 * i) / RESTARTS),
    );
    let left = await unfinished();
    // Until every run ended and every restart happened (a quick load may end before the last).
    while (left > 0 || restartBelow.length > 0) {
      if (Date.now() > giveUpAt) {
        // Each stuck run with every job of its thread's queue (keyed or not) and that queue's lock.
        const stuck = await observer.query(
          `select r.run_id, r.status, r.attempt, r.worker_id, r.lease_until, w.seen_at,
                  q.locked_by as queue_locked_by, q.locked_at as queue_locked_at, now() as now,
                  (select json_agg(json_build_object('key', j.key, 'locked_by', j.locked_by,
                          'run_at', j.run_at, 'attempts', j.attempts, 'last_error', j.last_error))
                     from ${tablePrefix}queue._private_jobs j where j.job_queue_id = q.id) as jobs
             from ${tablePrefix}runs r
             left join ${tablePrefix}queue._private_job_queues q on q.queue_name = 'thread:' || r.thread_id
             left join ${tablePrefix}run_workers w on w.worker_id = r.worker_id
            where r.status in ('pending', 'running')`,
        );
        // What the workers' connections were doing, which pools held jobs, who beat last.
        const sessions = await observer.query(
          `select pid, application_name, state, wait_event_type, wait_event,
                  round(extract(epoch from now() - state_change))::int as for_s, left(query, 160) as query
             from pg_stat_activity
            where backend_type = 'client backend' and application_name <> $1`,
          [OBSERVER],
        );
        const held = await observer.query(
          `select locked_by, count(*)::int as jobs from ${tablePrefix}queue._private_jobs
            where locked_by is not null group by locked_by`,
        );
        const beats = await observer.query(`select * from ${tablePrefix}run_workers`);
        throw new Error(
          `${stuck.rows.length} runs never ended: ${JSON.stringify(stuck.rows, null, 1)}; sessions: ${JSON.stringify(sessions.rows)}; jobs held: ${JSON.stringify(held.rows)}; worker beats: ${JSON.stringify(beats.rows)}; workers alive: ${fleet.alive()}, exited: ${JSON.stringify(fleet.unexpectedExits)}; workers said: ${fleet.stderr.join("").slice(-3000)}`,
        );
      }
      await new Promise((r) => setTimeout(r, 1000 + Math.random() * 2000));
      // About a third of the workers' connections (one at least), whatever they were doing:
      // every round, so a load that ends within a few rounds still meets them.
      const cut = await patiently(() =>
        observer.query(
          `with workers as (
             select pid from pg_stat_activity
              where backend_type = 'client backend' and pid <> pg_backend_pid()
                and application_name <> $1)
           select count(*) filter (where pg_terminate_backend(pid))::int as n
             from (select pid from workers order by random()
                    limit (select greatest(1, ceil(count(*) * 0.35))::int from workers)) chosen`,
          [OBSERVER],
        ),
      );
      terminated += cut.rows[0].n as number;
      while (restartBelow[0] !== undefined && (await unfinished()) <= restartBelow[0]) {
        restartBelow.shift();
        await server.stopImmediately();
        await new Promise((r) => setTimeout(r, 1500 + Math.random() * 1500));
        await server.start();
        restarts++;
      }
      left = await unfinished();
    }
    const loadSeconds = (Date.now() - startedAt) / 1000;
    await fleet.stop();

    const statuses = await observer.query(
      `select status, count(*)::int as count from ${tablePrefix}runs group by status`,
    );
    const settles = await observer.query(
      `select run_id, count(*)::int as count from fault_settles group by run_id`,
    );
    const retried = await observer.query(
      `select count(*)::int as count from ${tablePrefix}runs where attempt > 1`,
    );
    await observer.end();
    console.info(
      `database faults: ${RUNS} runs in ${loadSeconds.toFixed(0)} s, ${terminated} connections terminated, ${restarts} restarts, ${retried.rows[0].count} runs continued by a later attempt`,
    );
    expect(fleet.unexpectedExits).toEqual([]);
    expect(statuses.rows.map((r) => [r.status, r.count])).toEqual([["success", RUNS]]);
    expect(settles.rows.length).toBe(RUNS);
    expect(settles.rows.filter((r) => r.count !== 1)).toEqual([]);
    // The faults were real: connections were cut, the server restarted, runs were retried.
    expect(terminated).toBeGreaterThan(0);
    expect(restarts).toBe(RESTARTS);
    expect(retried.rows[0].count).toBeGreaterThan(0);

    for (const { threadId } of created) {
      const threadConfig = { configurable: { thread_id: threadId } };
      expect((await steps.getState(threadConfig)).values).toEqual(done);
      expect(await stepsOf(steps, threadConfig)).toEqual(referenceSteps);
      expect((await checkpointer.getThread(threadId))?.status).toBe("idle");
    }
  },
  6 * 60_000,
);
