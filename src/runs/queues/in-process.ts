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
import {
  ACTIVE_RUN_STATUSES,
  FINAL_RUN_STATUSES,
  type QueuedRun,
  type StopAction,
} from "../run.js";
import type { DeliveryOutbox } from "./delivery-outbox.js";
import { InProcessDeliveries } from "./in-process-deliveries.js";

/** How long an outbox keeps a delivery that ended (as PostgreSQL's queue keeps its rows). */
const ENDED_DELIVERIES_KEPT_MS = 7 * 24 * 60 * 60 * 1000;

/** Ended runs kept for `get`/`list`/`join`; the oldest go first. */
const KEPT_ENDED_RUNS = 10_000;
/** A scheduled job whose handler threw is tried again after this, up to `JOB_ATTEMPTS` times. */
const JOB_RETRY_MS = 1000;
const JOB_ATTEMPTS = 25;
/** setTimeout's longest delay; a job due later waits in steps of it. */
const MAX_TIMER_MS = 2 ** 31 - 1;

interface WaitingJob {
  job: ScheduledJob;
  timer: ReturnType<typeof setTimeout> | undefined;
  due: boolean;
  running: boolean;
  attempts: number;
}

/**
 * Runs kept and dispatched in this process: the queue of the embedded mode (PGlite or
 * memory), where one process owns the data. Nothing here outlives the process: a thread's
 * checkpoints do, and a run that was working when it stopped is simply not continued.
 * Scheduled jobs wait on timers, so they end with the process too (`Runs.work` schedules
 * the deadlines of paused reviews again when it starts).
 *
 * @example
 * const runs = createRuns({ graphs: [graph], queue: new InProcessRunQueue() });
 */
export class InProcessRunQueue implements RunQueue {
  readonly #runs = new Map<string, QueuedRun>();
  /**
   * The ids of the runs not ended (pending or running), in the order they were made: what
   * dispatch, admission and the active-run reads look through, so their cost does not grow
   * with the ended runs kept for reading (up to `KEPT_ENDED_RUNS`).
   */
  readonly #unended = new Set<string>();
  readonly #listeners = new Set<(change: RunChange) => void>();
  #handler: ((runId: string, workerId: string) => Promise<void>) | undefined;
  #onScheduled: ((job: ScheduledJob) => Promise<void>) | undefined;
  readonly #jobs = new Map<string, WaitingJob>();
  /** Delayed runs (`NewRun.delayMs`): run id -> when a worker may take it (ms since the epoch). */
  readonly #due = new Map<string, number>();
  readonly #deliveries: InProcessDeliveries;
  #concurrency = 1;
  #working = new Set<string>();
  #closed = false;

  /**
   * With `outbox` (`deliveryOutboxFor(checkpointer)` on PGlite), deliveries are written
   * there and outlive the process: the next one to consume takes up those still waiting.
   */
  constructor(options: { outbox?: DeliveryOutbox | undefined } = {}) {
    this.#deliveries = new InProcessDeliveries(options.outbox);
  }

  async enqueue(
    init: NewRun,
    admit?: () => Promise<void>,
  ): Promise<{ run: QueuedRun; stopping: QueuedRun[] }> {
    // First: from the decision on, nothing here waits, so no other run is admitted between.
    await admit?.();
    const active = this.#active(init.threadId);
    const { stop } = multitaskDecision(init.multitaskStrategy, init.threadId, active);
    const stopping: QueuedRun[] = [];
    for (const { runId, action } of stop) {
      const run = await this.requestCancel(runId, action);
      if (run) stopping.push(run);
    }
    const now = new Date().toISOString();
    const { delayMs, ...fields } = init;
    const run: QueuedRun = {
      ...fields,
      status: "pending",
      createdAt: now,
      updatedAt: now,
      startedAt: null,
      endedAt: null,
      error: null,
      attempt: 0,
      cancelAction: null,
    };
    this.#runs.set(run.runId, run);
    this.#unended.add(run.runId);
    this.#forgetOld();
    if (delayMs !== undefined && delayMs > 0) {
      const due = Date.now() + delayMs;
      this.#due.set(run.runId, due);
      this.#wakeAt(due);
    }
    queueMicrotask(() => this.#dispatch());
    return { run: { ...run }, stopping };
  }

  async delete(runId: string): Promise<boolean> {
    const run = this.#runs.get(runId);
    if (!run || !FINAL_RUN_STATUSES.has(run.status)) return false;
    this.#runs.delete(runId);
    this.#due.delete(runId);
    return true;
  }

  async get(runId: string): Promise<QueuedRun | undefined> {
    const run = this.#runs.get(runId);
    return run && { ...run };
  }

  async list(options: { threadId?: string; status?: string; limit?: number }) {
    const found: QueuedRun[] = [];
    const unended =
      options.status !== undefined &&
      (ACTIVE_RUN_STATUSES as readonly string[]).includes(options.status);
    for (const run of unended ? this.#unendedRuns() : this.#runs.values()) {
      if (options.threadId !== undefined && run.threadId !== options.threadId) continue;
      if (options.status !== undefined && run.status !== options.status) continue;
      found.push({ ...run });
    }
    return found.reverse().slice(0, options.limit ?? 50);
  }

  /** The thread's run pending or working, the oldest if several. */
  async activeOn(threadId: string): Promise<QueuedRun | undefined> {
    const [run] = this.#active(threadId);
    return run && { ...run };
  }

  async requestCancel(runId: string, action: StopAction) {
    const run = this.#runs.get(runId);
    if (!run) return undefined;
    if (run.status === "pending") {
      this.#end(run, { status: "cancelled" });
    } else if (run.status === "running" && run.cancelAction === null) {
      run.cancelAction = action;
      run.updatedAt = new Date().toISOString();
      this.#tell(run);
    }
    return { ...run };
  }

  async consume(
    handler: (runId: string, workerId: string) => Promise<void>,
    options: {
      concurrency: number;
      onScheduled?: (job: ScheduledJob) => Promise<void>;
      onDelivery?: (delivery: Delivery, attempt: number) => Promise<DeliveryOutcome>;
    },
  ) {
    this.#handler = handler;
    this.#onScheduled = options.onScheduled;
    this.#concurrency = options.concurrency;
    this.#deliveries.consume(options.onDelivery);
    this.#dispatch();
    return {
      workerIds: () => ["in-process"],
      stop: async () => {
        this.#handler = undefined;
        this.#onScheduled = undefined;
        this.#deliveries.consume(undefined);
      },
    };
  }

  /**
   * Kept on a timer in this process; without an outbox, a delivery waiting for a retry ends
   * with the process.
   */
  addDelivery(delivery: Delivery): Promise<boolean> {
    return this.#deliveries.add(delivery);
  }

  async schedule(job: ScheduledJob): Promise<void> {
    if (this.#closed || this.#jobs.has(job.key)) return;
    const waiting: WaitingJob = {
      job: { ...job },
      timer: undefined,
      due: false,
      running: false,
      attempts: 0,
    };
    this.#jobs.set(job.key, waiting);
    this.#arm(waiting, Date.parse(job.at));
  }

  /** Dispatch again at `at` (a delayed run falls due); the timer does not keep the process alive. */
  #wakeAt(at: number): void {
    const wait = Math.max(0, at - Date.now());
    const timer = setTimeout(
      () => (wait > MAX_TIMER_MS ? this.#wakeAt(at) : this.#dispatch()),
      Math.min(wait, MAX_TIMER_MS),
    );
    timer.unref?.();
  }

  /** Wake the job at `at` (a timer that does not keep the process alive). */
  #arm(waiting: WaitingJob, at: number): void {
    const wait = Math.max(0, at - Date.now());
    waiting.timer = setTimeout(
      () => {
        if (wait > MAX_TIMER_MS) return this.#arm(waiting, at);
        waiting.due = true;
        this.#dispatch();
      },
      Math.min(wait, MAX_TIMER_MS),
    );
    waiting.timer.unref?.();
  }

  async take(runId: string, workerId: string): Promise<Taken> {
    const run = this.#runs.get(runId);
    if (!run || FINAL_RUN_STATUSES.has(run.status)) return { gone: true };
    if (run.status === "running") return { held: true, threadId: run.threadId };
    const now = new Date().toISOString();
    Object.assign(run, { status: "running", attempt: run.attempt + 1, updatedAt: now });
    run.startedAt ??= now;
    void workerId;
    return { taken: { ...run } };
  }

  async settle(runId: string, attempt: number, end: RunEnd) {
    const run = this.#runs.get(runId);
    if (run?.status !== "running" || run.attempt !== attempt) return undefined;
    this.#end(run, end);
    return { ...run };
  }

  /** `afterMs` is not waited for here: this process's database does not go away by itself. */
  async release(runId: string, attempt: number): Promise<void> {
    const run = this.#runs.get(runId);
    if (run?.status === "running" && run.attempt === attempt) run.status = "pending";
  }

  /** A run is only ever held by this process's own handler, which dispatches it again. */
  async defer(): Promise<void> {}

  async heartbeat() {
    const held = [];
    for (const run of this.#runs.values()) {
      if (run.status === "running") {
        held.push({ runId: run.runId, attempt: run.attempt, cancelAction: run.cancelAction });
      }
    }
    return held;
  }

  /** No leases to free in one process; forgets the outbox's deliveries that ended 7 days ago. */
  async sweep(): Promise<number> {
    await this.#deliveries.forget(Date.now() - ENDED_DELIVERIES_KEPT_MS);
    return 0;
  }

  onChange(listener: (change: RunChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#handler = undefined;
    this.#onScheduled = undefined;
    this.#deliveries.close();
    for (const waiting of this.#jobs.values()) clearTimeout(waiting.timer);
    this.#jobs.clear();
  }

  #active(threadId: string): QueuedRun[] {
    const active: QueuedRun[] = [];
    for (const r of this.#unendedRuns()) {
      if (r.threadId === threadId && ACTIVE_RUN_STATUSES.includes(r.status)) active.push(r);
    }
    return active;
  }

  /** The runs not ended, oldest first. */
  *#unendedRuns(): Generator<QueuedRun> {
    for (const runId of this.#unended) {
      const run = this.#runs.get(runId);
      if (run) yield run;
    }
  }

  #end(run: QueuedRun, end: RunEnd): void {
    const now = new Date().toISOString();
    Object.assign(run, {
      status: end.status,
      error: end.error ?? null,
      cancelAction: null,
      updatedAt: now,
      endedAt: now,
    });
    this.#unended.delete(run.runId);
    this.#tell(run);
    queueMicrotask(() => this.#dispatch());
  }

  #tell(run: QueuedRun): void {
    const change: RunChange = {
      runId: run.runId,
      status: run.status,
      cancelAction: run.cancelAction,
      threadId: run.threadId,
    };
    for (const listener of this.#listeners) listener(change);
  }

  /**
   * Hand the oldest pending run of each idle thread to the handler, up to the concurrency;
   * a due job goes first, when its thread has no run working.
   */
  #dispatch(): void {
    const handler = this.#handler;
    if (!handler || this.#closed) return;
    const busy = new Set<string>();
    for (const run of this.#unendedRuns()) if (run.status === "running") busy.add(run.threadId);
    // A run that ended stays its thread's until its handler returns.
    for (const runId of this.#working) {
      const run = this.#runs.get(runId);
      if (run) busy.add(run.threadId);
    }
    for (const waiting of this.#jobs.values()) if (waiting.running) busy.add(waiting.job.threadId);
    for (const waiting of this.#jobs.values()) {
      if (!waiting.due || waiting.running || busy.has(waiting.job.threadId)) continue;
      if (this.#runJob(waiting)) busy.add(waiting.job.threadId);
    }
    const now = Date.now();
    for (const run of this.#unendedRuns()) {
      if (this.#working.size >= this.#concurrency) return;
      if (run.status !== "pending" || busy.has(run.threadId)) continue;
      const due = this.#due.get(run.runId);
      if (due !== undefined) {
        // Not yet: it waits, and the thread's later runs may go first (as in LangGraph).
        if (due > now) continue;
        this.#due.delete(run.runId);
      }
      busy.add(run.threadId);
      this.#working.add(run.runId);
      void handler(run.runId, "in-process")
        .catch(() => undefined)
        .finally(() => {
          this.#working.delete(run.runId);
          this.#dispatch();
        });
    }
  }

  /** Run a due job; false when nothing consumes jobs here yet (it stays due until then). */
  #runJob(waiting: WaitingJob): boolean {
    const onScheduled = this.#onScheduled;
    if (!onScheduled) return false;
    waiting.running = true;
    waiting.attempts++;
    onScheduled({ ...waiting.job }).then(
      () => {
        if (this.#jobs.get(waiting.job.key) === waiting) this.#jobs.delete(waiting.job.key);
        queueMicrotask(() => this.#dispatch());
      },
      () => {
        waiting.running = false;
        waiting.due = false;
        if (waiting.attempts >= JOB_ATTEMPTS || this.#closed) {
          this.#jobs.delete(waiting.job.key);
        } else {
          this.#arm(waiting, Date.now() + JOB_RETRY_MS);
        }
        queueMicrotask(() => this.#dispatch());
      },
    );
    return true;
  }

  #forgetOld(): void {
    if (this.#runs.size <= KEPT_ENDED_RUNS) return;
    for (const [runId, run] of this.#runs) {
      if (this.#runs.size <= KEPT_ENDED_RUNS) return;
      if (FINAL_RUN_STATUSES.has(run.status)) this.#runs.delete(runId);
    }
  }
}
