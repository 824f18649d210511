import { EventEmitter } from "node:events";
import { Logger, runMigrations, run as runWorkers, type WorkerEvents } from "graphile-worker";
import type { Client, Pool, PoolClient } from "pg";
import { prepared } from "../../checkpoint/prepared-statement.js";
import { multitaskDecision } from "../multitask.js";
import type {
  Delivery,
  DeliveryOutcome,
  NewRun,
  RunChange,
  RunEnd,
  RunQueue,
  ScheduledJob,
  Taken,
} from "../queue.js";
import type { QueuedRun, RunListOptions, StopAction } from "../run.js";
import { createRunTables, runTables } from "./postgres-schema.js";
import { releaseOncePool } from "./release-once-pool.js";

/** graphile-worker's task name for "execute this run". */
const RUN_TASK = "stateweaver_run";
/** graphile-worker's task name for a `ScheduledJob` that fell due. */
const SCHEDULED_TASK = "stateweaver_scheduled";
/** graphile-worker's task name for "attempt this delivery" (a webhook). */
const DELIVERY_TASK = "stateweaver_delivery";
/**
 * How long an ended delivery's row is kept (7 days): while it is, the same event is not
 * delivered again; after, nobody queues it any more.
 */
const ENDED_DELIVERY_KEPT_MS = 7 * 24 * 3600 * 1000;
/**
 * How long a scheduled job waits when a run of its thread is running, and a run when a
 * scheduled job of its thread is worked on: one goes first, the other looks again then.
 */
const SCHEDULED_WAIT_MS = 1000;
/** How long a job this process completed still counts as in hand (graphile-worker retries storing it). */
const COMPLETION_GRACE_MS = 60_000;
/**
 * A run row's columns, named rather than `*`: the hot statements are prepared per
 * connection, and a prepared `*` fails once a later migration adds a column.
 */
const RUN_COLUMNS = `run_id, thread_id, graph_id, status, multitask_strategy, request, metadata,
  error, attempt, cancel_action, created_at, updated_at, started_at, ended_at`;

/** Options of `PostgresRunQueue`. */
export interface PostgresRunQueueOptions {
  /** e.g. `postgres://user@host:5432/db` (the same database as the checkpoints). */
  connectionString: string;
  /** Prefix of the run tables, as the checkpointer's (`"stateweaver_"` by default). */
  tablePrefix?: string;
  /** graphile-worker's schema (default: the prefix followed by `queue`). */
  schema?: string;
  /**
   * How often idle workers look for jobs scheduled for later (ms); new jobs arrive by NOTIFY.
   * A review deadline fires up to this long after its time.
   */
  pollInterval?: number;
}

/**
 * Runs on PostgreSQL: records in a `<prefix>runs` table, dispatched as graphile-worker jobs.
 * Any number of processes on any machines may share it: `stateweaver worker`, servers, your
 * own code.
 *
 * A thread's runs go one at a time, in order: `take` refuses a pending run while another run
 * of its thread is running or an older one is due, and its job is dropped; the run's turn
 * comes when the run before it ends or is cancelled, which gives it a job due at its own due
 * time (`after_seconds`, kept on its row) or now, whichever is later. Run jobs have no named
 * queue: graphile-worker's job fetch locks every named queue there is, one row per queue
 * kept for good, so one per thread made every fetch slower as threads accumulated. Scheduled
 * jobs (review deadlines) keep the thread's named queue, and `take` refuses a run while that
 * queue is locked, i.e. while one of them is worked on; `sweep` removes queue rows no job is
 * in.
 *
 * A worker holds a run under a lease that its process renews; when a process dies, the
 * others free its jobs once the lease runs out (graphile-worker's `force_unlock_workers`),
 * and the next worker continues the run from its last checkpoint.
 *
 * Lock order: a thread's admissions take turns on an advisory lock of the thread (`enqueue`),
 * under which the run rows it stops are updated oldest first; `take` locks its thread's
 * active runs oldest first, then share-locks the thread's named queue; every other statement
 * changes one run row, or (`heartbeat`) the running runs of one process, one per thread. No
 * transaction locks both these tables and the checkpointer's (the admission check reads the
 * thread's latest checkpoint without a lock), so no lock cycle spans the two.
 *
 * @example
 * const queue = new PostgresRunQueue({ connectionString: process.env.DATABASE_URL! });
 * const runs = createRuns({ graphs: [graph], queue });
 */
export class PostgresRunQueue implements RunQueue {
  readonly #options: PostgresRunQueueOptions;
  readonly #t: ReturnType<typeof runTables>;
  readonly #schema: string;
  readonly #pool: Pool;
  /** The statements every run goes through, sent prepared. */
  readonly #sql: ReturnType<typeof runStatements>;
  #ready: Promise<void> | undefined;
  readonly #listeners = new Set<(change: RunChange) => void>();
  #listening: Promise<Client> | undefined;
  #closed = false;
  readonly #stops = new Set<() => Promise<void>>();
  /**
   * The jobs this process's workers work on, by id, and those whose completion graphile-worker
   * may still be storing (with when they finished): every other job locked in the name of
   * this process's pools is a stray (see `heartbeat`).
   */
  readonly #working = new Set<string>();
  readonly #finished = new Map<string, number>();

  constructor(options: PostgresRunQueueOptions, pool: Pool) {
    this.#options = options;
    const prefix = options.tablePrefix ?? "stateweaver_";
    this.#t = runTables(prefix);
    this.#schema = options.schema ?? `${prefix}queue`;
    this.#pool = pool;
    this.#sql = runStatements(this.#t, this.#schema);
  }

  /**
   * Open a queue on `connectionString` (creates its tables and graphile-worker's schema on
   * first use).
   */
  static async open(options: PostgresRunQueueOptions): Promise<PostgresRunQueue> {
    // graphile-worker may release its LISTEN connection twice (see `releaseOncePool`).
    const pool = await releaseOncePool({ connectionString: options.connectionString, max: 10 });
    // A dropped idle connection is an event, not a crash; the next query reconnects.
    pool.on("error", () => {});
    // graphile-worker asks that every checked-out client has a handler too.
    pool.on("connect", (client) => client.on("error", () => {}));
    const queue = new PostgresRunQueue(options, pool);
    await queue.#prepare();
    return queue;
  }

  #prepare(): Promise<void> {
    this.#ready ??= (async () => {
      await runMigrations({ pgPool: this.#pool, schema: this.#schema, logger: quiet });
      await this.#transaction(async (q) => {
        await q.query("select pg_advisory_xact_lock(hashtext($1))", [this.#t.runs]);
        await q.query(createRunTables(this.#t, this.#schema));
        // The run statement inserts its job itself, naming this task (see `insert`).
        await q.query(
          `insert into ${this.#schema}._private_tasks (identifier) values ($1) on conflict do nothing`,
          [RUN_TASK],
        );
      });
    })();
    return this.#ready;
  }

  async enqueue(
    init: NewRun,
    admit?: () => Promise<void>,
  ): Promise<{ run: QueuedRun; stopping: QueuedRun[] }> {
    return this.#transaction(async (q) => {
      // One admission at a time per thread: the thread's lock is taken by the statement that
      // inserts the run and its job (neither is seen by others before this commits), so the
      // runs read after it are what is active now, and the strategy is decided on them.
      const inserted = await q.query(
        prepared(this.#sql.insert, [
          init.runId,
          init.threadId,
          init.graphId,
          init.multitaskStrategy,
          JSON.stringify(init.request),
          JSON.stringify(init.metadata),
          RUN_TASK,
          Math.max(0, init.delayMs ?? 0),
          `${this.#t.runs}:${init.threadId}`,
        ]),
      );
      // No row: the run task is missing (removed after `open`), so the run would have no job.
      if (!inserted.rows[0]) {
        throw new Error(
          `The run queue's task ${RUN_TASK} is missing from ${this.#schema}._private_tasks; open the queue again to add it.`,
        );
      }
      const active = await q.query(prepared(this.#sql.active, [init.threadId, init.runId]));
      // A refusal below rolls the run and its job back.
      const { stop } = multitaskDecision(
        init.multitaskStrategy,
        init.threadId,
        active.rows.map((r) => ({ runId: r.run_id as string, status: r.status as "pending" })),
      );
      // Under the thread's lock: no run of it can be admitted (or end unseen) meanwhile.
      await admit?.();
      const stopping: QueuedRun[] = [];
      for (const { runId, action } of stop) {
        const stopped = await this.#requestCancel(q, runId, action);
        if (stopped) stopping.push(stopped);
      }
      return { run: runOf(inserted.rows[0]!), stopping };
    });
  }

  async delete(runId: string): Promise<boolean> {
    const r = await this.#pool.query(
      `delete from ${this.#t.runs}
        where run_id = $1 and status in ('success', 'error', 'interrupted', 'cancelled')`,
      [runId],
    );
    return (r.rowCount ?? 0) > 0;
  }

  async get(runId: string): Promise<QueuedRun | undefined> {
    const r = await this.#pool.query(prepared(this.#sql.get, [runId]));
    return r.rows[0] ? runOf(r.rows[0]) : undefined;
  }

  async list(options: RunListOptions): Promise<QueuedRun[]> {
    const r = await this.#pool.query(
      prepared(this.#sql.list, [
        options.threadId ?? null,
        options.status ?? null,
        options.limit ?? 50,
      ]),
    );
    return r.rows.map(runOf);
  }

  async activeOn(threadId: string): Promise<QueuedRun | undefined> {
    const r = await this.#pool.query(prepared(this.#sql.activeOn, [threadId]));
    return r.rows[0] ? runOf(r.rows[0]) : undefined;
  }

  /** Whether a run of the thread is running (a worker holds it, or its lease ran out). */
  async #running(threadId: string): Promise<boolean> {
    const r = await this.#pool.query(
      `select 1 from ${this.#t.runs} where thread_id = $1 and status = 'running' limit 1`,
      [threadId],
    );
    return (r.rowCount ?? 0) > 0;
  }

  async requestCancel(runId: string, action: StopAction) {
    return this.#transaction((q) => this.#requestCancel(q, runId, action));
  }

  async #requestCancel(q: PoolClient, runId: string, action: StopAction) {
    // A pending run cancelled may have been its thread's turn (the runs behind it were
    // refused and dropped their jobs): the next one gets a job, at its due time.
    const r = await q.query(
      `with stopped as (
         update ${this.#t.runs} set
           status = case when status = 'pending' then 'cancelled' else status end,
           ended_at = case when status = 'pending' then clock_timestamp() else ended_at end,
           cancel_action = case when status = 'running' then coalesce(cancel_action, $2) end,
           updated_at = clock_timestamp()
         where run_id = $1 and status in ('pending', 'running')
         returning ${RUN_COLUMNS}),
       next as (${nextRunJob(this.#t, this.#schema, "stopped", "$3", "stopped.status = 'cancelled'")})
       select ${RUN_COLUMNS}, (select count(*) from next) as woke from stopped`,
      [runId, action, RUN_TASK],
    );
    const run = r.rows[0] ? runOf(r.rows[0]) : await this.get(runId);
    if (r.rows[0]) await this.#notify(q, run!);
    return run;
  }

  async consume(
    handler: (runId: string, workerId: string) => Promise<void>,
    options: {
      concurrency: number;
      onScheduled?: (job: ScheduledJob) => Promise<void>;
      onDelivery?: (delivery: Delivery, attempt: number) => Promise<DeliveryOutcome>;
    },
  ) {
    const { onScheduled, onDelivery } = options;
    const events: WorkerEvents = new EventEmitter();
    const workerIds = new Set<string>();
    // graphile-worker locks jobs in the name of its worker pool (one per process), not of
    // each worker: the pool's id is what leases and force-unlocking must name.
    events.on("pool:create", ({ workerPool }) => workerIds.add(workerPool.id));
    events.on("pool:release", ({ workerPool }) => workerIds.delete(workerPool.id));
    events.on("job:start", ({ job }) => this.#working.add(job.id));
    events.on("job:complete", ({ job }) => {
      this.#working.delete(job.id);
      this.#finished.set(job.id, Date.now());
    });
    // graphile-worker's pool can begin shutting down and never finish: after a failed job
    // completion batch, its batcher may wait forever for a count that has gone below zero,
    // and `runner.promise` never settles. So the pool counts as ended once it began shutting
    // down and every one of its workers has stopped (the runs they held are done by then).
    let workersLive = 0;
    let shuttingDown = false;
    let drained!: () => void;
    const allStopped = new Promise<void>((resolve) => {
      drained = resolve;
    });
    const ifDrained = () => {
      if (shuttingDown && workersLive === 0) drained();
    };
    events.on("worker:create", () => {
      workersLive++;
    });
    events.on("worker:stop", () => {
      workersLive--;
      ifDrained();
    });
    events.on("pool:gracefulShutdown", () => {
      shuttingDown = true;
      ifDrained();
    });
    const runner = await runWorkers({
      pgPool: this.#pool,
      schema: this.#schema,
      concurrency: options.concurrency,
      noHandleSignals: true,
      // Unbatched, graphile-worker leaves a failed job completion as an unhandled rejection
      // (which ends the process); batched, it shuts the pool down, which `ended` reports
      // (when its workers have stopped, whether or not the pool's shutdown ever finishes).
      preset: { worker: { completeJobBatchDelay: 0, failJobBatchDelay: 0 } },
      pollInterval: this.#options.pollInterval ?? 2000,
      logger: quiet,
      events,
      taskList: {
        [RUN_TASK]: async (payload, helpers) => {
          const { runId } = payload as { runId: string };
          await handler(runId, helpers.job.locked_by ?? "unknown");
        },
        // Only consumers that handle scheduled jobs take them (graphile-worker asks by task).
        ...(onScheduled && {
          [SCHEDULED_TASK]: async (payload: unknown) => {
            const job = payload as ScheduledJob;
            // This job holds the thread's named queue, so no run of the thread starts until it
            // ends (see `take`); a run already running goes first: the job waits for it.
            if (await this.#running(job.threadId)) {
              return this.#schedule(job, new Date(Date.now() + SCHEDULED_WAIT_MS).toISOString());
            }
            await onScheduled(job);
          },
        }),
        ...(onDelivery && {
          [DELIVERY_TASK]: async (payload: unknown) => {
            await this.#attemptDelivery((payload as { key: string }).key, onDelivery);
          },
        }),
      },
    });
    let stopping = false;
    let runnerStopped = false;
    events.on("stop", () => {
      runnerStopped = true;
    });
    const stop = async () => {
      stopping = true;
      this.#stops.delete(stop);
      // graphile-worker stops its runner itself when its pool ends (a breaking-migration
      // notice of any schema does that); stopping it again would throw.
      if (!runnerStopped) await runner.stop();
    };
    this.#stops.add(stop);
    // graphile-worker shuts its pool down on errors it cannot recover from (a lost database
    // mid-completion): tell the caller, so that the process does not sit idle. The dead
    // pool's id stops being renewed at once, and its jobs are unlocked as soon as the
    // database answers, so its runs go to live workers without waiting out a lease.
    const died = async (error?: unknown) => {
      if (stopping) return new Promise<never>(() => {});
      this.#stops.delete(stop);
      const dead = [...workerIds];
      workerIds.clear();
      await this.#unlockWorkers(dead);
      return error;
    };
    const ended = Promise.race([runner.promise, allStopped]).then(() => died(), died);
    return { stop, workerIds: () => [...workerIds], ended };
  }

  /** Free the jobs locked by worker pools that are gone; tried until it succeeds or `close()`. */
  async #unlockWorkers(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    for (let pause = 250; !this.#closed; pause = Math.min(pause * 2, 5000)) {
      try {
        await this.#pool.query(`select ${this.#schema}.force_unlock_workers($1::text[])`, [ids]);
        return;
      } catch {
        // The database is away: the others' sweep frees them after a lease, if we do not.
        await new Promise((r) => setTimeout(r, pause));
      }
    }
  }

  async schedule(job: ScheduledJob): Promise<void> {
    await this.#schedule(job, job.at);
  }

  /**
   * The thread's named queue: while the job is worked on, `take` starts no run of its
   * thread. The key makes it one job however many processes schedule it; its time stays the
   * first one given, unless the job is being worked on (then it is a new job at `at`). Under
   * the queue rows' lock, shared: `#forgetIdleQueues` never removes the queue row this job is
   * about to be put in.
   */
  async #schedule(job: ScheduledJob, at: string): Promise<void> {
    await this.#pool.query(
      `with shared as materialized (select pg_advisory_xact_lock_shared(hashtext($6)))
       select ${this.#schema}.add_job($1, $2::json, queue_name => $3, run_at => $4::timestamptz,
         max_attempts => 25, job_key => $5, job_key_mode => 'preserve_run_at')
         from shared`,
      [
        SCHEDULED_TASK,
        JSON.stringify(job),
        `thread:${job.threadId}`,
        at,
        job.key,
        this.#queueRowsLock,
      ],
    );
  }

  /** The advisory lock (by name) between putting jobs in named queues and removing queue rows. */
  get #queueRowsLock(): string {
    return `${this.#schema}._private_job_queues`;
  }

  /**
   * Remove the named queues' rows that no job is in and no worker holds. graphile-worker keeps
   * a row for every queue name ever used (threads' runs each had one before run jobs went
   * without), and every job fetch locks each free one: left alone, a fetch grows with the
   * threads a deployment ever ran. This is its `GC_JOB_QUEUES` clean-up, made safe beside live
   * workers: the lock keeps `#schedule` from putting a job in a row being removed (its jobs
   * are read after the lock is held), and a row a fetch is locking is skipped. Skipped this
   * round when another process is at it.
   */
  async #forgetIdleQueues(): Promise<void> {
    await this.#transaction(async (q) => {
      const r = await q.query("select pg_try_advisory_xact_lock(hashtext($1)) as locked", [
        this.#queueRowsLock,
      ]);
      if (!r.rows[0]?.locked) return;
      await q.query(
        `delete from ${this.#schema}._private_job_queues
          where id in (
            select q.id from ${this.#schema}._private_job_queues q
             where q.locked_at is null
               and not exists (select 1 from ${this.#schema}._private_jobs j
                                where j.job_queue_id = q.id)
             for update of q skip locked)`,
      );
    });
  }

  async addDelivery(delivery: Delivery): Promise<boolean> {
    // The row and its job in one statement: a key seen before adds neither.
    const r = await this.#pool.query(
      `with added as (
         insert into ${this.#t.deliveries} (key, payload) values ($1, $2::jsonb)
         on conflict (key) do nothing returning key)
       select ${this.#schema}.add_job($3, json_build_object('key', key), max_attempts => 1000,
           job_key => 'delivery:' || key)
         from added`,
      [delivery.key, JSON.stringify(delivery.payload), DELIVERY_TASK],
    );
    return (r.rowCount ?? 0) > 0;
  }

  /**
   * One attempt at a pending delivery, in the worker graphile-worker gave its job to (so one
   * worker at a time). The attempt is counted before the request goes out, so a worker that
   * dies mid-attempt does not get unbounded tries; a failure to be retried is a new job, due
   * when the caller's backoff says (graphile-worker's own retry delay is not used).
   */
  async #attemptDelivery(
    key: string,
    onDelivery: (delivery: Delivery, attempt: number) => Promise<DeliveryOutcome>,
  ): Promise<void> {
    const counted = await this.#pool.query(
      `update ${this.#t.deliveries} set attempts = attempts + 1, updated_at = clock_timestamp()
        where key = $1 and status = 'pending' returning payload, attempts`,
      [key],
    );
    const row = counted.rows[0];
    if (!row) return; // delivered or given up already
    const outcome = await onDelivery({ key, payload: row.payload }, row.attempts as number);
    const retry = outcome.status === "failed" ? outcome.retryInMs : undefined;
    await this.#pool.query(
      `with noted as (
         update ${this.#t.deliveries} set status = $2, last_error = $3, updated_at = clock_timestamp()
          where key = $1 returning key)
       select ${this.#schema}.add_job($4, json_build_object('key', key),
           run_at => clock_timestamp() + $5 * interval '1 millisecond', max_attempts => 1000,
           job_key => 'delivery:' || key)
         from noted where $5::int is not null`,
      [
        key,
        outcome.status === "delivered" ? "delivered" : retry === undefined ? "failed" : "pending",
        outcome.status === "failed" ? outcome.error : null,
        DELIVERY_TASK,
        retry === undefined ? null : Math.max(0, Math.round(retry)),
      ],
    );
  }

  async take(runId: string, workerId: string, leaseMs: number): Promise<Taken> {
    const r = await this.#pool.query(prepared(this.#sql.take, [runId, workerId, leaseMs]));
    const row = r.rows[0];
    if (!row) return { gone: true };
    if (row.taken) return { taken: runOf(row) };
    // Not active any more (as it is now, locked): ended or cancelled.
    if (row.live === null) return { gone: true };
    // A pending run behind another: the run before it gives it a job when it ends.
    if (row.behind && row.live === "pending") return { notItsTurn: true };
    // A scheduled job of the thread is worked on: it is short, look again in a moment.
    if (row.scheduled) return { held: true, threadId: row.thread_id, retryInMs: SCHEDULED_WAIT_MS };
    return { held: true, threadId: row.thread_id };
  }

  async settle(runId: string, attempt: number, end: RunEnd) {
    const r = await this.#pool.query(
      prepared(this.#sql.settle, [
        runId,
        attempt,
        end.status,
        end.error ? JSON.stringify(end.error) : null,
        this.#t.channel,
        RUN_TASK,
      ]),
    );
    return r.rows[0] ? runOf(r.rows[0]) : undefined;
  }

  async release(runId: string, attempt: number, options: { afterMs?: number } = {}) {
    // A new job for the run, due now (or after `afterMs`), with no attempts counted: the
    // job this worker holds loses its key and simply completes. Failing it instead would
    // put graphile-worker's exponential retry delay on every hand-back.
    await this.#pool.query(
      `with released as (
         update ${this.#t.runs} set lease_until = null, worker_id = null
          where run_id = $1 and attempt = $2 and status = 'running'
          returning run_id, thread_id)
       select ${this.#schema}.add_job($3, json_build_object('runId', run_id),
           run_at => clock_timestamp() + $4 * interval '1 millisecond',
           max_attempts => 1000, job_key => run_id)
         from released`,
      [runId, attempt, RUN_TASK, options.afterMs ?? 0],
    );
  }

  async defer(runId: string, _threadId: string, afterMs: number): Promise<void> {
    // A job the run was given meanwhile (a hand-back, its turn) keeps its earlier time.
    await this.#pool.query(
      `select ${this.#schema}.add_job($1, json_build_object('runId', $2::text),
         run_at => clock_timestamp() + $3 * interval '1 millisecond',
         max_attempts => 1000, job_key => $2::text, job_key_mode => 'preserve_run_at')`,
      [RUN_TASK, runId, afterMs],
    );
  }

  async heartbeat(workerIds: readonly string[], leaseMs: number) {
    if (workerIds.length === 0) return [];
    // A job completed over a minute ago is stored or its pool gave up (and is replaced).
    for (const [id, at] of this.#finished)
      if (at < Date.now() - COMPLETION_GRACE_MS) this.#finished.delete(id);
    const inHand = [...this.#working, ...this.#finished.keys()];
    // Strays: jobs locked in the name of these live pools that no worker here has in hand.
    // A job is locked by the statement that picks it, so when the connection drops as that
    // statement commits, the pool never hears of a job the database says it holds; nobody
    // else frees it (the pool is alive), and it and its thread's queue would stay locked.
    const r = await this.#pool.query(
      `with seen as (
         insert into ${this.#t.workers} (worker_id, seen_at)
         select unnest($1::text[]), clock_timestamp()
         on conflict (worker_id) do update set seen_at = excluded.seen_at),
       strays as (
         update ${this.#schema}._private_jobs set locked_by = null, locked_at = null
          where locked_by = any($1::text[]) and not (id = any($3::bigint[]))
            and locked_at < clock_timestamp() - $2 * interval '1 millisecond'
          returning job_queue_id),
       stray_queues as (
         update ${this.#schema}._private_job_queues set locked_by = null, locked_at = null
          where id in (select job_queue_id from strays) and locked_by = any($1::text[]))
       update ${this.#t.runs} set lease_until = clock_timestamp() + $2 * interval '1 millisecond'
        where worker_id = any($1::text[]) and status = 'running'
        returning run_id, attempt, cancel_action`,
      [workerIds, leaseMs, inHand],
    );
    return r.rows.map((row) => ({
      runId: row.run_id as string,
      attempt: row.attempt as number,
      cancelAction: (row.cancel_action ?? null) as StopAction | null,
    }));
  }

  async sweep(leaseMs: number): Promise<number> {
    const r = await this.#pool.query(
      `with dead as (
         delete from ${this.#t.workers}
          where seen_at < clock_timestamp() - $1 * interval '1 millisecond'
          returning worker_id),
       -- A process killed between locking a job and its first heartbeat never registered.
       unknown as (
         select distinct j.locked_by as worker_id from ${this.#schema}._private_jobs j
          where j.locked_by is not null
            and j.locked_at < clock_timestamp() - $1 * interval '1 millisecond'
            and not exists (select 1 from ${this.#t.workers} w where w.worker_id = j.locked_by))
       select ${this.#schema}.force_unlock_workers(
                array(select worker_id from dead union select worker_id from unknown)),
              (select count(*) from dead)::int as count`,
      [leaseMs],
    );
    // A thread's queue locked by a pool that holds no job of it: the pool's job was completed
    // by another pool (graphile-worker deletes a completed job whoever has it since, and then
    // frees the queue only for the completer), after the job was freed from a pool that
    // looked dead and was not. The queue would hold every later job of the thread. Locking a
    // queue and its job, and freeing both, are single statements; the age spares a pick that
    // commits while this runs.
    await this.#pool.query(
      `update ${this.#schema}._private_job_queues q set locked_by = null, locked_at = null
        where q.locked_by is not null
          and q.locked_at < clock_timestamp() - $1 * interval '1 millisecond'
          and not exists (select 1 from ${this.#schema}._private_jobs j
                           where j.job_queue_id = q.id and j.locked_by = q.locked_by)`,
      [leaseMs],
    );
    // A run that is waiting with no job to wake a worker (possible only if the database
    // lost commits it had acknowledged, as an asynchronous replica promoted in a failover
    // may): give it one, so no run is left behind. A pending run behind another of its
    // thread has none by design (see `take`): it gets one when that one ends.
    await this.#pool.query(
      `select count(${this.#schema}.add_job($2, json_build_object('runId', r.run_id),
                run_at => greatest(now(), r.due_at), max_attempts => 1000, job_key => r.run_id))
         from ${this.#t.runs} r
        where r.status in ('pending', 'running')
          and (r.status = 'pending' or r.lease_until is null
               or r.lease_until < clock_timestamp() - $1 * interval '1 millisecond')
          and r.updated_at < clock_timestamp() - $1 * interval '1 millisecond'
          and not exists (select 1 from ${this.#schema}._private_jobs j where j.key = r.run_id)
          and (r.status = 'running' or not exists (
            select 1 from ${this.#t.runs} o
             where o.thread_id = r.thread_id and o.run_id <> r.run_id
               and (o.status = 'running'
                 or (o.status = 'pending' and (o.created_at, o.run_id) < (r.created_at, r.run_id)
                     and (o.due_at is null or o.due_at <= now())))))`,
      [leaseMs, RUN_TASK],
    );
    await this.#forgetIdleQueues();
    // Deliveries that ended long ago: their keys have done their work.
    await this.#pool.query(
      `delete from ${this.#t.deliveries}
        where status <> 'pending' and updated_at < clock_timestamp() - $1 * interval '1 millisecond'`,
      [ENDED_DELIVERY_KEPT_MS],
    );
    return (r.rows[0]?.count as number) ?? 0;
  }

  onChange(listener: (change: RunChange) => void): () => void {
    this.#listeners.add(listener);
    void this.#listen();
    return () => this.#listeners.delete(listener);
  }

  /** One connection LISTENs for every listener of this queue; it reconnects if it drops. */
  #listen(): Promise<Client> {
    this.#listening ??= (async () => {
      const { Client } = await import("pg");
      const client = new Client({ connectionString: this.#options.connectionString });
      client.on("error", () => {
        this.#listening = undefined;
        client.end().catch(() => undefined);
        if (!this.#closed && this.#listeners.size > 0) setTimeout(() => void this.#listen(), 500);
      });
      client.on("notification", (message) => {
        if (!message.payload) return;
        let change: RunChange;
        try {
          const parsed = JSON.parse(message.payload) as Partial<RunChange>;
          change = {
            runId: String(parsed.runId),
            status: parsed.status as RunChange["status"],
            cancelAction: parsed.cancelAction ?? null,
            ...(typeof parsed.threadId === "string" && { threadId: parsed.threadId }),
          };
        } catch {
          return;
        }
        for (const listener of this.#listeners) listener(change);
      });
      try {
        await client.connect();
        await client.query(`listen ${this.#t.channel}`);
      } catch (error) {
        client.end().catch(() => undefined);
        throw error;
      }
      return client;
    })();
    const listening = this.#listening;
    listening.catch(() => {
      if (this.#listening !== listening) return;
      this.#listening = undefined;
      // The database is away: listen again once it may be back (joins poll meanwhile).
      if (!this.#closed && this.#listeners.size > 0) setTimeout(() => void this.#listen(), 1000);
    });
    return this.#listening;
  }

  async #notify(q: PoolClient, run: QueuedRun): Promise<void> {
    const change: RunChange = {
      runId: run.runId,
      status: run.status,
      cancelAction: run.cancelAction,
      threadId: run.threadId,
    };
    await q.query("select pg_notify($1, $2)", [this.#t.channel, JSON.stringify(change)]);
  }

  async #transaction<T>(fn: (q: PoolClient) => Promise<T>): Promise<T> {
    const client = await this.#pool.connect();
    let broken: Error | undefined;
    try {
      await client.query("begin");
      const result = await fn(client);
      await client.query("commit");
      return result;
    } catch (error) {
      await client.query("rollback").catch((e: Error) => {
        broken = e;
      });
      throw error;
    } finally {
      client.release(broken);
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const stop of [...this.#stops]) await stop();
    const listening = this.#listening;
    this.#listening = undefined;
    if (listening) await (await listening.catch(() => undefined))?.end().catch(() => undefined);
    await this.#pool.end();
  }
}

/** The statements every run goes through: each is sent prepared (see `prepared`). */
function runStatements(t: ReturnType<typeof runTables>, schema: string) {
  return {
    get: `select ${RUN_COLUMNS} from ${t.runs} where run_id = $1`,
    list: `select ${RUN_COLUMNS} from ${t.runs}
        where ($1::text is null or thread_id = $1) and ($2::text is null or status = $2)
        order by created_at desc, run_id desc limit $3`,
    // The thread's oldest run that is pending or running (the partial index has them).
    activeOn: `select ${RUN_COLUMNS} from ${t.runs}
        where thread_id = $1 and status in ('pending', 'running')
        order by created_at, run_id limit 1`,
    // The thread's other runs that are pending or running, oldest first.
    active: `select run_id, status from ${t.runs}
        where thread_id = $1 and status in ('pending', 'running') and run_id <> $2
        order by created_at`,
    // The thread's admission lock ($9), then the run and its job, inserted here rather than
    // through graphile-worker's add_jobs (five statements in a function, planned on every
    // call), of which a new run's job needs none: it has no named queue, and its key (the
    // run's new id) is on no other job. The job falls due when the run does. No job row (the
    // task row is missing) means no row at all, and `enqueue` throws. Each CTE is read by the
    // next, so each runs, in that order, once.
    insert: `with locked as (select pg_advisory_xact_lock(hashtext($9))),
       inserted as (
         insert into ${t.runs} (run_id, thread_id, graph_id, status, multitask_strategy,
           request, metadata, created_at, updated_at, due_at)
         select $1, $2, $3, 'pending', $4, $5, $6, clock_timestamp(), clock_timestamp(),
             clock_timestamp() + $8 * interval '1 millisecond'
           from locked
         returning ${RUN_COLUMNS}, due_at),
       job as (
         insert into ${schema}._private_jobs (task_id, payload, run_at, max_attempts, key)
         select task.id, json_build_object('runId', run_id), due_at, 1000, run_id
           from inserted, ${schema}._private_tasks task where task.identifier = $7::text
         returning id),
       woke as (select pg_notify('jobs:insert', '{"count":1}') from job)
       select ${RUN_COLUMNS} from inserted, woke`,
    // The run, if pending (or its worker's lease ran out) and it is its thread's turn: no
    // other run of the thread running, no older one pending and due (a pending run is only
    // taken then), and the thread's named queue (its scheduled jobs') not locked by a worker.
    // The thread's active runs are locked first, oldest first (two takes of a thread wait for
    // each other, in one order), and what they are is read as they are once locked: a run
    // taken or ended meanwhile is seen so. The queue row is share-locked: graphile-worker's
    // fetch skips it until this commits, and a fetch that locked it first is seen.
    take: `with run as (select thread_id from ${t.runs} where run_id = $1),
       thread as materialized (
         select o.run_id, o.status, o.created_at, o.due_at
           from ${t.runs} o, run
          where o.thread_id = run.thread_id and o.status in ('pending', 'running')
          order by o.created_at, o.run_id
          for no key update of o),
       own as (select status, created_at from thread where run_id = $1),
       scheduled as (
         select q.locked_by from ${schema}._private_job_queues q, run
          where q.queue_name = 'thread:' || run.thread_id
          for share of q),
       turn as (
         select exists (
             select 1 from thread o, own
              where o.run_id <> $1 and (o.status = 'running'
                 or (own.status = 'pending' and o.status = 'pending'
                     and (o.created_at, o.run_id) < (own.created_at, $1::text)
                     and (o.due_at is null or o.due_at <= now())))) as behind,
           exists (select 1 from scheduled where locked_by is not null) as scheduled),
       taken as (
         update ${t.runs} set status = 'running', attempt = attempt + 1, worker_id = $2,
           lease_until = clock_timestamp() + $3 * interval '1 millisecond',
           started_at = coalesce(started_at, clock_timestamp()), updated_at = clock_timestamp()
         where run_id = $1 and (status = 'pending'
           or (status = 'running' and (lease_until is null or lease_until < clock_timestamp())))
           and not (select behind or scheduled from turn)
         returning ${RUN_COLUMNS}),
       registered as (
         insert into ${t.workers} (worker_id, seen_at)
         select $2, clock_timestamp() from taken
         on conflict (worker_id) do update set seen_at = excluded.seen_at)
       select ${RUN_COLUMNS}, true as taken, null as live, false as behind, false as scheduled
         from taken
       union all
       select ${RUN_COLUMNS}, false, (select status from own), turn.behind, turn.scheduled
         from ${t.runs} r, turn
        where r.run_id = $1 and not exists (select 1 from taken)`,
    // The run's end, and the thread's turn passed on: its next run gets a job (see nextRunJob).
    settle: `with settled as (
         update ${t.runs} set status = $3, error = $4, cancel_action = null, worker_id = null,
           lease_until = null, ended_at = clock_timestamp(), updated_at = clock_timestamp()
         where run_id = $1 and attempt = $2 and status = 'running'
         returning ${RUN_COLUMNS}),
       next as (${nextRunJob(t, schema, "settled", "$6")})
       select ${RUN_COLUMNS}, pg_notify($5,
           json_build_object('runId', run_id, 'status', status, 'threadId', thread_id)::text),
           (select count(*) from next) as woke
         from settled`,
  };
}

/**
 * A CTE's body giving the thread of the run in CTE `ended` (when `when` holds) a job for the
 * run whose turn it is now: the oldest pending run that is due, else the oldest pending (its
 * job waits for its due time). The job falls due at its run's due time or now, whichever is
 * later, so a run created with a delay still waits for it. Keyed by the run: a job it still
 * has waiting keeps its own time (never before the run's due time; a run made by a version
 * without `due_at` has its delay only there), not doubled; one a worker holds (a take
 * refusing it, about to drop it) loses its key to the new one (graphile-worker's add_job does
 * this, each of its statements seeing what committed before it, so a refusal committed
 * meanwhile is seen).
 */
function nextRunJob(
  t: ReturnType<typeof runTables>,
  schema: string,
  ended: string,
  task: string,
  when = "true",
): string {
  return `select ${schema}.add_job(${task}::text, json_build_object('runId', r.run_id),
           run_at => greatest(now(), r.due_at), max_attempts => 1000, job_key => r.run_id,
           job_key_mode => 'preserve_run_at')
         from (select r.run_id, r.due_at from ${t.runs} r, ${ended}
                where ${when} and r.thread_id = ${ended}.thread_id and r.status = 'pending'
                  and r.run_id <> ${ended}.run_id
                order by coalesce(r.due_at > now(), false), r.created_at, r.run_id limit 1) r`;
}

/** graphile-worker logs nothing of ours; failures reach the caller as errors. */
const quiet = new Logger(() => () => {});

function iso(value: unknown): string | null {
  return value == null ? null : new Date(value as string).toISOString();
}

function runOf(row: Record<string, unknown>): QueuedRun {
  return {
    runId: row.run_id as string,
    threadId: row.thread_id as string,
    graphId: row.graph_id as string,
    status: row.status as QueuedRun["status"],
    multitaskStrategy: row.multitask_strategy as QueuedRun["multitaskStrategy"],
    createdAt: iso(row.created_at)!,
    updatedAt: iso(row.updated_at)!,
    startedAt: iso(row.started_at),
    endedAt: iso(row.ended_at),
    error: (row.error ?? null) as QueuedRun["error"],
    metadata: (row.metadata ?? {}) as Record<string, unknown>,
    request: row.request as QueuedRun["request"],
    attempt: row.attempt as number,
    cancelAction: (row.cancel_action ?? null) as QueuedRun["cancelAction"],
  };
}
