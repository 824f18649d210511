/**
 * How a PostgreSQL run queue's consumer comes through graphile-worker's pool shutting down.
 *
 * graphile-worker shuts its worker pool down when it cannot store a job's completion, and
 * that shutdown can wait forever: after a failed completion batch beside one that succeeds,
 * its batcher counts its pending batches below zero and never releases. The pool then holds
 * no job and fetches none, and a worker process sat idle behind it (the database-fault test
 * saw runs left pending for minutes). The queue's consumer must end anyway, so that the
 * worker starts a new pool.
 *
 * A pool that shuts down while its LISTEN connection drops releases that connection twice
 * (from the shutdown and from the connection's error handler); the second release must not
 * end the process (the harsher fault run saw a worker exit on it).
 *
 * graphile-worker also stops a pool, and the runner around it, on any schema's
 * breaking-migration notice; stopping that consumer (or closing its queue) afterwards is
 * then nothing left to do, not an error.
 */
import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { PostgresRunQueue } from "../../src/runs/index.js";
import { dropRunQueueTables } from "../setup/store-tables.js";
import { ListenHoldingProxy } from "./fixtures/listen-holding-proxy.js";

const pgUrl = process.env.STATEWEAVER_PG_URL;
const tablePrefix = `sw_poolend_${randomUUID().slice(0, 8)}_`;
const schema = `${tablePrefix}queue`;
const listenPrefix = `sw_listendrop_${randomUUID().slice(0, 8)}_`;
const noticePrefix = `sw_migratenotice_${randomUUID().slice(0, 8)}_`;

let queue: PostgresRunQueue | undefined;
const admin = pgUrl ? new pg.Pool({ connectionString: pgUrl, max: 2 }) : undefined;

afterAll(async () => {
  await queue?.close();
  if (!admin) return;
  await dropRunQueueTables(admin, tablePrefix);
  await dropRunQueueTables(admin, listenPrefix);
  await dropRunQueueTables(admin, noticePrefix);
  await admin.end();
});

const newRun = (runId: string) => ({
  runId,
  threadId: randomUUID(),
  graphId: "g",
  multitaskStrategy: "reject" as const,
  request: { input: null },
  metadata: {},
});

describe.skipIf(!pgUrl)("a PostgreSQL run queue's consumer", () => {
  it("ends when graphile-worker's pool shuts down, even though that shutdown never finishes", async () => {
    queue = await PostgresRunQueue.open({
      connectionString: pgUrl!,
      tablePrefix,
      pollInterval: 100,
    });
    const [refused, quick, last] = [randomUUID(), randomUUID(), randomUUID()];
    // Storing the completion of `refused` fails (an error no retry gets past), which starts
    // the pool's shutdown; `quick`'s completion is stored after that failure while `last`
    // keeps the shutdown waiting, and `last` then fails rather than completes: graphile's
    // completion batcher is left counting below zero, and its release waits forever.
    await admin!.query(`
      create function ${schema}.completion_fault() returns trigger language plpgsql as $$
        begin
          if old.payload->>'runId' = '${refused}' then raise exception 'refused by the test'; end if;
          return old;
        end $$;
      create trigger completion_fault before delete on ${schema}._private_jobs
        for each row execute function ${schema}.completion_fault();`);
    const handled: string[] = [];
    let allStarted!: () => void;
    const started = new Promise<void>((resolve) => {
      allStarted = resolve;
    });
    let release!: () => void;
    const go = new Promise<void>((resolve) => {
      release = resolve;
    });
    const consumer = await queue.consume(
      async (runId) => {
        handled.push(runId);
        if (handled.length === 3) allStarted();
        await go;
        const endsAfterMs = runId === refused ? 0 : runId === quick ? 100 : 600;
        await new Promise((r) => setTimeout(r, endsAfterMs));
        // The shutdown's last worker ends with a failure (no completion in flight then).
        if (runId === last) throw new Error("the last job fails");
      },
      { concurrency: 3 },
    );
    for (const runId of [refused, quick, last]) await queue.enqueue(newRun(runId));
    await started;
    release();
    // Before the fix this never settled: the pool's own promise waits on the batcher forever.
    await consumer.ended;
    expect(handled.sort()).toEqual([refused, quick, last].sort());
    expect(consumer.workerIds()).toEqual([]);
  });

  it("survives its LISTEN connection dropping while its pool shuts down (graphile-worker releases it twice)", async () => {
    // graphile-worker's LISTEN query is held in flight by the proxy, so the pool's shutdown
    // finds the connection still listening and releases it; the connection then drops,
    // and its error handler releases the same connection again.
    const proxy = await ListenHoldingProxy.start(pgUrl!);
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      const listening = await PostgresRunQueue.open({
        connectionString: proxy.url(pgUrl!),
        tablePrefix: listenPrefix,
      });
      const consumer = await listening.consume(async () => {}, { concurrency: 1 });
      await proxy.listenHeld;
      const stopped = consumer.stop();
      // The shutdown's release has begun: its UNLISTEN waits behind the held LISTEN.
      await new Promise((r) => setImmediate(r));
      proxy.dropListen();
      await stopped;
      // An unhandled rejection is reported once the ticks that made it have run.
      await new Promise((r) => setTimeout(r, 200));
      await listening.close();
      // Before the fix: "Release called on client which has already been released to the pool."
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", onUnhandled);
      await proxy.close();
    }
  });

  it("stops without an error after graphile-worker stopped its pool on another schema's breaking migration", async () => {
    const noticed = await PostgresRunQueue.open({
      connectionString: pgUrl!,
      tablePrefix: noticePrefix,
    });
    // graphile-worker sets the process's exit status as it stops the pool on such a notice.
    const exitCode = process.exitCode;
    try {
      const consumer = await noticed.consume(async () => {}, { concurrency: 1 });
      // Said until heard: the pool's LISTEN may not be in place yet when `consume` returns.
      let ended = false;
      void consumer.ended.then(() => {
        ended = true;
      });
      while (!ended) {
        await admin!.query("select pg_notify('worker:migrate', $1)", [
          JSON.stringify({ migrationNumber: 999_999, breaking: true }),
        ]);
        await new Promise((r) => setTimeout(r, 100));
      }
      // Before the fix: "Runner is already stopped".
      await expect(consumer.stop()).resolves.toBeUndefined();
    } finally {
      await noticed.close();
      process.exitCode = exitCode;
    }
  });
});
