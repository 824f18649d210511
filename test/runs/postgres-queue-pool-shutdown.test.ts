/**
 * graphile-worker shuts its worker pool down when it cannot store a job's completion, and
 * that shutdown can wait forever: after a failed completion batch beside one that succeeds,
 * its batcher counts its pending batches below zero and never releases. The pool then holds
 * no job and fetches none, and a worker process sat idle behind it (the database-fault test
 * saw runs left pending for minutes). The queue's consumer must end anyway, so that the
 * worker starts a new pool.
 */
import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { PostgresRunQueue } from "../../src/runs/index.js";
import { dropRunQueueTables } from "../setup/store-tables.js";

const pgUrl = process.env.STATEWEAVER_PG_URL;
const tablePrefix = `sw_poolend_${randomUUID().slice(0, 8)}_`;
const schema = `${tablePrefix}queue`;

let queue: PostgresRunQueue | undefined;
const admin = pgUrl ? new pg.Pool({ connectionString: pgUrl, max: 2 }) : undefined;

afterAll(async () => {
  await queue?.close();
  if (!admin) return;
  await dropRunQueueTables(admin, tablePrefix);
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
});
