import { multitaskDecision } from "../multitask.js";
import type { NewRun, RunChange, RunEnd, RunQueue, Taken } from "../queue.js";
import {
  ACTIVE_RUN_STATUSES,
  FINAL_RUN_STATUSES,
  type QueuedRun,
  type StopAction,
} from "../run.js";

/** Ended runs kept for `get`/`list`/`join`; the oldest go first. */
const KEPT_ENDED_RUNS = 10_000;

/**
 * Runs kept and dispatched in this process: the queue of the embedded mode (PGlite or
 * memory), where one process owns the data. Nothing here outlives the process: a thread's
 * checkpoints do, and a run that was working when it stopped is simply not continued.
 *
 * @example
 * const runs = createRuns({ graphs: [graph], queue: new InProcessRunQueue() });
 */
export class InProcessRunQueue implements RunQueue {
  readonly #runs = new Map<string, QueuedRun>();
  readonly #listeners = new Set<(change: RunChange) => void>();
  #handler: ((runId: string, workerId: string) => Promise<void>) | undefined;
  #concurrency = 1;
  #working = new Set<string>();
  #closed = false;

  async enqueue(init: NewRun): Promise<{ run: QueuedRun; stopping: QueuedRun[] }> {
    const active = this.#active(init.threadId);
    const { stop } = multitaskDecision(init.multitaskStrategy, init.threadId, active);
    const stopping: QueuedRun[] = [];
    for (const { runId, action } of stop) {
      const run = await this.requestCancel(runId, action);
      if (run) stopping.push(run);
    }
    const now = new Date().toISOString();
    const run: QueuedRun = {
      ...init,
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
    this.#forgetOld();
    queueMicrotask(() => this.#dispatch());
    return { run: { ...run }, stopping };
  }

  async get(runId: string): Promise<QueuedRun | undefined> {
    const run = this.#runs.get(runId);
    return run && { ...run };
  }

  async list(options: { threadId?: string; status?: string; limit?: number }) {
    const found: QueuedRun[] = [];
    for (const run of this.#runs.values()) {
      if (options.threadId !== undefined && run.threadId !== options.threadId) continue;
      if (options.status !== undefined && run.status !== options.status) continue;
      found.push({ ...run });
    }
    return found.reverse().slice(0, options.limit ?? 50);
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
    options: { concurrency: number },
  ) {
    this.#handler = handler;
    this.#concurrency = options.concurrency;
    this.#dispatch();
    return {
      workerIds: () => ["in-process"],
      stop: async () => {
        this.#handler = undefined;
      },
    };
  }

  async take(runId: string, workerId: string): Promise<Taken> {
    const run = this.#runs.get(runId);
    if (!run || FINAL_RUN_STATUSES.has(run.status)) return { gone: true };
    if (run.status === "running") return { held: true };
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

  async release(runId: string, attempt: number): Promise<void> {
    const run = this.#runs.get(runId);
    if (run?.status === "running" && run.attempt === attempt) run.status = "pending";
  }

  async heartbeat() {
    const held = [];
    for (const run of this.#runs.values()) {
      if (run.status === "running") {
        held.push({ runId: run.runId, attempt: run.attempt, cancelAction: run.cancelAction });
      }
    }
    return held;
  }

  async sweep(): Promise<number> {
    return 0;
  }

  onChange(listener: (change: RunChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#handler = undefined;
  }

  #active(threadId: string): QueuedRun[] {
    return [...this.#runs.values()].filter(
      (r) => r.threadId === threadId && ACTIVE_RUN_STATUSES.includes(r.status),
    );
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
    this.#tell(run);
    queueMicrotask(() => this.#dispatch());
  }

  #tell(run: QueuedRun): void {
    const change = { runId: run.runId, status: run.status, cancelAction: run.cancelAction };
    for (const listener of this.#listeners) listener(change);
  }

  /** Hand the oldest pending run of each idle thread to the handler, up to the concurrency. */
  #dispatch(): void {
    const handler = this.#handler;
    if (!handler || this.#closed) return;
    const busy = new Set<string>();
    for (const run of this.#runs.values()) {
      if (run.status === "running" || this.#working.has(run.runId)) busy.add(run.threadId);
    }
    for (const run of this.#runs.values()) {
      if (this.#working.size >= this.#concurrency) return;
      if (run.status !== "pending" || busy.has(run.threadId)) continue;
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

  #forgetOld(): void {
    if (this.#runs.size <= KEPT_ENDED_RUNS) return;
    for (const [runId, run] of this.#runs) {
      if (this.#runs.size <= KEPT_ENDED_RUNS) return;
      if (FINAL_RUN_STATUSES.has(run.status)) this.#runs.delete(runId);
    }
  }
}
