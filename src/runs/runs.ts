import { randomUUID } from "node:crypto";
import { type AuditLog, auditLogFor } from "../audit/index.js";
import { assertJson, isTransientDatabaseError } from "../checkpoint/index.js";
import {
  AbortError,
  ConcurrentUpdateError,
  InvalidRunError,
  RunNotFoundError,
} from "../errors/index.js";
import type { CompiledGraph } from "../index.js";
import { MULTITASK_STRATEGIES } from "./multitask.js";
import type { RunChange, RunConsumer, RunEnd, RunQueue } from "./queue.js";
import { InProcessRunQueue } from "./queues/in-process.js";
import { resumePoint } from "./resume-point.js";
import { type DeadlineOutcome, isDeadlineJob, ReviewDeadlines } from "./review-deadlines.js";
import { rewindRun } from "./rewind-run.js";
import {
  type BackgroundRun,
  FINAL_RUN_STATUSES,
  publicRun,
  type QueuedRun,
  type RunCreateOptions,
  type RunEvent,
  type RunInput,
  type RunListOptions,
  type RunService,
  type StopAction,
} from "./run.js";
import { RunEventLog } from "./run-event-log.js";
import { argOf } from "./run-input.js";
import type { WebhookOptions } from "./webhooks/webhook-options.js";
import { type RunValues, Webhooks } from "./webhooks/webhooks.js";

type AnyGraph = CompiledGraph<any, any>;

/** How long a worker holds a run without renewing its lease (default 30 s). */
export const DEFAULT_LEASE_MS = 30_000;

/** The pause before a run the database failed under is tried again, doubling per attempt… */
const TRANSIENT_RETRY_MS = 500;
/** …up to this. */
const MAX_TRANSIENT_RETRY_MS = 15_000;

/**
 * Executes one taken run: drive its graph from `input` (the run's own, or `null` when a
 * worker continues a run another worker left) with the run's id, honour `signal`, report
 * what it streams through `emit`, and say how the graph ended.
 *
 * @example
 * const execute: RunExecutor = async ({ graph, run, input, signal }) => {
 *   const r = await graph.invoke(argOf(input), { config, signal, runId: run.runId });
 *   return r.status === "done" ? "success" : "interrupted";
 * };
 */
export type RunExecutor = (work: {
  graph: AnyGraph;
  run: QueuedRun;
  input: RunInput;
  signal: AbortSignal;
  emit(event: string, data: unknown): void;
}) => Promise<"success" | "interrupted">;

/** Options of `createRuns`. */
export interface RunsOptions {
  /** The graphs runs may drive, by `name` (their checkpointers hold the threads). */
  graphs: Iterable<AnyGraph> | Record<string, AnyGraph>;
  /** Where runs are kept and dispatched (default: this process, `InProcessRunQueue`). */
  queue?: RunQueue;
  /** How long a worker holds a run without renewing it; a dead worker's runs move on after this. */
  leaseMs?: number;
  /**
   * Where review deadlines record what they did (a reject, a hand-off): by default the
   * audit log of each graph's checkpointer (`auditLogFor`).
   */
  audit?: AuditLog;
  /**
   * Who is told what happened (reviews waiting, decided, expired; runs ended): see
   * `webhookOptionsOf`. Deliveries go through `queue`; processes that call `work()` make them.
   */
  webhooks?: WebhookOptions;
  /** Where a failure to queue a webhook goes (it never fails the run); ignored by default. */
  onWebhookError?: (error: unknown) => void;
  /**
   * The graph a run executes, when it is built per run (a server's graph factory, from the
   * run's config) rather than the one `graphs` names; called where the run executes, and
   * a failure to build fails the run. Return `hosted` to run it as given.
   */
  graphForRun?: (run: QueuedRun, hosted: AnyGraph) => Promise<AnyGraph>;
}

/** What `work()` runs: how many runs at once in this process, and how each is executed. */
export interface WorkOptions {
  concurrency?: number;
  /** Default: `graph.stream` of the run's input, reporting each stream event by its type. */
  execute?: RunExecutor;
  /** How a thread's values are shown in LangGraph's per-run `webhook` (default: as stored). */
  values?: RunValues;
}

interface HeldRun {
  run: QueuedRun;
  controller: AbortController;
  /** Why it is being stopped, once it is. */
  stop: StopAction | "lost" | "shutdown" | undefined;
}

/**
 * Background runs: `create` enqueues, any process that called `work()` executes, and
 * `get`/`list`/`join`/`cancel` work from every process sharing the queue. One run at a time
 * per thread; a new run for a busy thread follows its multitask strategy.
 *
 * @example
 * const runs = createRuns({ graphs: [graph] });
 * await runs.work();                        // execute runs in this process too
 * const run = await runs.create({ graphId: graph.name, threadId: "t1", input: { input: { n: 1 } } });
 * await runs.join(run.runId);               // { status: "success", … }
 */
export class Runs implements RunService {
  readonly queue: RunQueue;
  readonly #graphs = new Map<string, AnyGraph>();
  readonly #leaseMs: number;
  readonly #held = new Map<string, HeldRun>();
  /** Runs between the queue's take and `#held`: a heartbeat must not give them back. */
  readonly #taking = new Set<string>();
  readonly #log = new RunEventLog();
  readonly #waiters = new Map<string, Set<() => void>>();
  readonly #unsubscribe: () => void;
  #consumer: RunConsumer | undefined;
  readonly #settled = new Set<(change: RunChange) => void>();
  #timers: ReturnType<typeof setInterval>[] = [];
  #closed = false;
  /** Review deadlines: scheduled as runs pause, applied when due (see review-deadlines.ts). */
  readonly #deadlines: ReviewDeadlines;
  /** Webhook events, queued as deliveries on `queue` (see webhooks/webhooks.ts). */
  readonly webhooks: Webhooks;
  readonly #onWebhookError: (error: unknown) => void;
  #values: RunValues = async (graph, threadId) =>
    (await graph.getState({ configurable: { thread_id: threadId } })).values;
  readonly #graphForRun: RunsOptions["graphForRun"];

  constructor(options: RunsOptions) {
    this.#graphForRun = options.graphForRun;
    const graphs =
      Symbol.iterator in options.graphs
        ? [...(options.graphs as Iterable<AnyGraph>)].map((g) => [g.name, g] as const)
        : Object.entries(options.graphs);
    for (const [id, graph] of graphs) this.#graphs.set(id, graph.withRuns(this, id));
    this.queue = options.queue ?? new InProcessRunQueue();
    this.#leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.#deadlines = new ReviewDeadlines({
      queue: this.queue,
      graph: (graphId) => this.#graphs.get(graphId),
      graphs: () => this.#graphs.entries(),
      audit: (graphId) => {
        const checkpointer = this.#graphs.get(graphId)?.checkpointer;
        return options.audit ?? (checkpointer && auditLogFor(checkpointer));
      },
      create: (request) => this.create(request),
    });
    this.#onWebhookError = options.onWebhookError ?? (() => {});
    this.webhooks = new Webhooks(this.queue, options.webhooks, this.#onWebhookError);
    this.#deadlines.onApplied((threadId, outcome, graphId) => {
      const graph = graphId === undefined ? undefined : this.#graphs.get(graphId);
      if (graph && graphId !== undefined)
        void this.webhooks
          .reviewExpired(graph, graphId, threadId, outcome)
          .catch(this.#onWebhookError);
    });
    this.#unsubscribe = this.queue.onChange((change) => {
      if (change.cancelAction) this.#stop(change.runId, change.cancelAction);
      if (FINAL_RUN_STATUSES.has(change.status)) {
        this.#wake(change.runId);
        // A stream of a run another process executed ends when the run does.
        if (this.#log.has(change.runId) && !this.#held.has(change.runId))
          this.#log.end(change.runId);
        for (const listener of this.#settled) listener(change);
      }
    });
  }

  /** A hosted graph, bound to these runs (`graph.runs` works on it). */
  graph(graphId: string): AnyGraph | undefined {
    return this.#graphs.get(graphId);
  }

  /**
   * Enqueue a run. `expectedCheckpointId`: the thread's latest checkpoint that the caller
   * checked the run's input against (a resume against what waited); if the thread moved
   * on since (another resume won), the run is refused with `ConcurrentUpdateError`, and
   * nothing is stored.
   */
  async create(
    request: { graphId: string; threadId: string; input: RunInput } & RunCreateOptions & {
        expectedCheckpointId?: string;
        /** LangGraph's per-run `webhook`: an http(s) URL the run is posted to when it ends. */
        webhook?: string;
        /** The run's resume was recorded as decisions naming it (see `RunRequest`). */
        decisionsRecorded?: { toolReviews: boolean };
      },
  ): Promise<BackgroundRun> {
    const { graphId, threadId, input, multitaskStrategy = "reject", metadata = {} } = request;
    if (!this.#graphs.has(graphId)) {
      throw new InvalidRunError(
        `No graph "${graphId}" is hosted here (hosted: ${[...this.#graphs.keys()].join(", ") || "none"}). Pass its name as graphId, or add it to createRuns({ graphs }).`,
      );
    }
    if (typeof threadId !== "string" || threadId.length === 0) {
      throw new InvalidRunError("A run needs a threadId: a non-empty string naming its thread.");
    }
    if (request.webhook !== undefined && !isHttpUrl(request.webhook)) {
      throw new InvalidRunError(
        `webhook ${JSON.stringify(request.webhook)} is not an http:// or https:// URL; pass the full address the run should be posted to when it ends.`,
      );
    }
    if (!MULTITASK_STRATEGIES.includes(multitaskStrategy)) {
      throw new InvalidRunError(
        `multitaskStrategy ${JSON.stringify(multitaskStrategy)} is not one of ${MULTITASK_STRATEGIES.join(", ")}.`,
      );
    }
    const { delayMs } = request;
    if (delayMs !== undefined && !(Number.isFinite(delayMs) && delayMs >= 0)) {
      throw new InvalidRunError(
        `delayMs ${JSON.stringify(delayMs)} is not a number of milliseconds from 0 up; leave it out to start the run at once.`,
      );
    }
    const stored = {
      input,
      ...(request.context !== undefined && { context: request.context }),
      ...(request.configurable && { configurable: request.configurable }),
      ...(request.interruptBefore && { interruptBefore: request.interruptBefore }),
      ...(request.interruptAfter && { interruptAfter: request.interruptAfter }),
      ...(request.checkpointId && { checkpointId: request.checkpointId }),
      ...(request.recursionLimit && { recursionLimit: request.recursionLimit }),
      ...(request.streamModes && { streamModes: request.streamModes }),
      ...(request.streamSubgraphs && { streamSubgraphs: true }),
      ...(request.webhook !== undefined && { webhook: request.webhook }),
      ...(request.decisionsRecorded && {
        decisionsRecorded: { toolReviews: request.decisionsRecorded.toolReviews === true },
      }),
    };
    // A run waits as JSON until a worker takes it: refuse what would not survive that here.
    assertJson(stored, "run");
    assertJson(metadata, "metadata");
    const expected = request.expectedCheckpointId;
    const checkpointer = this.#graphs.get(graphId)?.checkpointer;
    const admit =
      expected === undefined || !checkpointer
        ? undefined
        : async () => {
            // The thread's record names its latest checkpoint: no need to read the checkpoint.
            const latest =
              (checkpointer.latestCheckpointId
                ? await checkpointer.latestCheckpointId(threadId)
                : (await checkpointer.getThread(threadId))?.latestCheckpointId) ?? "";
            if (latest !== expected) {
              throw new ConcurrentUpdateError(
                threadId,
                "",
                expected,
                latest || null,
                `Thread "${threadId}" moved on from checkpoint ${expected} (now ${latest || "<none>"}) before this run was admitted: another run (a concurrent resume?) got there first. Nothing was run; read the thread's state and try again.`,
              );
            }
          };
    const { run, stopping } = await this.queue.enqueue(
      {
        runId: request.runId ?? randomUUID(),
        threadId,
        graphId,
        multitaskStrategy,
        request: stored,
        metadata,
        ...(delayMs !== undefined && delayMs > 0 && { delayMs }),
      },
      admit,
    );
    for (const s of stopping) if (s.cancelAction) this.#stop(s.runId, s.cancelAction);
    // Streams of the run may start before any worker takes it.
    this.#log.open(run.runId);
    return publicRun(run);
  }

  /**
   * Forget an ended run (its record; the thread's checkpoints stay). Returns false for an
   * unknown run, and for one still pending or running (cancel it first).
   */
  async delete(runId: string): Promise<boolean> {
    return this.queue.delete(runId);
  }

  async get(runId: string): Promise<BackgroundRun | undefined> {
    const run = await this.queue.get(runId);
    return run && publicRun(run);
  }

  async list(options: RunListOptions = {}): Promise<BackgroundRun[]> {
    return (await this.queue.list(options)).map(publicRun);
  }

  /** The run pending or working on the thread, if any (the oldest). */
  async activeOn(threadId: string): Promise<BackgroundRun | undefined> {
    if (this.queue.activeOn) {
      const run = await this.queue.activeOn(threadId);
      return run && publicRun(run);
    }
    const runs = await this.queue.list({ threadId, limit: 100 });
    return runs.reverse().find((r) => !FINAL_RUN_STATUSES.has(r.status));
  }

  /** The threads that have a run pending or working now (the inbox skips them). */
  async activeThreads(): Promise<Set<string>> {
    const [pending, running] = await Promise.all([
      this.queue.list({ status: "pending", limit: 10_000 }),
      this.queue.list({ status: "running", limit: 10_000 }),
    ]);
    return new Set([...pending, ...running].map((r) => r.threadId));
  }

  async join(runId: string, options: { signal?: AbortSignal } = {}): Promise<BackgroundRun> {
    // A run created here that another process executes, and that this process has not yet
    // heard end, is still pending or running: wait for its end before reading it.
    if (this.#log.has(runId) && !this.#log.ended(runId) && !this.#held.has(runId)) {
      await this.#waitFor(runId, options.signal, 1000);
    }
    for (;;) {
      const run = await this.queue.get(runId);
      if (!run) throw new RunNotFoundError(runId);
      if (FINAL_RUN_STATUSES.has(run.status)) return publicRun(run);
      if (options.signal?.aborted) throw new AbortError(options.signal.reason);
      // Woken by the queue's change feed; the timer only covers a feed that dropped.
      await this.#waitFor(runId, options.signal, 1000);
    }
  }

  async cancel(
    runId: string,
    options: { action?: "interrupt" | "rollback"; wait?: boolean } = {},
  ): Promise<BackgroundRun | undefined> {
    const action: StopAction = options.action === "rollback" ? "rollback" : "cancel";
    const run = await this.queue.requestCancel(runId, action);
    if (!run) return undefined;
    if (run.cancelAction) this.#stop(runId, run.cancelAction);
    if (FINAL_RUN_STATUSES.has(run.status)) {
      this.#log.end(runId);
      this.#wake(runId);
    }
    return options.wait ? this.join(runId) : publicRun(run);
  }

  /**
   * What a run executed in this process reported, from `afterSeq` on, until it ends or
   * `signal` aborts. Runs executed by other processes report nothing here.
   */
  async *events(
    runId: string,
    options: { afterSeq?: number; signal?: AbortSignal } = {},
  ): AsyncGenerator<RunEvent> {
    if (!this.#log.has(runId)) {
      // A run of another process: nothing to relay, but its reader waits for its end.
      const run = await this.queue.get(runId);
      if (run && !FINAL_RUN_STATUSES.has(run.status)) {
        this.#log.open(runId);
        const now = await this.queue.get(runId); // it may have ended before the log opened
        if (!now || FINAL_RUN_STATUSES.has(now.status)) this.#log.end(runId);
      }
    }
    yield* this.#log.read(runId, options);
  }

  /** Hear each run that ends (from any process sharing the queue). Returns an unsubscribe. */
  onSettled(listener: (change: RunChange) => void): () => void {
    this.#settled.add(listener);
    return () => this.#settled.delete(listener);
  }

  /**
   * Hear each review deadline that workers in this process applied (a reject, a hand-off, an
   * overdue mark), e.g. to refresh an inbox. Returns an unsubscribe.
   */
  onDeadline(listener: (threadId: string, outcome: DeadlineOutcome) => void): () => void {
    return this.#deadlines.onApplied(listener);
  }

  /**
   * Execute runs in this process: up to `concurrency` at once, as the queue hands them out,
   * holding each under a lease renewed in the background. Call once.
   */
  async work(options: WorkOptions = {}): Promise<void> {
    if (this.#consumer) throw new InvalidRunError("work() was already called on these runs.");
    const execute = options.execute ?? streamRun;
    if (options.values) this.#values = options.values;
    const consume = async (): Promise<void> => {
      const consumer = await this.queue.consume(
        (runId, workerId) => this.#handle(runId, workerId, execute),
        {
          concurrency: options.concurrency ?? 4,
          onScheduled: async (job) => {
            if (isDeadlineJob(job)) await this.#deadlines.fire(job);
          },
          onDelivery: (delivery, attempt) => this.webhooks.attempt(delivery, attempt),
        },
      );
      if (this.#closed) return void (await consumer.stop());
      this.#consumer = consumer;
      void consumer.ended?.then(replace);
    };
    // A consumer that ended by itself is replaced, after a pause, until close().
    const replace = async () => {
      for (let pause = 1000; !this.#closed; pause = Math.min(pause * 2, 30_000)) {
        await new Promise((r) => setTimeout(r, pause));
        if (this.#closed) return;
        try {
          return await consume();
        } catch {
          // The database is still away: try again later.
        }
      }
    };
    await consume();
    // An in-process queue lost its deadline timers with the last process: schedule again.
    await this.#deadlines.armAll();
    await this.#beat();
    const beat = setInterval(() => void this.#beat(), this.#leaseMs / 3);
    const sweep = setInterval(
      () => void this.queue.sweep(this.#leaseMs).catch(() => 0),
      this.#leaseMs / 2,
    );
    beat.unref();
    sweep.unref();
    this.#timers.push(beat, sweep);
  }

  /**
   * Stop working and close the queue. Runs working here are given back to the queue, not
   * ended: another worker (or this one, restarted) continues them.
   */
  /** True once `close()` was called: what these runs work with may be gone. */
  get closed(): boolean {
    return this.#closed;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const timer of this.#timers) clearInterval(timer);
    for (const runId of this.#held.keys()) this.#stop(runId, "shutdown");
    await this.#consumer?.stop();
    this.#unsubscribe();
    await this.queue.close();
  }

  async #handle(runId: string, workerId: string, execute: RunExecutor): Promise<void> {
    this.#taking.add(runId);
    const taken = await this.#persist(() =>
      this.queue.take(runId, workerId, this.#leaseMs),
    ).finally(() => {
      this.#taking.delete(runId);
    });
    if ("gone" in taken || "notItsTurn" in taken) return;
    if ("held" in taken) {
      // Another worker's lease is live: offer the run again once that lease may have run out.
      const afterMs = taken.retryInMs ?? this.#leaseMs;
      await this.#persist(() => this.queue.defer(runId, taken.threadId, afterMs));
      return;
    }
    const run = taken.taken;
    const held: HeldRun = { run, controller: new AbortController(), stop: undefined };
    this.#held.set(runId, held);
    this.#taking.delete(runId);
    if (run.cancelAction) this.#stop(runId, run.cancelAction);
    let graph = this.#graphs.get(run.graphId);
    try {
      if (!graph) {
        throw new InvalidRunError(
          `This worker hosts no graph "${run.graphId}": start workers with the same graphs as the servers that create runs.`,
        );
      }
      const built = await this.#graphForRun?.(run, graph);
      if (built && built !== graph) graph = built.withRuns(this, run.graphId);
      const point = await resumePoint(graph, run);
      const outcome =
        point.ended ??
        (await execute({
          graph,
          run,
          input: point.input,
          signal: held.controller.signal,
          emit: (event, data) => this.#log.append(runId, event, data),
        }));
      if (held.stop) throw new AbortError(held.controller.signal.reason);
      // Before the run ends, so a worker dying in between leaves the run to arm them again.
      if (outcome === "interrupted") await this.#deadlines.arm(run.graphId, run.threadId);
      await this.#settle(held, { status: outcome });
    } catch (error) {
      const stop = held.stop;
      if (stop === "lost") {
        const now = await this.queue.get(runId).catch(() => undefined);
        if (now?.status !== "running" || now.attempt !== run.attempt) return;
        // Still ours after all: give it back so another worker continues it.
        return await this.#persist(() => this.queue.release(runId, run.attempt));
      }
      // A hand-back, not a failure: the next worker takes the run at once.
      if (stop === "shutdown")
        return await this.#persist(() => this.queue.release(runId, run.attempt));
      if (!stop && isTransientDatabaseError(error)) {
        // The database failed under the run, not the run: another attempt continues it from
        // its last checkpoint once the database answers, after a pause that grows per attempt.
        const afterMs = Math.min(
          TRANSIENT_RETRY_MS * 2 ** (run.attempt - 1),
          MAX_TRANSIENT_RETRY_MS,
        );
        return await this.#persist(() => this.queue.release(runId, run.attempt, { afterMs }));
      }
      let failure = error;
      if (stop) {
        try {
          if (stop === "rollback" && graph) await rewindRun(graph, run);
          await this.#settle(held, { status: stop === "interrupt" ? "interrupted" : "cancelled" });
          return;
        } catch (rewindError) {
          failure = rewindError;
        }
      }
      if (isTransientDatabaseError(failure)) {
        return await this.#persist(() =>
          this.queue.release(runId, run.attempt, { afterMs: TRANSIENT_RETRY_MS }),
        );
      }
      const e = failure instanceof Error ? failure : new Error(String(failure));
      this.#log.append(runId, "error", { error: e.name, message: e.message });
      try {
        await this.#settle(held, { status: "error", error: { name: e.name, message: e.message } });
      } catch (settleError) {
        if (!isTransientDatabaseError(settleError)) throw settleError;
        // The next attempt meets the same failure again and records it then.
        await this.#persist(() =>
          this.queue.release(runId, run.attempt, { afterMs: TRANSIENT_RETRY_MS }),
        );
      }
    } finally {
      this.#held.delete(runId);
      this.#log.end(runId);
    }
  }

  /**
   * `step` again through passing database faults, with a pause that doubles up to 5 s, so a
   * run is never left to the queue's own failure handling for an outage; it gives up (throws)
   * only when these runs are closing.
   */
  async #persist<T>(step: () => Promise<T>): Promise<T> {
    for (let pause = 100; ; pause = Math.min(pause * 2, 5000)) {
      try {
        return await step();
      } catch (error) {
        if (!isTransientDatabaseError(error) || this.#closed) throw error;
        await new Promise((r) => setTimeout(r, pause));
      }
    }
  }

  async #settle(held: HeldRun, end: RunEnd): Promise<void> {
    const { run } = held;
    // Webhooks read the thread before the end is stored (a stateless run's thread goes as
    // soon as it is) and are queued after; neither can change how the run ends.
    const tell = await this.webhooks
      .beforeEnd(this.#graphs.get(run.graphId), run, this.#values)
      .catch((error: unknown) => void this.#onWebhookError(error));
    const settled = await this.queue.settle(run.runId, run.attempt, end);
    this.#wake(run.runId);
    if (settled && tell) await tell(settled).catch(this.#onWebhookError);
  }

  #stop(runId: string, why: HeldRun["stop"] & string): void {
    const held = this.#held.get(runId);
    if (!held || held.stop) return;
    held.stop = why;
    held.controller.abort(new Error(`run ${why}`));
  }

  async #beat(): Promise<void> {
    const workerIds = this.#consumer?.workerIds() ?? [];
    // Only runs held before the heartbeat are judged by it: one taken meanwhile may be missing.
    const judged = new Map([...this.#held].map(([runId, held]) => [runId, held.run.attempt]));
    const taking = new Set(this.#taking);
    try {
      const holding = await this.queue.heartbeat(workerIds, this.#leaseMs);
      const still = new Map(holding.map((h) => [h.runId, h]));
      // A run recorded as ours that no handler here holds (its end could not be stored):
      // give it back so another worker settles it.
      for (const h of holding) {
        const handled = this.#held.has(h.runId) || this.#taking.has(h.runId) || taking.has(h.runId);
        if (!handled) await this.queue.release(h.runId, h.attempt);
      }
      for (const [runId, held] of this.#held) {
        if (judged.get(runId) !== held.run.attempt) continue;
        const h = still.get(runId);
        // Taken over after this process missed its lease: stop without storing more.
        if (!h || h.attempt !== held.run.attempt) this.#stop(runId, "lost");
        else if (h.cancelAction) this.#stop(runId, h.cancelAction);
      }
    } catch {
      // The database is unreachable: the lease may run out, and then the run moves on.
    }
  }

  #waitFor(runId: string, signal: AbortSignal | undefined, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const waiters = this.#waiters.get(runId) ?? new Set();
      this.#waiters.set(runId, waiters);
      const done = () => {
        clearTimeout(timer);
        waiters.delete(done);
        if (waiters.size === 0) this.#waiters.delete(runId);
        signal?.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      waiters.add(done);
      signal?.addEventListener("abort", done, { once: true });
    });
  }

  #wake(runId: string): void {
    for (const wake of [...(this.#waiters.get(runId) ?? [])]) wake();
  }
}

/**
 * Background runs of `graphs` on `queue` (this process by default; `PostgresRunQueue` to share
 * them with `stateweaver worker` processes). See `Runs`.
 *
 * @example
 * const runs = createRuns({ graphs: [graph] });
 * await runs.work();
 * const run = await runs.graph("Counter")!.runs.create("t1", { n: 1 });
 */
export function createRuns(options: RunsOptions): Runs {
  return new Runs(options);
}

function isHttpUrl(value: unknown): boolean {
  if (typeof value !== "string") return false;
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}

/** The default executor: stream the graph, reporting each event under its type. */
const streamRun: RunExecutor = async ({ graph, run, input, signal, emit }) => {
  const stream = graph.stream(argOf(input) as never, {
    config: {
      configurable: {
        ...run.request.configurable,
        thread_id: run.threadId,
        ...(run.request.checkpointId && { checkpoint_id: run.request.checkpointId }),
      },
    },
    signal,
    runId: run.runId,
    metadata: run.metadata,
    ...(run.request.recursionLimit && { recursionLimit: run.request.recursionLimit }),
    ...(run.request.context !== undefined && { context: run.request.context }),
    ...(run.request.interruptBefore && { interruptBefore: run.request.interruptBefore }),
    ...(run.request.interruptAfter && { interruptAfter: run.request.interruptAfter }),
  });
  for (;;) {
    const next = await stream.next();
    if (next.done) return next.value.status === "done" ? "success" : "interrupted";
    emit(next.value.type, next.value);
  }
};

export type { RunEvent };
