/**
 * Crons fired by real `stateweaver worker` processes on PostgreSQL: with every server down,
 * and beside a server that fires them too, a cron's due time starts one run, never two.
 * Each cron here has one due time (a given second, ending before the next minute), so a
 * second firing would be a second run.
 */
import { randomUUID } from "node:crypto";
import { Client } from "@langchain/langgraph-sdk";
import pg from "pg";
import { afterAll, afterEach, expect, it } from "vitest";
import { PostgresCheckpointer } from "../../src/checkpoint/index.js";
import { PostgresRunQueue } from "../../src/runs/index.js";
import { type RunningServer, startServer } from "../server/fixtures/server.js";
import { dropRunQueueTables, dropStoreTables } from "../setup/store-tables.js";
import { stepsGraph } from "./fixtures/steps-graph.js";
import { WORKER_BIN, WorkerFleet } from "./fixtures/worker-fleet.js";

const pgUrl = process.env.STATEWEAVER_PG_URL;
const prefixes: string[] = [];
const fleets: WorkerFleet[] = [];
const servers: RunningServer[] = [];

afterEach(async () => {
  for (const fleet of fleets.splice(0)) await fleet.stop();
  for (const s of servers.splice(0)) {
    await s.stop();
    await s.checkpointer.close?.();
  }
});

afterAll(async () => {
  if (!pgUrl) return;
  const pool = new pg.Pool({ connectionString: pgUrl });
  for (const prefix of prefixes) {
    await dropStoreTables(pool, prefix);
    await dropRunQueueTables(pool, prefix);
  }
  await pool.end();
});

/** A server for the steps graph on the database's tables under `prefix`, running no runs. */
async function serve(prefix: string): Promise<{ running: RunningServer; client: Client }> {
  const running = await startServer({
    graphs: { steps: stepsGraph().compile() },
    checkpointer: new PostgresCheckpointer({ connectionString: pgUrl!, tablePrefix: prefix }),
    queue: await PostgresRunQueue.open({ connectionString: pgUrl!, tablePrefix: prefix }),
    concurrency: 0,
  });
  servers.push(running);
  return { running, client: new Client({ apiUrl: running.url }) };
}

async function workers(prefix: string): Promise<WorkerFleet> {
  const fleet = new WorkerFleet({
    size: 2,
    databaseUrl: pgUrl!,
    tablePrefix: prefix,
    concurrency: 2,
    leaseMs: 5000,
    bin: WORKER_BIN.sources,
  });
  fleets.push(fleet);
  await fleet.start();
  return fleet;
}

/** A thread cron due once: at a second `inSeconds` from now, ending well before the next minute. */
async function cronDueOnce(client: Client, inSeconds: number) {
  const thread = await client.threads.create();
  const second = (new Date().getUTCSeconds() + inSeconds) % 60;
  const cron = await client.crons.createForThread(thread.thread_id, "steps", {
    schedule: `${second} * * * * *`,
    endTime: new Date(Date.now() + 30_000).toISOString(),
    input: { n: 0 },
    multitaskStrategy: "enqueue",
  });
  return { threadId: thread.thread_id, cron };
}

const until = async (check: () => Promise<boolean>, ms = 20_000) => {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 100));
  }
};

const prefix = () => {
  const p = `sw_wcron_${randomUUID().slice(0, 8)}_`;
  prefixes.push(p);
  return p;
};

it.skipIf(!pgUrl)(
  "workers fire a due cron once while no server is up",
  async () => {
    const tables = prefix();
    const made = await serve(tables);
    // This server only makes the cron; then it is gone before the cron is due.
    await made.running.server.context.crons.stop();
    const { threadId, cron } = await cronDueOnce(made.client, 2);
    await made.running.stop();
    await made.running.checkpointer.close?.();
    servers.splice(0);

    const fleet = await workers(tables);
    const checkpointer = new PostgresCheckpointer({
      connectionString: pgUrl!,
      tablePrefix: tables,
    });
    try {
      // The run's end is its thread's: idle once its ten steps are done.
      await until(async () => {
        const thread = await checkpointer.getThread(threadId);
        return thread?.status === "idle" && thread.latestCheckpointId !== "";
      });
    } finally {
      await checkpointer.close();
    }
    // Two more ticks of each worker: none fires the due time again. Then a server back
    // (firing nothing itself) shows the one run, and the cron done.
    await new Promise((r) => setTimeout(r, 2500));
    const { running, client } = await serve(tables);
    await running.server.context.crons.stop();
    const runs = await client.runs.list(threadId);
    expect(runs.map((r) => [r.status, r.metadata?.cron_id])).toEqual([["success", cron.cron_id]]);
    expect((await client.threads.getState(threadId)).values).toMatchObject({ n: 10 });
    const [after] = await client.crons.search({ threadId });
    expect(after!.next_run_date).toBeNull();
    expect(fleet.unexpectedExits).toEqual([]);
  },
  60_000,
);

it.skipIf(!pgUrl)(
  "a server and two workers fire a due cron once between them",
  async () => {
    const tables = prefix();
    const { client } = await serve(tables);
    const fleet = await workers(tables);
    const { threadId, cron } = await cronDueOnce(client, 2);
    await until(async () => (await client.runs.list(threadId)).length > 0);
    const [run] = await client.runs.list(threadId);
    expect(await client.runs.join(threadId, run!.run_id)).toMatchObject({ n: 10 });
    // Two more ticks of every process: none fires the due time again.
    await new Promise((r) => setTimeout(r, 2500));
    const runs = await client.runs.list(threadId);
    expect(runs.map((r) => [r.status, r.metadata?.cron_id])).toEqual([["success", cron.cron_id]]);
    const [after] = await client.crons.search({ threadId });
    expect(after!.next_run_date).toBeNull();
    expect(fleet.unexpectedExits).toEqual([]);
  },
  60_000,
);
