import type {
  Checkpoint,
  Checkpointer,
  CheckpointSource,
  InterruptRecord,
  PendingWrite,
  ThreadWrite,
} from "../checkpoint/checkpointer.js";
import { isTransientDatabaseError } from "../checkpoint/database-faults.js";
import { checkpointId, createdAtOf } from "../checkpoint/id.js";
import { type PausedTask, pauseWrite, ROUTE } from "../checkpoint/paused-tasks.js";
import { setOwn } from "../checkpoint/serde.js";
import { threadErrorOf } from "../checkpoint/thread-records.js";
import { AbortError } from "../errors/index.js";
import { claimTtlOf, keepClaimAlive } from "./claim-renewal.js";
import { taskInterrupts } from "./drive.js";
import type { BarrierKind } from "./run-env.js";
import { compactSnapshot, persistedSnapshotOf } from "./snapshot-format.js";
import type { GraphContext, TaskOutcome, TaskRecord } from "./task.js";

/**
 * When a run's checkpoint writes must be in the store:
 * - `"async"` (the default, as in LangGraph.js): the next step starts while the
 *   last one's checkpoint is written; every write is in the store, in order,
 *   before `invoke`/`resume`/`stream` returns or throws. A process that dies
 *   mid-run loses at most the writes still in flight, and the thread stays at an
 *   earlier checkpoint.
 * - `"sync"`: each step starts only once its barrier checkpoint is stored.
 *
 * @example
 * await graph.invoke(input, { config, durability: "sync" });
 */
export type Durability = "sync" | "async";

export { ROUTE } from "../checkpoint/paused-tasks.js";

/** The pseudo-channel under which a failed task's pending write keeps its error. */
export const TASK_ERROR = "__error__";

/** What is kept of a task's error: plain JSON, for views (the error itself is thrown). */
export interface TaskErrorRecord {
  name: string;
  message: string;
  /** Runs of the task so far, when its node has a retry policy. */
  attempts?: number;
  /** Set while a retry was due: a continued run goes on counting from `attempts`. */
  retrying?: true;
}

/**
 * How many checkpoints an `"async"` run may be ahead of its store. Past that the run waits
 * at its next barrier until the store has caught up, so a process that dies mid-run
 * loses — and a restart runs again — at most this many steps.
 */
export const MAX_CHECKPOINT_LAG = 2;

/** How often `close()` tries to release a claim through passing database faults (~1.2 s). */
const RELEASE_ATTEMPTS = 3;

/**
 * Where one run's checkpoints go, written one after another in the order the
 * run made them: each `put` names the one before it as the store's latest
 * (optimistic concurrency), so order matters. The first failed write stops the
 * queue — nothing after it is written, so the thread never skips a checkpoint —
 * and is reported to the failure listener and by `flush()`. A top-level run first
 * claims its thread (`claim`), and `close()` ends the run's access: nothing it
 * queues afterwards is stored, and the claim is released.
 */
export class CheckpointWriter {
  /** The checkpoint the next write follows. */
  #parentId: string | null;
  /** The parent of `#parentId`. */
  #headParentId: string | null;
  /** What we believe the store's latest is. */
  #latestId: string | null;
  /** Source of the next checkpoint written. */
  #source: CheckpointSource;
  #onFailure: ((error: unknown) => void) | undefined;
  readonly #metadata: Record<string, unknown> | undefined;
  /** The caller's run metadata, beneath the runtime's keys in every checkpoint's metadata. */
  readonly #runMetadata: Record<string, unknown> | undefined;
  /** What the thread record learns from this run (top-level runs only); metadata goes once. */
  #thread: ThreadWrite | undefined;
  #tail: Promise<void> = Promise.resolve();
  #failure: { error: unknown } | undefined;
  /** Checkpoints queued and not yet stored. */
  #behind = 0;
  #closed = false;
  /** The run's hold on its thread: whose it is, and how to stop renewing it. */
  #claim: { runId: string; stopRenewal: () => void } | undefined;
  /**
   * The last write queued, while it is a checkpoint not yet being stored: `close()` gives
   * it the claim's release, so the run's last write and its release are one store call.
   */
  #lastPut: { releasing?: string } | undefined;
  /** The merged tasks whose writes the last checkpoint recorded (see `#stepWrites`). */
  #recorded: TaskRecord[] | undefined;
  /** Keys of the paused tasks' writes stored already: a pause stores only new ones. */
  readonly #pausesStored: Set<string>;

  constructor(
    readonly checkpointer: Checkpointer,
    readonly threadId: string,
    readonly ns: string,
    start: {
      parentId: string | null;
      /** The parent of `parentId` (the checkpoint a restored run continues from), if known. */
      headParentId?: string | null;
      latestId: string | null;
      source: CheckpointSource;
      /** Extra metadata on every checkpoint of this run (a subgraph's parent step). */
      metadata?: Record<string, unknown>;
      /**
       * For the thread's record (top-level runs): the graph's name, and the caller's
       * metadata, merged into the thread's by the claim and by the run's first checkpoint.
       */
      thread?: ThreadWrite;
      /** The run's own id (`InvokeOptions.runId`): named in every checkpoint's metadata. */
      runId?: string;
      /**
       * The caller's metadata for this run (`InvokeOptions.metadata`), copied into each of
       * its checkpoints' metadata as LangGraph does, so history can be filtered by it. The
       * runtime's own keys (`step`, `source`, …) win over a key of the same name.
       */
      runMetadata?: Record<string, unknown>;
      /** The pending writes of the checkpoint the run restored (its paused tasks are stored). */
      pendingWrites?: readonly PendingWrite[];
    },
  ) {
    this.#pausesStored = new Set(start.pendingWrites?.map((w) => w.taskId));
    this.#parentId = start.parentId;
    this.#headParentId = start.headParentId ?? null;
    this.#latestId = start.latestId;
    this.#source = start.source;
    this.#metadata =
      start.runId === undefined ? start.metadata : { ...start.metadata, runId: start.runId };
    this.runId = start.runId;
    this.#thread = start.thread;
    this.#runMetadata = start.runMetadata;
  }

  /** The caller's run id, if it gave one (a background run's); the claim is held under it. */
  readonly runId: string | undefined;

  /** The id of the last checkpoint queued (or the store's latest when the run started). */
  get latestId(): string | null {
    return this.#latestId;
  }

  /** The checkpoint the next one written follows (the run's current one), and its parent. */
  get head(): { id: string | null; parentId: string | null } {
    return { id: this.#parentId, parentId: this.#headParentId };
  }

  /** Whether the run should wait at its barrier for the store to catch up. */
  get lagging(): boolean {
    return this.#behind > MAX_CHECKPOINT_LAG;
  }

  /**
   * Why the next checkpoint is written: `"input"` (a run from a past checkpoint stays a
   * `"fork"`), or `"update"`, which an `updateState` checkpoint always is, on a past
   * checkpoint too, as in LangGraph.js.
   */
  startedBy(source: "input" | "update"): void {
    if (source === "update" || this.#source !== "fork") this.#source = source;
  }

  /** Who hears of the first failed write (the driver, which fails the run). */
  onFailure(listener: (error: unknown) => void): void {
    this.#onFailure = listener;
  }

  /**
   * Take the thread for this run before any node runs (one store call): throws
   * `ConcurrentUpdateError` if it moved since the run read it, or `ThreadBusyError` if
   * another run holds it. Renewed in the background until `close()`. `expectedLatestId`
   * is the checkpoint the run read (by default the latest when the writer was made, or
   * the last it queued).
   */
  async claim(runId: string, expectedLatestId = this.#latestId): Promise<void> {
    const { checkpointer, threadId } = this;
    const ttlMs = claimTtlOf(checkpointer);
    await checkpointer.claimThread(threadId, {
      runId,
      expectedLatestId,
      ttlMs,
      // A thread that has a record gets the metadata now; a new one with its first checkpoint.
      metadata: this.#thread?.metadata,
    });
    this.#keep(runId, ttlMs);
  }

  /**
   * Hold the claim the run took with its read of the thread (`Checkpointer.claimLatest`,
   * under `runId`) as this writer's own: renewed in the background until `close()`, which
   * releases it.
   */
  hold(runId: string): void {
    this.#keep(runId, claimTtlOf(this.checkpointer));
  }

  /** Whether the run holds its thread (see `claim` and `hold`). */
  get holdsClaim(): boolean {
    return this.#claim !== undefined;
  }

  #keep(runId: string, ttlMs: number): void {
    const { checkpointer, threadId } = this;
    const lost = (error: unknown) => this.#fail(error);
    this.#claim = {
      runId,
      stopRenewal: keepClaimAlive({ checkpointer, threadId, runId, ttlMs, lost }),
    };
  }

  /**
   * Hold every write queued after this until `ready` settles; if it fails, the writer fails
   * with its error and nothing queued after it is stored. How a graph's actor, which runs
   * before its claim is answered, keeps its checkpoints behind the claim.
   */
  after(ready: Promise<unknown>): void {
    void this.#enqueue(() => ready.then(() => {}));
  }

  /** Accept nothing more (the run failed or was aborted); what is queued is still written. */
  seal(): void {
    this.#closed = true;
  }

  /**
   * End the run's access: wait for what is queued, drop anything queued later (a task that
   * ignored its abort signal and finished after the call returned), release the claim.
   * A run that `failed` marks its thread `"error"` in the same store call; one stopped
   * through its signal did not fail, and neither did one that met a passing database
   * fault (it is tried again from its latest checkpoint): both leave the status of their
   * latest checkpoint. A release that meets such a fault is tried again a few times; if
   * the database stays away, the claim runs out by itself. A run refused before anything
   * ran (a resume that does not fit its thread) closes with nothing: it only lets go.
   */
  async close(ended: { failed?: unknown } = {}): Promise<void> {
    this.seal();
    const claim = this.#claim;
    const failed =
      "failed" in ended &&
      !(ended.failed instanceof AbortError) &&
      !isTransientDatabaseError(ended.failed);
    // A failed run's release writes its error, so it goes on its own.
    const carried = failed ? undefined : this.#carryRelease();
    await this.#tail;
    if (!claim) return;
    claim.stopRenewal();
    this.#claim = undefined;
    // Stored, and the claim with it; a failure before or in that put leaves it to release here.
    if (carried && !this.#failure) return;
    const release = failed ? { error: threadErrorOf(ended.failed) } : undefined;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.checkpointer.releaseThread(this.threadId, claim.runId, release);
      } catch (error) {
        if (attempt >= RELEASE_ATTEMPTS || !isTransientDatabaseError(error)) throw error;
        await new Promise((r) => setTimeout(r, 200 * 2 ** attempt));
      }
    }
  }

  /**
   * The run's last write is queued (it paused or ended): wait until everything queued is
   * stored, and throw the first failure, as `flush()`. The claim is released by the last
   * checkpoint's own store call when the store can (`putAndRelease`); on a failure it is
   * still held, for `close()` to release as a failed run's. Nothing queued later is stored.
   */
  async finish(): Promise<void> {
    const claim = this.#claim;
    const carried = this.#carryRelease();
    if (carried) this.seal();
    await this.flush();
    if (carried && claim) {
      claim.stopRenewal();
      if (this.#claim === claim) this.#claim = undefined;
    }
  }

  /** Give the claim's release to the last checkpoint queued, if no store call has begun for it. */
  #carryRelease(): { releasing?: string } | undefined {
    const claim = this.#claim;
    const last = this.#lastPut;
    if (!claim || !last || !this.checkpointer.putAndRelease) return undefined;
    last.releasing = claim.runId;
    return last;
  }

  /**
   * Record the barrier a run enters (see `BarrierKind`) and return the checkpoint the step
   * it starts belongs to: a step's barrier is queued as a new checkpoint; a breakpoint's is
   * stored as its pause, so the origin stays until then; a continued one is the checkpoint
   * the run went on from.
   */
  barrier(
    context: GraphContext,
    kind: BarrierKind,
    stepOrigin: string | undefined,
  ): string | undefined {
    if (kind === "step") return this.checkpoint("barrier", context, stepOrigin);
    if (kind === "continued") return this.#parentId ?? stepOrigin;
    return stepOrigin;
  }

  /**
   * Whether the run's pause (in `context`, of the step that started from `stepOrigin`) is
   * stored as pending writes of that step's barrier, as LangGraph stores it: for an
   * `interrupt()` (a static breakpoint is its barrier's checkpoint) when the barrier is
   * still the run's latest checkpoint. Otherwise (an update applied to the paused step, a
   * fork, a pause checkpoint of a thread written before) the pause is a checkpoint.
   */
  pausesInPlace(context: GraphContext, stepOrigin: string | undefined): boolean {
    return (
      context.breakpoint === null &&
      stepOrigin !== undefined &&
      this.#source === "loop" &&
      this.#parentId === stepOrigin &&
      this.#latestId === stepOrigin
    );
  }

  /**
   * Queue a step's pause as pending writes of the checkpoint it started from (see
   * `pausesInPlace`): each paused task's state, for those not stored yet; a top-level
   * run's thread record turns `"interrupted"` with `interrupts` in the same store call,
   * which also ends the run's claim when it is the run's last write (see `finish`).
   */
  pause(stepOrigin: string, context: GraphContext, interrupts: InterruptRecord[]): void {
    const writes: PendingWrite[] = [];
    for (const t of context.tasks) {
      if (t.status !== "interrupted") continue;
      const paused: PausedTask = {
        taskId: t.id,
        interrupts: t.interrupts,
        resumes: t.resumes,
        waitsOn: taskInterrupts(t, context.step, this.ns),
      };
      if (t.nested) paused.nested = t.nested;
      if (t.nestedAnswers) paused.nestedAnswers = t.nestedAnswers;
      const write = pauseWrite(t.node, paused);
      if (this.#pausesStored.has(write.taskId)) continue;
      this.#pausesStored.add(write.taskId);
      // The run id lets a rollback remove the pause it stored, as its other writes.
      writes.push(this.runId === undefined ? write : { ...write, runId: this.runId });
    }
    // A subgraph's pause changes no thread record: nothing new, nothing to store.
    if (writes.length === 0 && this.ns !== "") return;
    // Counted as a checkpoint is: it may carry the claim's release (see `#carryRelease`).
    this.#behind++;
    const put: { releasing?: string } = {};
    const pause = { writes, interrupts };
    this.#enqueue(() => {
      if (this.#lastPut === put) this.#lastPut = undefined;
      if (put.releasing !== undefined) this.#claim?.stopRenewal();
      const { checkpointer, threadId, ns } = this;
      return checkpointer.putPause(threadId, ns, stepOrigin, pause, put.releasing);
    }, put);
  }

  /**
   * Queue a checkpoint of the machine at rest (`value`: `"barrier"` or the paused
   * state) and return its id at once. A pause also stores the writes of the step's
   * tasks that finished, for inspection.
   */
  checkpoint(
    value: unknown,
    context: GraphContext,
    stepOrigin: string | undefined,
    interrupts: InterruptRecord[] = [],
  ): string {
    const { snapshot, values } = compactSnapshot(persistedSnapshotOf({ value, context }));
    const next: string[] = [];
    for (const t of context.tasks) if (t.status !== "done") next.push(t.node);
    const metadata: Checkpoint["metadata"] = {
      ...this.#runMetadata,
      step: context.step,
      source: this.#source,
      writes: value === "barrier" ? this.#stepWrites(context) : null,
    };
    // A barrier starts the next step (its own id, left implicit); a pause belongs to the
    // step it interrupted, and a breakpoint keeps the origin its interrupt's id was made with.
    if (interrupts.length > 0 || context.breakpoint) metadata.stepOrigin = stepOrigin;
    if (this.#metadata) Object.assign(metadata, this.#metadata);
    const id = checkpointId();
    const checkpoint: Checkpoint = {
      id,
      threadId: this.threadId,
      ns: this.ns,
      parentId: this.#parentId,
      snapshot,
      values,
      next,
      interrupts,
      metadata,
      // The id's own millisecond: a store may then leave the time out (see createdAtOf).
      createdAt: createdAtOf(id)!,
    };
    const expectedLatestId = this.#latestId;
    const thread = this.#thread;
    // The metadata is merged once, with the run's first checkpoint; the graph goes every time.
    if (thread?.metadata) this.#thread = { graph: thread.graph };
    this.#behind++;
    const put: { releasing?: string } = {};
    this.#enqueue(() => {
      if (this.#lastPut === put) this.#lastPut = undefined;
      const options = { expectedLatestId, thread };
      if (put.releasing === undefined) return this.checkpointer.put(checkpoint, options);
      // No renewal may follow the release and take the thread again.
      this.#claim?.stopRenewal();
      return this.checkpointer.putAndRelease!(checkpoint, options, put.releasing);
    }, put);
    this.#headParentId = this.#parentId;
    this.#parentId = this.#latestId = id;
    this.#source = "loop";
    if (interrupts.length > 0) {
      for (const t of context.tasks) {
        if (t.status === "done" && t.writes) {
          this.putWrites(id, { taskId: t.id, node: t.node, writes: t.writes });
        }
      }
    }
    return id;
  }

  /**
   * What the step this barrier ends wrote, by node, as LangGraph's `metadata.writes` has it:
   * `{ __start__: input }` before the input is applied, then each node's update (a list
   * when the node ran as several tasks), `null` when no node wrote (the input's own step).
   * A barrier checkpointed again (restored, or updated in place) merged nothing new.
   */
  #stepWrites(context: GraphContext): Record<string, unknown> | null {
    const first = context.tasks[0];
    if (first?.kind === "input" && first.status === "pending") {
      return { [first.node]: (first.arg as { update: unknown }).update };
    }
    const merged = context.merged;
    if (!merged || merged === this.#recorded) return null;
    this.#recorded = merged;
    let writes: Record<string, unknown> | null = null;
    for (const t of merged) {
      if (t.kind === "input" || !t.writes) continue;
      writes ??= {};
      const update = Object.fromEntries(t.writes);
      const before = Object.hasOwn(writes, t.node) ? writes[t.node] : undefined;
      if (!Object.hasOwn(writes, t.node)) setOwn(writes, t.node, update);
      else if (Array.isArray(before)) before.push(update);
      else setOwn(writes, t.node, [before, update]);
    }
    return writes;
  }

  /** Queue a finished task's writes (and routes) against the barrier its step started from. */
  taskFinished(stepOrigin: string, task: TaskRecord, outcome: TaskOutcome): Promise<void> {
    return this.putWrites(stepOrigin, {
      taskId: task.id,
      node: task.node,
      writes: [...(outcome.writes ?? []), [ROUTE, outcome.next ?? []]],
    });
  }

  /** Queue a failed task's error against the barrier its step started from (for views). */
  taskFailed(stepOrigin: string, task: TaskRecord, error: unknown): Promise<void> {
    const cause = (error as { cause?: unknown } | null)?.cause ?? error;
    const record: TaskErrorRecord = {
      name: cause instanceof Error ? cause.name : "Error",
      message: error instanceof Error ? error.message : String(error),
    };
    const { attempts, retrying } = error as { attempts?: unknown; retrying?: unknown };
    if (typeof attempts === "number" && attempts > 1) record.attempts = attempts;
    if (retrying === true) Object.assign(record, { attempts, retrying: true });
    return this.putWrites(stepOrigin, {
      taskId: task.id,
      node: task.node,
      writes: [[TASK_ERROR, record]],
    });
  }

  /** Queue one task's writes against `checkpointId`, naming this run (if it has an id). */
  putWrites(checkpointId: string, write: PendingWrite): Promise<void> {
    // The run id lets a rollback remove what this run stored on checkpoints it keeps.
    const named = this.runId === undefined ? write : { ...write, runId: this.runId };
    return this.#enqueue(() =>
      this.checkpointer.putWrites(this.threadId, this.ns, checkpointId, named),
    );
  }

  /** Wait until every queued write is stored; throws the first failure. */
  async flush(): Promise<void> {
    await this.#tail;
    if (this.#failure) throw this.#failure.error;
  }

  /** Queue `write`; `put` marks a checkpoint's (see `#lastPut`). */
  #enqueue(write: () => Promise<void>, put?: { releasing?: string }): Promise<void> {
    if (this.#closed) return this.#tail;
    this.#lastPut = put;
    this.#tail = this.#tail.then(() => {
      if (this.#failure) return;
      // One reaction for both outcomes: every extra promise costs on the hot path.
      return write().then(put ? this.#stored : undefined, this.#failed);
    });
    return this.#tail;
  }

  /** A queued checkpoint is in the store. */
  readonly #stored = (): void => {
    this.#behind--;
  };

  readonly #failed = (error: unknown): void => {
    this.#fail(error);
  };

  #fail(error: unknown): void {
    if (this.#failure) return;
    this.#failure = { error };
    this.#onFailure?.(error);
  }
}
