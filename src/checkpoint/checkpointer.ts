/**
 * Where a thread's checkpoints live. One interface, several stores
 * (`MemoryCheckpointer`, `PGliteCheckpointer`, `PostgresCheckpointer`); every
 * store passes the conformance suite in `stateweaver/testing`.
 *
 * A checkpoint belongs to a thread and a namespace (`ns`): `""` for the top-level
 * graph, `parentNode:taskId` (levels joined with `|`) for a subgraph's own run.
 */

/** What the run is waiting for: one paused task, or a static breakpoint. */
export interface InterruptRecord {
  /** Stable id; resume values keyed by it go to this interrupt. */
  id: string;
  /** The JSON payload given to `interrupt(value)`, or `null` for a breakpoint. */
  value: unknown;
  /** The node that paused. */
  node: string;
  /** Checkpoint namespace of the graph that paused (`""` at top level). */
  ns: string;
  /** Super-step at which it paused. */
  step: number;
  /** The task that paused. */
  taskId: string;
  /** `"during"` for `interrupt()`, `"before"`/`"after"` for static breakpoints. */
  timing: "during" | "before" | "after";
}

/** Why a checkpoint was written. */
export type CheckpointSource = "input" | "loop" | "update" | "fork";

export interface CheckpointMetadata {
  /** Super-step number: 0 for the input checkpoint, then one more per super-step. */
  step: number;
  source: CheckpointSource;
  /** Node name -> the update it wrote in this step (for history views). */
  writes?: Record<string, unknown> | null;
  [key: string]: unknown;
}

/** One saved point of a thread. Everything in it is plain JSON. */
export interface Checkpoint {
  /** Unique, time-ordered id (see `checkpointId()`). */
  id: string;
  threadId: string;
  ns: string;
  /** The checkpoint this one follows, or `null` for a thread's first. */
  parentId: string | null;
  /** XState's `actor.getPersistedSnapshot()` of the graph machine. */
  snapshot: unknown;
  /** Channel values (the graph state) at this point. */
  values: Record<string, unknown>;
  /** Nodes that run next from here. */
  next: string[];
  /** Interrupts pending at this point (empty unless paused). */
  interrupts: InterruptRecord[];
  metadata: CheckpointMetadata;
  /** ISO-8601 time of writing. */
  createdAt: string;
}

/** The writes one finished task made in a step that has not reached its barrier yet. */
export interface PendingWrite {
  /** The task that wrote them (a paused task's write is keyed `taskId#answers`: see `pauseWrite`). */
  taskId: string;
  node: string;
  /** `[channel, value]` pairs, in the order the task wrote them. */
  writes: Array<[string, unknown]>;
  /**
   * The run that stored them (`InvokeOptions.runId`), when it gave one: `rewindThread`'s
   * `runId` option removes a stopped run's writes by it.
   */
  runId?: string;
}

/** A checkpoint together with the pending writes stored against it. */
export interface CheckpointTuple {
  checkpoint: Checkpoint;
  pendingWrites: PendingWrite[];
}

export interface ListOptions {
  /** Namespace to list; `""` (the top-level graph) by default. */
  ns?: string;
  /** At most this many, newest first. */
  limit?: number;
  /** Only checkpoints written before the one with this id. */
  before?: string;
}

export interface PutOptions {
  /**
   * The id the writer believes is the latest of (thread, ns) — `null` for a new
   * thread. If the store's latest differs, `put` throws `ConcurrentUpdateError`
   * and writes nothing. This is what makes two concurrent resumes safe.
   */
  expectedLatestId: string | null;
  /**
   * What the thread record learns from this write (top-level checkpoints only; ignored for
   * a subgraph's namespace). Written by the same statement as the checkpoint.
   */
  thread?: ThreadWrite;
}

/**
 * What a run tells the thread record besides its checkpoint.
 *
 * @example
 * await store.put(checkpoint, { expectedLatestId, thread: { graph: "Support", metadata: { user: "u1" } } });
 */
export interface ThreadWrite {
  /** The graph that wrote the checkpoint (`CompiledGraph.name`); kept when left out. */
  graph?: string;
  /** Merged into the thread's metadata, key by key (a shallow merge: a key given replaces). */
  metadata?: Record<string, unknown>;
}

/**
 * What `prune` keeps of a thread.
 *
 * @example
 * await store.prune("t1", { keep: "latest" }); // only the latest top-level checkpoint (and what it needs)
 * await store.prune("t1", { keep: 10 });       // the 10 latest
 */
export interface PruneOptions {
  /**
   * How many of the latest top-level checkpoints to keep: a whole number from 1, or
   * `"latest"` (1). Subgraph checkpoints are kept as far as those still need them.
   */
  keep: "latest" | number;
}

/**
 * What else `rewindThread` removes.
 *
 * @example
 * await store.rewindThread("t1", headId, { runId: run.runId }); // the run's writes on what is kept
 */
export interface RewindOptions {
  /**
   * A run being rolled back: its pending writes go from the checkpoints that are kept too
   * (the tasks it finished in a step it did not complete), in every namespace. Writes of
   * other runs, and writes that name no run, stay.
   */
  runId?: string;
}

/**
 * Which whole threads `pruneThreads` deletes: those last written before `idleBefore`, in
 * one of the statuses given, that no run holds.
 *
 * @example
 * const deleted = await store.pruneThreads({ idleBefore: new Date(Date.now() - 30 * 86_400_000) });
 * await store.pruneThreads({ idleBefore: "2026-01-01T00:00:00.000Z", status: ["idle", "error"], graph: "Support" });
 */
export interface PruneThreadsOptions {
  /** Threads whose record's `updatedAt` is before this time (a `Date` or ISO-8601 text). */
  idleBefore: Date | string;
  /**
   * Stored statuses to delete: `"idle"` (the default), `"interrupted"`, `"error"`, or a list
   * of them. A thread a run holds (`"busy"`) is never deleted.
   */
  status?: Exclude<ThreadStatus, "busy"> | Array<Exclude<ThreadStatus, "busy">>;
  /** Only threads of this graph (`CompiledGraph.name`); every graph's by default. */
  graph?: string;
}

/**
 * Where a thread stands, as the inbox shows it:
 * - `"busy"`: a run holds the thread (a live claim, see `claimThread`);
 * - `"interrupted"`: its latest top-level checkpoint waits on interrupts (its own, a
 *   breakpoint's, or those its step's paused tasks stored against it: see `putPause`);
 * - `"error"`: its last run failed (see `releaseThread`), until a later checkpoint;
 * - `"idle"`: none of these — finished, or resting at a barrier.
 */
export type ThreadStatus = "idle" | "busy" | "interrupted" | "error";

/** What is kept of the error that ended a thread's last run. */
export interface ThreadError {
  /** The error's class name, e.g. `"NodeError"`. */
  name: string;
  /** Its message, cut to `MAX_THREAD_ERROR_CHARS` characters. */
  message: string;
}

/**
 * One thread, as the store keeps it beside its checkpoints: written with each top-level
 * checkpoint in the same statement, so it never disagrees with the latest one.
 *
 * @example
 * const t = await store.getThread("t1");
 * // { threadId: "t1", graph: "Support", status: "interrupted", interrupts: [{ id, node: "review", … }],
 * //   error: null, metadata: { user: "u1" }, createdAt: "…", updatedAt: "…", latestCheckpointId: "…" }
 */
export interface ThreadRecord {
  threadId: string;
  /** The graph that last wrote to the thread; `null` for threads from before thread records. */
  graph: string | null;
  status: ThreadStatus;
  /** The interrupts the latest top-level checkpoint waits on (empty unless paused). */
  interrupts: InterruptRecord[];
  /** Why the last run failed, while `status` is `"error"`; else `null`. */
  error: ThreadError | null;
  /** Merged from every run's `metadata` (JSON; key order is not kept). */
  metadata: Record<string, unknown>;
  /** ISO-8601: when the thread's first checkpoint was stored. */
  createdAt: string;
  /** ISO-8601, millisecond precision: the last checkpoint or failure recorded. */
  updatedAt: string;
  /** The thread's latest top-level checkpoint. */
  latestCheckpointId: string;
}

/**
 * A search of the thread records, newest first by default.
 *
 * @example
 * const page = await store.searchThreads({ status: "interrupted", limit: 50 });
 * const next = page.nextCursor && (await store.searchThreads({ status: "interrupted", cursor: page.nextCursor }));
 */
export interface SearchThreadsOptions {
  /** Only threads in this status (`"busy"`: held by a run now; the others: and not held). */
  status?: ThreadStatus;
  /** Only threads of this graph. */
  graph?: string;
  /**
   * Only threads whose metadata contains this JSON (PostgreSQL's `@>`: every key given,
   * with a value that contains the one given; arrays contain the elements given).
   */
  metadata?: Record<string, unknown>;
  /** At most this many, 1 to `MAX_THREAD_PAGE`; `DEFAULT_THREAD_PAGE` by default. */
  limit?: number;
  /** From where the previous page ended (its `nextCursor`); the first page without. */
  cursor?: string;
  /** By `updatedAt` (then thread id): `"desc"`, the default, shows the latest first. */
  order?: "asc" | "desc";
}

/** One page of `searchThreads`. */
export interface ThreadPage {
  threads: ThreadRecord[];
  /** Pass as `cursor` for the next page; `null` when this page is the last. */
  nextCursor: string | null;
}

/**
 * A run's hold on a thread, taken before any of its nodes run so that of two runs that
 * read the same checkpoint only one does any work (see `Checkpointer.claimThread`).
 */
export interface ThreadClaim {
  /** Unique per run (a random UUID). */
  runId: string;
  /** The thread's latest top-level checkpoint as the run read it (`null`: a new thread). */
  expectedLatestId: string | null;
  /** How long the claim lasts unless renewed: a run that died frees its thread after this. */
  ttlMs: number;
  /** Merged into the metadata of the thread's record when the claim succeeds (if it has one). */
  metadata?: Record<string, unknown>;
}

/**
 * A run's hold on a thread taken with its read (`Checkpointer.claimLatest`): nothing is
 * expected, since the checkpoint it holds the thread at is the one it reads.
 *
 * @example
 * const tuple = await store.claimLatest?.("t1", { runId: randomUUID(), ttlMs: 4_000 });
 */
export type LatestClaim = Pick<ThreadClaim, "runId" | "ttlMs">;

/** How a run ended, for `releaseThread`. */
export interface ThreadRelease {
  /** The run failed: the thread's status becomes `"error"` with this record. */
  error?: ThreadError;
}

/**
 * The storage contract. Implementations must be safe to call concurrently and
 * must store copies: mutating an object after `put` must not change what is stored.
 * What they are given is plain JSON, at most `MAX_JSON_DEPTH` levels deep: the runtime
 * turns every value into its JSON form (`toJsonValue`) where it enters a run (input, node
 * writes, interrupt payloads, resume values, `Send` arguments, `updateState` values), so a
 * store need not walk each checkpoint again.
 *
 * Besides its checkpoints, a store keeps one `ThreadRecord` per thread: written by the
 * same statement (or transaction) as each top-level checkpoint, so it never disagrees
 * with the latest; marked `"error"` by the `releaseThread` that ends a failed run;
 * `"busy"` is not stored but read from a live claim, so a run that died stops making its
 * thread busy when its claim expires. `searchThreads` pages through the records by
 * `updatedAt` with a cursor, from an index: no checkpoint payload is read.
 *
 * @example
 * const checkpointer: Checkpointer = new MemoryCheckpointer();
 * const graph = builder.compile({ checkpointer });
 */
export interface Checkpointer {
  /**
   * How long a run's claim on a thread lasts without renewal, in ms: after a process dies
   * holding a thread, another can run on it this long after the dead one's last renewal.
   * Unset: the runtime's default (`DEFAULT_CLAIM_TTL_MS`, 4 s). A live run renews its claim
   * every third of it, so a shorter lifetime costs more renewals on long steps.
   */
  readonly claimTtlMs?: number | undefined;
  /** Store a checkpoint as the new latest of its (thread, ns). */
  put(checkpoint: Checkpoint, options: PutOptions): Promise<void>;
  /** Store one task's writes against an existing checkpoint (replacing that task's earlier writes). */
  putWrites(threadId: string, ns: string, checkpointId: string, write: PendingWrite): Promise<void>;
  /**
   * A step paused on `interrupt()`: store its paused tasks' writes (see `pauseWrite`) against
   * `checkpointId`, the checkpoint the step started from, which stays the latest (no
   * checkpoint is written for a pause, as in LangGraph); for a top-level checkpoint that is
   * still the thread's latest, the same statement (or transaction) makes the thread's record
   * `"interrupted"` with `interrupts`. With `releasing`, that run's claim ends in it too.
   * Throws `CheckpointNotFoundError` for a checkpoint the store does not have, writing nothing.
   *
   * @example
   * await store.putPause("t1", "", barrier.id, { writes: [pauseWrite("review", paused)], interrupts }, runId);
   */
  putPause(
    threadId: string,
    ns: string,
    checkpointId: string,
    pause: { writes: PendingWrite[]; interrupts: InterruptRecord[] },
    releasing?: string,
  ): Promise<void>;
  /** The newest checkpoint of (thread, ns) with its pending writes, if any. */
  getLatest(threadId: string, ns?: string): Promise<CheckpointTuple | undefined>;
  /** One checkpoint by id, with its pending writes. */
  get(threadId: string, ns: string, id: string): Promise<CheckpointTuple | undefined>;
  /** History of (thread, ns), newest first. */
  list(threadId: string, options?: ListOptions): Promise<Checkpoint[]>;
  /**
   * The pending writes of several checkpoints of (thread, ns) at once, by checkpoint id, each
   * list in the order `get` returns it; a checkpoint with none (or unknown) is left out. How
   * a page of history shows what each step's tasks wrote and paused on in one read.
   *
   * @example
   * const writes = await store.listWrites("t1", "", page.map((c) => c.id)); // Map { "c7" => [...] }
   */
  listWrites(
    threadId: string,
    ns: string,
    checkpointIds: readonly string[],
  ): Promise<Map<string, PendingWrite[]>>;
  /**
   * Take the thread for one run, in one atomic step, before any node runs. Succeeds when
   * the thread's latest top-level checkpoint is `claim.expectedLatestId` and no other run
   * holds an unexpired claim. Otherwise throws `ConcurrentUpdateError` (`ThreadBusyError`
   * while another claim is live) and changes nothing.
   */
  claimThread(threadId: string, claim: ThreadClaim): Promise<void>;
  /**
   * Optional: take the thread for one run and read its latest top-level checkpoint (with
   * its pending writes), as one atomic step, before any node runs: what it returns is the
   * checkpoint the claim holds the thread at (`undefined`: a thread with none yet), so no
   * other run can have moved it in between. Throws `ThreadBusyError` while another run
   * holds an unexpired claim, and changes nothing. Merges no metadata: the run may still
   * be refused after it reads (a run with metadata reads, checks, then `claimThread`s).
   * Without it, a run makes the two calls, `getLatest` then `claimThread`.
   *
   * @example
   * const latest = await store.claimLatest("t1", { runId, ttlMs: 4_000 }); // held at latest?.checkpoint.id
   * await store.releaseThread("t1", runId); // a refused run lets go, and the thread is as it was
   */
  claimLatest?(threadId: string, claim: LatestClaim): Promise<CheckpointTuple | undefined>;
  /**
   * Extend a claim this run holds by `ttlMs` from now (the run's own writes have moved the
   * latest checkpoint, so it is not checked). Throws `ThreadBusyError` if another run holds
   * the thread now; a claim that expired with nobody else taking it is taken again.
   */
  renewThreadClaim(threadId: string, runId: string, ttlMs: number): Promise<void>;
  /**
   * End a run's claim (no-op if another run holds the thread now). With `error`, in the
   * same statement, the thread's record (if it has one) gets status `"error"` and the
   * error, until its next checkpoint.
   */
  releaseThread(threadId: string, runId: string, release?: ThreadRelease): Promise<void>;
  /**
   * Optional: `put`, then `releaseThread(checkpoint.threadId, runId)`, as one step, for a
   * run's last checkpoint. The claim goes only if the checkpoint is stored; a `put` that
   * throws leaves it held. The SQL stores do it in one statement; without it, a run makes
   * the two calls.
   *
   * @example
   * await store.putAndRelease(pause, { expectedLatestId: barrier.id }, runId);
   */
  putAndRelease?(checkpoint: Checkpoint, options: PutOptions, runId: string): Promise<void>;
  /**
   * The thread's record, or `undefined` while it has no top-level checkpoint (and was not
   * made with `createThread`; such a record has `latestCheckpointId: ""`).
   */
  getThread(threadId: string): Promise<ThreadRecord | undefined>;
  /**
   * Optional: the `latestCheckpointId` of the thread's record (`""` for one made with
   * `createThread` and not yet run), or `undefined` without a record, read alone: what a
   * run's admission compares, for less than the whole record costs. Without it, `getThread`.
   *
   * @example
   * const moved = (await store.latestCheckpointId?.("t1")) !== checkedAgainst;
   */
  latestCheckpointId?(threadId: string): Promise<string | undefined>;
  /**
   * Record a thread before anything runs on it (status `idle`, no checkpoint), so a search
   * or another process finds it; its first checkpoint then takes the record over, keeping
   * this metadata. Returns false, writing nothing, if the thread has a record already.
   * Stores shared by processes implement it; without it a server keeps new threads in memory.
   */
  createThread?(threadId: string, metadata: Record<string, unknown>): Promise<boolean>;
  /**
   * Merge `metadata` into the thread record's metadata, key by key (a key given replaces
   * its value; `null` is kept as a value), and set its `updatedAt` to now; nothing else
   * changes. Returns the record as it is now, or `undefined` (writing nothing) for a thread
   * with no record. Throws `InvalidConfigError` for metadata that is not a plain JSON object
   * (as `put` does for `thread.metadata`), writing nothing.
   *
   * @example
   * await store.updateThreadMetadata("t1", { priority: "high" }); // { threadId: "t1", metadata: { user: "u1", priority: "high" }, … }
   */
  updateThreadMetadata(
    threadId: string,
    metadata: Record<string, unknown>,
  ): Promise<ThreadRecord | undefined>;
  /**
   * Optional: merge `metadata` into the stored metadata of one checkpoint, key by key (a
   * key given replaces its value), as LangGraph's `PATCH /threads/:id/state` does; its
   * values, snapshot and place in the history stay as they were. Returns the checkpoint's
   * metadata as it is now, or `undefined` (writing nothing) when there is no such
   * checkpoint. Throws `InvalidConfigError`, writing nothing, for metadata that is not a
   * plain JSON object or that names a key the runtime keeps (`RUNTIME_METADATA_KEYS`).
   *
   * @example
   * await store.patchCheckpointMetadata("t1", "", latestId, { reviewed: true }); // { step: 2, source: "loop", …, reviewed: true }
   */
  patchCheckpointMetadata?(
    threadId: string,
    ns: string,
    checkpointId: string,
    metadata: Record<string, unknown>,
  ): Promise<CheckpointMetadata | undefined>;
  /**
   * Thread records matching every filter given, ordered by `updatedAt` then thread id, a
   * page at a time: pass each page's `nextCursor` to get the next. Each thread appears
   * once across the pages unless it is written to while paging (then it moves).
   * Throws `InvalidSearchError` for options out of range, before reading.
   */
  searchThreads(options?: SearchThreadsOptions): Promise<ThreadPage>;
  /**
   * Remove every checkpoint and write of the thread, in every namespace, its record and
   * its claim.
   */
  deleteThread(threadId: string): Promise<void>;
  /**
   * Delete the thread's older checkpoints and their pending writes, keeping the latest
   * `keep` top-level checkpoints and what a run or `getState` still reads through them:
   * the barrier each kept checkpoint's step started from (`metadata.stepOrigin`: a paused
   * step's finished tasks store their writes there), and every subgraph namespace whose
   * latest checkpoint belongs to a kept step (`metadata.parentStep`), with its latest
   * checkpoint and that one's step origin. Other subgraph namespaces go entirely.
   *
   * The thread then resumes and reads (`getState`, with `subgraphs` too) exactly as
   * before; its history ends where it was cut: a kept checkpoint keeps its `parentId` even
   * when that parent is gone. The thread record is unchanged. Refuses with
   * `ThreadBusyError`, deleting nothing, while a run holds the thread, and holds the
   * thread itself while it deletes, so no run starts meanwhile. Returns how many
   * checkpoints it deleted (0 for an unknown thread). Throws `InvalidRetentionError` for
   * a `keep` out of range.
   */
  prune(threadId: string, options: PruneOptions): Promise<number>;
  /**
   * Rewind the thread to `toCheckpointId`, one of its top-level checkpoints: every
   * checkpoint stored after it goes, in every namespace (subgraph checkpoints written after
   * it too), with their pending writes; `null` removes all of the thread's checkpoints.
   * With `options.runId`, that run's pending writes on the checkpoints kept go as well, so
   * a later run does not take the tasks it finished for done. The kept checkpoints read
   * exactly as before, and the thread goes on from `toCheckpointId` as from any latest.
   *
   * In the same transaction the thread's record is made that of its new latest: status
   * `"idle"` or `"interrupted"` and the interrupts from it, no error, `updatedAt` the time
   * of the rewind; `graph`, `metadata` and `createdAt` are kept (metadata is merged from
   * runs, not from checkpoints). After a rewind to `null` the thread has no checkpoint and
   * no record, as before its first run; its next run starts it afresh.
   *
   * Throws `RewindTargetNotFoundError` if `toCheckpointId` is not a top-level checkpoint
   * of the thread, and `ThreadBusyError` while a run holds the thread; then nothing changes.
   * Holds the thread while it deletes, so no run starts meanwhile. Returns how many
   * checkpoints it deleted.
   *
   * @example
   * const [, before] = await store.list("t1", { limit: 2 });
   * await store.rewindThread("t1", before.id); // 1: the latest is gone, `before` is latest
   * await store.rewindThread("t1", null); // every checkpoint: the thread starts afresh
   */
  rewindThread(
    threadId: string,
    toCheckpointId: string | null,
    options?: RewindOptions,
  ): Promise<number>;
  /**
   * Delete whole threads (as `deleteThread` does) whose record was last written before
   * `idleBefore` and whose stored status is one of `status` (`"idle"` by default), skipping
   * threads a run holds. Works through the records by `updatedAt`, from an index, a batch
   * of threads per transaction. Returns how many threads it deleted.
   */
  pruneThreads(options: PruneThreadsOptions): Promise<number>;
  /**
   * Copy every checkpoint (all namespaces), pending write and the record of thread `from`
   * to a new thread `to`, which then resumes and reads as `from` does. The copy is
   * independent: writing to either never changes the other. Checkpoint ids and interrupt
   * ids are kept (so a resume keyed by interrupt id works on both); the record's
   * `createdAt` and `updatedAt` are the time of the copy. Throws `ThreadNotFoundError` if
   * `from` has no checkpoint, `ThreadExistsError` if `to` has one, `ThreadBusyError` while
   * a run holds `from`; then nothing is copied.
   */
  copyThread(from: string, to: string): Promise<void>;
  /** Release connections (no-op for stores that hold none). */
  close?(): Promise<void>;
}
