import type {
  MultitaskStrategy,
  QueuedRun,
  RunListOptions,
  RunRequest,
  RunStatus,
  StopAction,
} from "./run.js";

/** A running `consume`: its workers' ids (for their leases) and how to stop it. */
export interface RunConsumer {
  workerIds(): string[];
  stop(): Promise<void>;
  /**
   * Settles when the consumer stopped taking runs on its own (e.g. its queue library shut
   * down after losing the database), not through `stop()`; the caller consumes again.
   */
  ended?: Promise<unknown>;
}

/** A run to enqueue. */
export interface NewRun {
  runId: string;
  threadId: string;
  graphId: string;
  multitaskStrategy: MultitaskStrategy;
  request: RunRequest;
  metadata: Record<string, unknown>;
  /** Hand the run to a worker no sooner than this many ms from now (it is `pending` until then). */
  delayMs?: number;
}

/** How a worker ended a run it held. */
export interface RunEnd {
  status: Extract<RunStatus, "success" | "error" | "interrupted" | "cancelled">;
  error?: { name: string; message: string } | null;
}

/** A change other processes may need to hear of at once: a run ended, or a stop was asked. */
export interface RunChange {
  runId: string;
  status: RunStatus;
  cancelAction: StopAction | null;
  /** The run's thread, where the queue tells it (those of this package do). */
  threadId?: string;
}

/**
 * A job due at a time rather than now (a review's deadline): one worker of the queue runs it
 * once, at `at` or soon after, never while a run of its thread is working. Scheduling a `key`
 * that already waits changes nothing, so every process may schedule what it sees.
 *
 * @example
 * const job: ScheduledJob = { key: "deadline:t1:a1b2", threadId: "t1", at: "2026-01-01T12:00:00.000Z",
 *   payload: { interruptId: "a1b2" } };
 */
export interface ScheduledJob {
  key: string;
  threadId: string;
  /** ISO time. */
  at: string;
  payload: Record<string, unknown>;
}

/**
 * A job of its own kind beside runs: one HTTP delivery (a webhook). Not tied to a thread's
 * turn, so a slow receiver never holds a run back. `key` names what is delivered (an event
 * for an endpoint): a key the queue has seen is never added twice, so every process that
 * saw the event may add it and it is delivered once.
 *
 * @example
 * const d: Delivery = { key: "review.waiting|t1|a1b2|https://hooks.example/x", payload: { url: "…", body: {} } };
 */
export interface Delivery {
  key: string;
  payload: Record<string, unknown>;
}

/**
 * How one attempt at a delivery went: `delivered`, or `failed` with the reason, to be tried
 * again `retryInMs` from now (no `retryInMs`: given up). The queue keeps the attempt count;
 * the caller decides the backoff and when to give up.
 *
 * @example
 * const again: DeliveryOutcome = { status: "failed", error: "HTTP 503", retryInMs: 2000 };
 */
export type DeliveryOutcome =
  | { status: "delivered" }
  | { status: "failed"; error: string; retryInMs?: number };

/** What `take` found: the run is now this worker's, or why not. */
export type Taken =
  | { taken: QueuedRun }
  /** Ended or cancelled before it started: nothing to do, the job is finished. */
  | { gone: true }
  /**
   * Another worker holds it under a live lease (or its thread, as a scheduled job of the
   * thread does): try again `retryInMs` later, or once that lease may have run out.
   */
  | { held: true; threadId: string; retryInMs?: number }
  /**
   * Pending behind another run of its thread (one running, or an older one due): nothing to
   * do now, the job is finished. The queue dispatches the run again when its turn comes (the
   * run before it ends or is cancelled), no sooner than its own due time.
   */
  | { notItsTurn: true };

/**
 * The port between run records and whatever dispatches them: `queues/in-process.ts` (one
 * process: PGlite or memory) and `queues/postgres.ts` (graphile-worker on PostgreSQL, any
 * number of worker processes). `Runs` is written once against it.
 *
 * Every method is atomic. A run's life: `enqueue` (pending; the multitask strategy decided
 * against the thread's active runs in the same step) → `take` (running, held by a worker
 * under a lease) → `settle` (final), or `requestCancel` on the way. One run at a time runs
 * per thread, in the order they were enqueued.
 *
 * @example
 * const { run, stopping } = await queue.enqueue(newRun);
 */
export interface RunQueue {
  /**
   * Admit a run: throws `ThreadBusyError` if its strategy is `reject` and the thread has a
   * run pending or running; under `interrupt`/`rollback` asks those to stop (pending ones end
   * `cancelled` at once). Returns the run and the runs asked to stop. `admit` is called
   * while no other run of the thread can be admitted; if it throws, nothing is stored.
   */
  enqueue(
    run: NewRun,
    admit?: () => Promise<void>,
  ): Promise<{ run: QueuedRun; stopping: QueuedRun[] }>;
  get(runId: string): Promise<QueuedRun | undefined>;
  /**
   * Forget an ended run: `get` and `list` no longer find it. Returns false, changing
   * nothing, for an unknown run or one still pending or running.
   */
  delete(runId: string): Promise<boolean>;
  /** Newest first. */
  list(options: RunListOptions): Promise<QueuedRun[]>;
  /**
   * Optional: the thread's oldest run that is pending or running, if any, in one look-up
   * (without it, `Runs.activeOn` reads the thread's latest runs through `list`).
   */
  activeOn?(threadId: string): Promise<QueuedRun | undefined>;
  /** Pending → `cancelled` now; running → `cancelAction` set for its worker. Ended: as is. */
  requestCancel(runId: string, action: StopAction): Promise<QueuedRun | undefined>;
  /**
   * Start dispatching runs to `handler`, at most `concurrency` at once in this process, and
   * scheduled jobs that fall due to `onScheduled` (a job whose handler throws is tried again
   * later).
   */
  consume(
    handler: (runId: string, workerId: string) => Promise<void>,
    options: {
      concurrency: number;
      onScheduled?: (job: ScheduledJob) => Promise<void>;
      /**
       * Attempt a delivery that is due (`attempt` counts from 1). Only consumers given this
       * take deliveries; a delivery waits until one is.
       */
      onDelivery?: (delivery: Delivery, attempt: number) => Promise<DeliveryOutcome>;
    },
  ): Promise<RunConsumer>;
  /**
   * Keep `job` until `at`, then hand it to one consumer's `onScheduled`. Idempotent by
   * `job.key` while the job waits. Whether it outlives this process depends on the queue:
   * on PostgreSQL it does; in process it does not (`Runs.work` schedules again what it finds).
   */
  schedule(job: ScheduledJob): Promise<void>;
  /**
   * Keep `delivery` until a consumer with `onDelivery` attempts it, again after each failure
   * as the outcome says. Returns false (and changes nothing) when its key was added before.
   * On PostgreSQL it outlives the process and several workers attempt it once between them;
   * in process it does not outlive the process.
   */
  addDelivery(delivery: Delivery): Promise<boolean>;
  /**
   * Make the run this worker's (attempt + 1), if it is pending or its last worker's lease ran
   * out, and it is its thread's turn (no other run of the thread running, no older one due).
   */
  take(runId: string, workerId: string, leaseMs: number): Promise<Taken>;
  /** End a run this attempt holds; `undefined` if it does not hold it any more (nothing changed). */
  settle(runId: string, attempt: number, end: RunEnd): Promise<QueuedRun | undefined>;
  /**
   * Give up a run without ending it (this process is stopping, or the database failed
   * under it): another worker takes it at once, or `afterMs` later. A hand-back is not a
   * failure: no retry delay of the queue's own applies, however often it happens.
   */
  release(runId: string, attempt: number, options?: { afterMs?: number }): Promise<void>;
  /**
   * Offer the run to the workers again `afterMs` from now (another worker holds it under a
   * live lease now); nothing about the run changes.
   */
  defer(runId: string, threadId: string, afterMs: number): Promise<void>;
  /**
   * Renew the leases of this process's workers; returns the runs they still hold (a run
   * missing here was taken over: its worker must stop) with any stop asked for.
   */
  heartbeat(
    workerIds: readonly string[],
    leaseMs: number,
  ): Promise<Array<{ runId: string; attempt: number; cancelAction: StopAction | null }>>;
  /**
   * Free the jobs of workers whose lease ran out, so others take their runs. Returns how many.
   * Also forgets deliveries that ended over 7 days ago (on PostgreSQL, where they are kept).
   */
  sweep(leaseMs: number): Promise<number>;
  /** Hear run changes, from any process sharing the queue. Returns an unsubscribe. */
  onChange(listener: (change: RunChange) => void): () => void;
  close(): Promise<void>;
}
