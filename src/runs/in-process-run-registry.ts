import { randomUUID } from "node:crypto";
import { ThreadBusyError } from "../errors/index.js";
import { FINAL_RUN_STATUSES, type RunEvent, type RunRecord, type RunWork } from "./run.js";

/** Finished runs kept for `get`/`join`; the oldest go first. */
const KEPT_RUNS = 1000;
/** Events kept per run for late joiners; a longer run keeps only its latest. */
const KEPT_EVENTS = 10_000;

interface Entry {
  record: RunRecord;
  events: RunEvent[];
  controller: AbortController;
  settled: Promise<RunRecord>;
  listeners: Set<() => void>;
}

/**
 * Runs in this process: each starts at once, one at a time per thread (a second run on a
 * busy thread is refused, LangGraph's `multitask_strategy: "reject"`), and is kept in
 * memory with what it reported. Nothing here survives a restart: the thread's checkpoints
 * do, and a paused thread is resumed by a new run. A Postgres queue can later take this
 * interface's place.
 *
 * @example
 * const runs = new InProcessRunRegistry();
 * const run = runs.start({ threadId: "t1", graphId: "ops" }, async ({ signal }) => {
 *   const r = await graph.invoke(input, { config, signal });
 *   return r.status === "done" ? "success" : "interrupted";
 * });
 * await runs.join(run.runId); // { status: "success", … }
 */
export class InProcessRunRegistry {
  readonly #runs = new Map<string, Entry>();
  readonly #active = new Map<string, string>();
  readonly #settledListeners = new Set<(run: RunRecord) => void>();

  /**
   * Start `work` as a new run on the thread (with `runId` when the caller chose it, e.g. to
   * record it first). Throws `ThreadBusyError` if a run is working there.
   */
  start(
    init: { threadId: string; graphId: string; metadata?: Record<string, unknown>; runId?: string },
    work: RunWork,
  ): RunRecord {
    if (this.#active.has(init.threadId)) {
      throw new ThreadBusyError(init.threadId, null);
    }
    const now = new Date().toISOString();
    const record: RunRecord = {
      runId: init.runId ?? randomUUID(),
      threadId: init.threadId,
      graphId: init.graphId,
      status: "pending",
      createdAt: now,
      updatedAt: now,
      error: null,
      metadata: init.metadata ?? {},
    };
    const entry: Entry = {
      record,
      events: [],
      controller: new AbortController(),
      settled: Promise.resolve(record),
      listeners: new Set(),
    };
    this.#runs.set(record.runId, entry);
    this.#active.set(init.threadId, record.runId);
    entry.settled = this.#drive(entry, work);
    this.#forgetOld();
    return { ...record };
  }

  /** A copy of the run's record, or `undefined` for an unknown (or long finished) run. */
  get(runId: string): RunRecord | undefined {
    const entry = this.#runs.get(runId);
    return entry ? { ...entry.record } : undefined;
  }

  /** The thread's runs this process knows, newest first. */
  list(threadId: string): RunRecord[] {
    return [...this.#runs.values()]
      .filter((e) => e.record.threadId === threadId)
      .map((e) => ({ ...e.record }))
      .reverse();
  }

  /** The run working on the thread now, if any. */
  activeOn(threadId: string): RunRecord | undefined {
    const runId = this.#active.get(threadId);
    return runId === undefined ? undefined : this.get(runId);
  }

  /** Wait for the run to end; its final record. `undefined` for an unknown run. */
  async join(runId: string): Promise<RunRecord | undefined> {
    const entry = this.#runs.get(runId);
    if (!entry) return undefined;
    await entry.settled;
    return { ...entry.record };
  }

  /**
   * What the run reports, from `afterSeq` on: first what it already reported, then each new
   * event as it comes, until the run ends or `signal` aborts.
   */
  async *events(runId: string, options: { afterSeq?: number; signal?: AbortSignal } = {}) {
    const entry = this.#runs.get(runId);
    if (!entry) return;
    let seq = options.afterSeq ?? 0;
    for (;;) {
      const fresh = entry.events.filter((e) => e.seq > seq);
      for (const event of fresh) {
        seq = event.seq;
        yield event;
      }
      if (options.signal?.aborted) return;
      // Events may have come while the last ones were being consumed: send those first.
      if ((entry.events.at(-1)?.seq ?? 0) > seq) continue;
      if (FINAL_RUN_STATUSES.has(entry.record.status)) return;
      await new Promise<void>((resolve) => {
        const wake = () => {
          entry.listeners.delete(wake);
          options.signal?.removeEventListener("abort", wake);
          resolve();
        };
        entry.listeners.add(wake);
        options.signal?.addEventListener("abort", wake, { once: true });
      });
    }
  }

  /** Stop the run through its signal. False when it is unknown or already ended. */
  cancel(runId: string, reason = "cancelled"): boolean {
    const entry = this.#runs.get(runId);
    if (!entry || FINAL_RUN_STATUSES.has(entry.record.status)) return false;
    entry.controller.abort(new Error(reason));
    return true;
  }

  /** Call `listener` with each run's final record as it ends. Returns an unsubscribe. */
  onSettled(listener: (run: RunRecord) => void): () => void {
    this.#settledListeners.add(listener);
    return () => this.#settledListeners.delete(listener);
  }

  /** Cancel every run still working and wait for them to end (for shutdown). */
  async close(): Promise<void> {
    const working = [...this.#runs.values()].filter(
      (e) => !FINAL_RUN_STATUSES.has(e.record.status),
    );
    for (const e of working) e.controller.abort(new Error("server shutting down"));
    await Promise.allSettled(working.map((e) => e.settled));
  }

  async #drive(entry: Entry, work: RunWork): Promise<RunRecord> {
    const { record, controller } = entry;
    // Let the caller see the run as pending before any work starts.
    await Promise.resolve();
    this.#set(entry, { status: "running" });
    try {
      const outcome = await work({
        runId: record.runId,
        signal: controller.signal,
        emit: (event, data) => this.#emit(entry, event, data),
      });
      this.#set(entry, { status: controller.signal.aborted ? "cancelled" : outcome });
    } catch (error) {
      if (controller.signal.aborted) this.#set(entry, { status: "cancelled" });
      else {
        const e = error instanceof Error ? error : new Error(String(error));
        this.#set(entry, { status: "error", error: { name: e.name, message: e.message } });
      }
    } finally {
      if (this.#active.get(record.threadId) === record.runId) this.#active.delete(record.threadId);
    }
    for (const listener of this.#settledListeners) listener({ ...record });
    this.#wake(entry);
    return record;
  }

  #emit(entry: Entry, event: string, data: unknown): void {
    const last = entry.events.at(-1)?.seq ?? 0;
    entry.events.push({ seq: last + 1, event, data });
    if (entry.events.length > KEPT_EVENTS) entry.events.shift();
    this.#wake(entry);
  }

  #set(entry: Entry, change: Partial<RunRecord>): void {
    Object.assign(entry.record, change, { updatedAt: new Date().toISOString() });
  }

  #wake(entry: Entry): void {
    for (const wake of [...entry.listeners]) wake();
  }

  #forgetOld(): void {
    if (this.#runs.size <= KEPT_RUNS) return;
    for (const [runId, entry] of this.#runs) {
      if (this.#runs.size <= KEPT_RUNS) return;
      if (FINAL_RUN_STATUSES.has(entry.record.status)) this.#runs.delete(runId);
    }
  }
}
