import {
  CheckpointNotFoundError,
  ConcurrentUpdateError,
  DuplicateCheckpointError,
  RewindTargetNotFoundError,
  ThreadBusyError,
  ThreadExistsError,
  ThreadNotFoundError,
} from "../errors/index.js";
import { assertMetadataPatch } from "./checkpoint-metadata.js";
import type {
  Checkpoint,
  Checkpointer,
  CheckpointMetadata,
  CheckpointTuple,
  InterruptRecord,
  LatestClaim,
  ListOptions,
  PendingWrite,
  PruneOptions,
  PruneThreadsOptions,
  PutOptions,
  RewindOptions,
  SearchThreadsOptions,
  ThreadClaim,
  ThreadError,
  ThreadPage,
  ThreadRecord,
  ThreadRelease,
} from "./checkpointer.js";
import { createdAtOf, isoTime } from "./id.js";
import {
  assertCopyArguments,
  assertListArguments,
  assertNamespace,
  assertPutIds,
  assertRewindArguments,
  assertStoreId,
  assertWriteIds,
  readPruneArguments,
  readPruneThreadsOptions,
} from "./limits.js";
import { waitingInterrupts } from "./paused-tasks.js";
import { type PruneCandidate, planPrune } from "./retention.js";
import { jsonClone, stringifyStored } from "./serde.js";
import {
  assertThreadMetadata,
  cursorAfter,
  jsonContains,
  readSearchOptions,
  storedStatusOf,
} from "./thread-records.js";

/**
 * One (thread, ns) history. Bodies are JSON strings: compact, and never aliased with
 * callers. What the history already knows is left out of them: the id, thread and
 * namespace, the parent id when it is the previous entry (as it nearly always is), the
 * creation time when the id holds it (`createdAtOf`), and empty `next` and `interrupts`.
 */
interface History {
  /** Checkpoint ids in insertion order; the last one is the latest. */
  ids: string[];
  /** The rest of each checkpoint as JSON, parallel to `ids`. */
  bodies: string[];
  /**
   * When each was stored, parallel to `ids`: a number from one counter for every namespace,
   * so a rewind finds the subgraph checkpoints written after a top-level one.
   */
  seqs: number[];
  /** checkpoint id -> task id -> `JSON.stringify(write)`; created on the first write. */
  writes: Map<string, Map<string, string>> | undefined;
}

/** A thread's record as kept here; `busy` is read from the claims, the latest id from the history. */
interface StoredRecord {
  graph: string | null;
  status: "idle" | "interrupted" | "error";
  /** JSON of the latest top-level checkpoint's interrupts. */
  interrupts: string;
  error: ThreadError | null;
  /** JSON of the metadata. */
  metadata: string;
  createdAt: string;
  updatedAt: string;
}

/** Fields a stored body leaves out or keeps only when they say something. */
const known = { id: 1, threadId: 1, ns: 1, parentId: 1, next: 1, interrupts: 1, createdAt: 1 };

/**
 * Checkpoints in this process's memory: fast, gone when the process exits. For tests,
 * scripts and single-process apps that do not need to survive a restart.
 *
 * @example
 * const graph = builder.compile({ checkpointer: new MemoryCheckpointer() });
 * await graph.invoke(input, { configurable: { thread_id: "t1" } });
 */
export class MemoryCheckpointer implements Checkpointer {
  /** thread id -> ns -> history */
  readonly #threads = new Map<string, Map<string, History>>();
  /** thread id -> the run holding it, until when (ms since the epoch) */
  readonly #claims = new Map<string, { runId: string; until: number }>();
  /** thread id -> its record (see `ThreadRecord`) */
  readonly #records = new Map<string, StoredRecord>();
  /** The last `History.seqs` entry given out. */
  #seq = 0;

  // Every method does its checks and writes synchronously before returning its promise,
  // so concurrent calls cannot interleave between the expectedLatestId check and the write.

  async put(checkpoint: Checkpoint, options: PutOptions): Promise<void> {
    this.#put(checkpoint, options);
  }

  /** See `Checkpointer.putAndRelease`: a refused put throws first and keeps the claim. */
  async putAndRelease(checkpoint: Checkpoint, options: PutOptions, runId: string): Promise<void> {
    this.#put(checkpoint, options);
    this.#releaseHeld(checkpoint.threadId, runId);
  }

  /** Ends `runId`'s claim on the thread, if it still holds it (another's is left alone). */
  #releaseHeld(threadId: string, runId: string | undefined): void {
    if (runId !== undefined && this.#claims.get(threadId)?.runId === runId) {
      this.#claims.delete(threadId);
    }
  }

  #put(checkpoint: Checkpoint, options: PutOptions): void {
    assertPutIds(checkpoint, options);
    const thread = options.thread;
    if (thread?.graph !== undefined) assertStoreId("thread.graph", thread.graph);
    if (thread?.metadata !== undefined) assertThreadMetadata("thread.metadata", thread.metadata);
    const { id, threadId, ns, parentId, next, interrupts } = checkpoint;
    const history = this.#history(threadId, ns);
    const stored: Record<string, unknown> = {};
    for (const key in checkpoint) {
      if (!(key in known)) stored[key] = checkpoint[key as keyof Checkpoint];
    }
    if (parentId !== (history?.ids.at(-1) ?? null)) stored.parentId = parentId;
    if (next.length > 0) stored.next = next;
    if (interrupts.length > 0) stored.interrupts = interrupts;
    if (checkpoint.createdAt !== createdAtOf(id)) stored.createdAt = checkpoint.createdAt;
    const body = stringifyStored(stored, "checkpoint");
    const latest = history?.ids.at(-1) ?? null;
    if (latest !== options.expectedLatestId) {
      throw new ConcurrentUpdateError(threadId, ns, options.expectedLatestId, latest);
    }
    if (history && history.ids.lastIndexOf(id) !== -1) {
      throw new DuplicateCheckpointError(threadId, ns, id);
    }
    if (history) {
      history.ids.push(id);
      history.bodies.push(body);
      history.seqs.push(++this.#seq);
    } else {
      const fresh: History = { ids: [id], bodies: [body], seqs: [++this.#seq], writes: undefined };
      const namespaces = this.#threads.get(threadId);
      if (namespaces) namespaces.set(ns, fresh);
      else this.#threads.set(threadId, new Map([[ns, fresh]]));
    }
    if (ns === "") this.#record(checkpoint, options);
  }

  /** Write the thread's record for its new latest top-level checkpoint. */
  #record(checkpoint: Checkpoint, options: PutOptions): void {
    // The checkpoint's own time (its id's millisecond): no clock read per put.
    const now = checkpoint.createdAt;
    const old = this.#records.get(checkpoint.threadId);
    const metadata = options.thread?.metadata;
    const { interrupts } = checkpoint;
    this.#records.set(checkpoint.threadId, {
      graph: options.thread?.graph ?? old?.graph ?? null,
      status: storedStatusOf(checkpoint),
      interrupts: interrupts.length > 0 ? JSON.stringify(interrupts) : "[]",
      error: null,
      metadata: metadata ? mergeMetadata(old?.metadata, metadata) : (old?.metadata ?? "{}"),
      createdAt: old?.createdAt ?? now,
      updatedAt: now,
    });
  }

  async putWrites(
    threadId: string,
    ns: string,
    checkpointId: string,
    write: PendingWrite,
  ): Promise<void> {
    assertWriteIds(threadId, ns, checkpointId, write);
    const body = stringifyStored(write, "pending write");
    const history = this.#history(threadId, ns);
    if (!history || history.ids.lastIndexOf(checkpointId) === -1) {
      throw new CheckpointNotFoundError(threadId, ns, checkpointId, write.taskId);
    }
    history.writes ??= new Map();
    const tasks = history.writes.get(checkpointId);
    // Map.set on an existing task keeps its position: replacing does not reorder.
    if (tasks) tasks.set(write.taskId, body);
    else history.writes.set(checkpointId, new Map([[write.taskId, body]]));
  }

  async putPause(
    threadId: string,
    ns: string,
    checkpointId: string,
    pause: { writes: PendingWrite[]; interrupts: InterruptRecord[] },
    releasing?: string,
  ): Promise<void> {
    for (const write of pause.writes) assertWriteIds(threadId, ns, checkpointId, write);
    const bodies = pause.writes.map((w) => [w.taskId, stringifyStored(w, "pending write")]);
    const interrupts = stringifyStored(pause.interrupts, "interrupts");
    const history = this.#history(threadId, ns);
    if (!history || history.ids.lastIndexOf(checkpointId) === -1) {
      throw new CheckpointNotFoundError(threadId, ns, checkpointId, pause.writes[0]?.taskId ?? "");
    }
    history.writes ??= new Map();
    const tasks = history.writes.get(checkpointId) ?? new Map<string, string>();
    history.writes.set(checkpointId, tasks);
    for (const [taskId, body] of bodies) tasks.set(taskId!, body!);
    const record = ns === "" ? this.#records.get(threadId) : undefined;
    if (record && history.ids.at(-1) === checkpointId) {
      record.status = "interrupted";
      record.interrupts = interrupts;
      record.error = null;
      record.updatedAt = isoTime(Date.now());
    }
    this.#releaseHeld(threadId, releasing);
  }

  async listWrites(
    threadId: string,
    ns: string,
    checkpointIds: readonly string[],
  ): Promise<Map<string, PendingWrite[]>> {
    assertStoreId("threadId", threadId);
    assertNamespace("ns", ns);
    const out = new Map<string, PendingWrite[]>();
    const writes = this.#history(threadId, ns)?.writes;
    if (!writes) return out;
    for (const id of checkpointIds) {
      const tasks = writes.get(id);
      if (!tasks || tasks.size === 0) continue;
      out.set(
        id,
        Array.from(tasks.values(), (body) => JSON.parse(body) as PendingWrite),
      );
    }
    return out;
  }

  async getLatest(threadId: string, ns = ""): Promise<CheckpointTuple | undefined> {
    assertStoreId("threadId", threadId);
    assertNamespace("ns", ns);
    const history = this.#history(threadId, ns);
    return history && tuple(history, threadId, ns, history.ids.length - 1);
  }

  async get(threadId: string, ns: string, id: string): Promise<CheckpointTuple | undefined> {
    assertStoreId("threadId", threadId);
    assertNamespace("ns", ns);
    assertStoreId("id", id);
    const history = this.#history(threadId, ns);
    return history && tuple(history, threadId, ns, history.ids.lastIndexOf(id));
  }

  async list(threadId: string, options: ListOptions = {}): Promise<Checkpoint[]> {
    assertListArguments(threadId, options);
    const history = this.#history(threadId, options.ns ?? "");
    if (!history) return [];
    const { ids } = history;
    // An unknown `before` id gives -1 - 1: nothing, as in the SQL stores.
    const from =
      options.before === undefined ? ids.length - 1 : ids.lastIndexOf(options.before) - 1;
    const to = options.limit === undefined ? -1 : Math.max(from - options.limit, -1);
    const result: Checkpoint[] = [];
    for (let i = from; i > to; i--)
      result.push(checkpointAt(history, threadId, options.ns ?? "", i));
    return result;
  }

  async claimThread(threadId: string, claim: ThreadClaim): Promise<void> {
    assertStoreId("threadId", threadId);
    if (claim.metadata !== undefined) assertThreadMetadata("claim.metadata", claim.metadata);
    const latest = this.#history(threadId, "")?.ids.at(-1) ?? null;
    const now = Date.now();
    const held = this.#claims.get(threadId);
    if (held && held.runId !== claim.runId && held.until > now) {
      throw new ThreadBusyError(threadId, latest);
    }
    if (latest !== claim.expectedLatestId) {
      throw new ConcurrentUpdateError(threadId, "", claim.expectedLatestId, latest);
    }
    this.#claims.set(threadId, { runId: claim.runId, until: now + claim.ttlMs });
    const record = this.#records.get(threadId);
    if (record && claim.metadata) record.metadata = mergeMetadata(record.metadata, claim.metadata);
  }

  async claimLatest(threadId: string, claim: LatestClaim): Promise<CheckpointTuple | undefined> {
    assertStoreId("threadId", threadId);
    const now = Date.now();
    const held = this.#claims.get(threadId);
    const history = this.#history(threadId, "");
    if (held && held.runId !== claim.runId && held.until > now) {
      throw new ThreadBusyError(threadId, history?.ids.at(-1) ?? null);
    }
    this.#claims.set(threadId, { runId: claim.runId, until: now + claim.ttlMs });
    return history && tuple(history, threadId, "", history.ids.length - 1);
  }

  async renewThreadClaim(threadId: string, runId: string, ttlMs: number): Promise<void> {
    assertStoreId("threadId", threadId);
    const now = Date.now();
    const held = this.#claims.get(threadId);
    if (held && held.runId !== runId && held.until > now) {
      throw new ThreadBusyError(threadId, this.#history(threadId, "")?.ids.at(-1) ?? null);
    }
    this.#claims.set(threadId, { runId, until: now + ttlMs });
  }

  async releaseThread(threadId: string, runId: string, release?: ThreadRelease): Promise<void> {
    assertStoreId("threadId", threadId);
    if (this.#claims.get(threadId)?.runId !== runId) return;
    this.#claims.delete(threadId);
    const record = this.#records.get(threadId);
    if (record && release?.error) {
      record.status = "error";
      record.error = { name: release.error.name, message: release.error.message };
      record.updatedAt = new Date().toISOString();
    }
  }

  async getThread(threadId: string): Promise<ThreadRecord | undefined> {
    assertStoreId("threadId", threadId);
    return this.#view(threadId, Date.now());
  }

  async latestCheckpointId(threadId: string): Promise<string | undefined> {
    return (await this.getThread(threadId))?.latestCheckpointId;
  }

  async createThread(threadId: string, metadata: Record<string, unknown>): Promise<boolean> {
    assertStoreId("threadId", threadId);
    assertThreadMetadata("metadata", metadata);
    if (this.#records.has(threadId)) return false;
    const now = new Date().toISOString();
    this.#records.set(threadId, {
      graph: null,
      status: "idle",
      interrupts: "[]",
      error: null,
      metadata: JSON.stringify(metadata),
      createdAt: now,
      updatedAt: now,
    });
    return true;
  }

  async updateThreadMetadata(
    threadId: string,
    metadata: Record<string, unknown>,
  ): Promise<ThreadRecord | undefined> {
    assertStoreId("threadId", threadId);
    assertThreadMetadata("metadata", metadata);
    const record = this.#records.get(threadId);
    if (!record) return undefined;
    record.metadata = mergeMetadata(record.metadata, metadata);
    record.updatedAt = new Date().toISOString();
    return this.#view(threadId, Date.now());
  }

  async patchCheckpointMetadata(
    threadId: string,
    ns: string,
    checkpointId: string,
    metadata: Record<string, unknown>,
  ): Promise<CheckpointMetadata | undefined> {
    assertStoreId("threadId", threadId);
    assertNamespace("ns", ns);
    assertStoreId("checkpointId", checkpointId);
    assertMetadataPatch(metadata);
    const history = this.#history(threadId, ns);
    const at = history?.ids.lastIndexOf(checkpointId) ?? -1;
    if (!history || at === -1) return undefined;
    const body = JSON.parse(history.bodies[at]!) as { metadata: CheckpointMetadata };
    body.metadata = { ...body.metadata, ...jsonClone(metadata) };
    history.bodies[at] = stringifyStored(body, "checkpoint");
    return jsonClone(body.metadata);
  }

  async searchThreads(options?: SearchThreadsOptions): Promise<ThreadPage> {
    const search = readSearchOptions(options);
    const now = Date.now();
    const sign = search.order === "desc" ? -1 : 1;
    const compare = (a: { updatedAt: string; threadId: string }, b: typeof a) =>
      sign *
      (a.updatedAt < b.updatedAt
        ? -1
        : a.updatedAt > b.updatedAt
          ? 1
          : a.threadId < b.threadId
            ? -1
            : a.threadId > b.threadId
              ? 1
              : 0);
    const found: ThreadRecord[] = [];
    for (const threadId of this.#records.keys()) {
      const record = this.#view(threadId, now)!;
      if (search.status !== undefined && record.status !== search.status) continue;
      if (search.graph !== undefined && record.graph !== search.graph) continue;
      if (search.metadata && !jsonContains(record.metadata, search.metadata)) continue;
      if (search.after && compare(record, search.after) <= 0) continue;
      found.push(record);
    }
    found.sort(compare);
    const threads = found.slice(0, search.limit);
    const more = found.length > search.limit;
    return { threads, nextCursor: more ? cursorAfter(threads.at(-1)!) : null };
  }

  async deleteThread(threadId: string): Promise<void> {
    assertStoreId("threadId", threadId);
    this.#threads.delete(threadId);
    this.#claims.delete(threadId);
    this.#records.delete(threadId);
  }

  async prune(threadId: string, options: PruneOptions): Promise<number> {
    const keep = readPruneArguments(threadId, options);
    // Busy first, as the SQL stores check: a run may hold a thread that has no checkpoint yet.
    this.#refuseIfHeld(threadId);
    const namespaces = this.#threads.get(threadId);
    const top = namespaces?.get("");
    if (!namespaces || !top) return 0;
    const candidate = (history: History, index: number): PruneCandidate => ({
      id: history.ids[index]!,
      metadata: (JSON.parse(history.bodies[index]!) as Partial<Checkpoint>).metadata ?? {},
    });
    const newest: PruneCandidate[] = [];
    for (let i = top.ids.length - 1; i >= Math.max(0, top.ids.length - keep); i--) {
      newest.push(candidate(top, i));
    }
    const latest = [...namespaces].map(([ns, h]) => ({
      ns,
      latest: candidate(h, h.ids.length - 1),
    }));
    const plan = planPrune(newest, latest);
    let deleted = 0;
    for (const [ns, history] of namespaces) {
      const kept = plan.get(ns);
      if (!kept) {
        deleted += history.ids.length;
        namespaces.delete(ns);
        continue;
      }
      deleted += keepOnly(history, kept);
    }
    return deleted;
  }

  async rewindThread(
    threadId: string,
    toCheckpointId: string | null,
    options?: RewindOptions,
  ): Promise<number> {
    assertRewindArguments(threadId, toCheckpointId, options);
    this.#refuseIfHeld(threadId);
    const namespaces = this.#threads.get(threadId);
    const top = namespaces?.get("");
    let cut = Number.NEGATIVE_INFINITY;
    let head: Checkpoint | undefined;
    if (toCheckpointId !== null) {
      const index = top ? top.ids.lastIndexOf(toCheckpointId) : -1;
      if (!top || index === -1) throw new RewindTargetNotFoundError(threadId, toCheckpointId);
      cut = top.seqs[index]!;
      head = checkpointAt(top, threadId, "", index);
    }
    if (!namespaces) return 0;
    let deleted = 0;
    for (const [ns, history] of namespaces) {
      // Seqs grow along a history: what follows the first one past the cut goes.
      let from = history.seqs.findIndex((seq) => seq > cut);
      if (from === -1) from = history.ids.length;
      for (const id of history.ids.slice(from)) history.writes?.delete(id);
      deleted += history.ids.length - from;
      history.ids.length = from;
      history.bodies.length = from;
      history.seqs.length = from;
      if (from === 0) namespaces.delete(ns);
      else if (options?.runId !== undefined) dropRunWrites(history, options.runId);
    }
    if (!head) {
      this.#threads.delete(threadId);
      this.#records.delete(threadId);
      return deleted;
    }
    const record = this.#records.get(threadId);
    if (record) {
      // The writes kept on it may hold its step's pause.
      const index = top!.ids.length - 1;
      const interrupts = waitingInterrupts(head, tuple(top!, threadId, "", index)!.pendingWrites);
      record.status = interrupts.length > 0 ? "interrupted" : "idle";
      record.interrupts = interrupts.length > 0 ? JSON.stringify(interrupts) : "[]";
      record.error = null;
      record.updatedAt = new Date().toISOString();
    }
    return deleted;
  }

  async pruneThreads(options: PruneThreadsOptions): Promise<number> {
    const { idleBefore, statuses, graph } = readPruneThreadsOptions(options);
    const now = Date.now();
    let deleted = 0;
    for (const [threadId, record] of this.#records) {
      if (record.updatedAt >= idleBefore || !statuses.includes(record.status)) continue;
      if (graph !== undefined && record.graph !== graph) continue;
      if ((this.#claims.get(threadId)?.until ?? 0) > now) continue;
      this.#threads.delete(threadId);
      this.#claims.delete(threadId);
      this.#records.delete(threadId);
      deleted++;
    }
    return deleted;
  }

  async copyThread(from: string, to: string): Promise<void> {
    assertCopyArguments(from, to);
    const namespaces = this.#threads.get(from);
    const record = this.#records.get(from);
    if (!namespaces?.has("") || !record) throw new ThreadNotFoundError(from);
    if (this.#threads.has(to) || this.#records.has(to)) throw new ThreadExistsError(to);
    this.#refuseIfHeld(from);
    // Bodies leave the thread id out (see `History`), so they serve the copy as they are;
    // strings are immutable, the arrays and maps are the copy's own.
    const copy = new Map<string, History>();
    for (const [ns, h] of namespaces) {
      const writes =
        h.writes && new Map(Array.from(h.writes, ([id, tasks]) => [id, new Map(tasks)]));
      copy.set(ns, { ids: [...h.ids], bodies: [...h.bodies], seqs: [...h.seqs], writes });
    }
    const now = new Date().toISOString();
    this.#threads.set(to, copy);
    this.#records.set(to, {
      ...record,
      error: record.error && { ...record.error },
      createdAt: now,
      updatedAt: now,
    });
  }

  /** Throws `ThreadBusyError` while a run holds the thread (a live claim). */
  #refuseIfHeld(threadId: string): void {
    const held = this.#claims.get(threadId);
    if (held && held.until > Date.now()) {
      throw new ThreadBusyError(threadId, this.#history(threadId, "")?.ids.at(-1) ?? null);
    }
  }

  /** The thread's record as callers see it (a fresh copy), `busy` while a claim is live. */
  #view(threadId: string, now: number): ThreadRecord | undefined {
    const record = this.#records.get(threadId);
    if (!record) return undefined;
    const claim = this.#claims.get(threadId);
    return {
      threadId,
      graph: record.graph,
      status: claim && claim.until > now ? "busy" : record.status,
      interrupts: JSON.parse(record.interrupts),
      error: record.error && { ...record.error },
      metadata: JSON.parse(record.metadata),
      createdAt: record.createdAt,
      updatedAt: record.updatedAt,
      // "" for a thread made with createThread that has no checkpoint yet.
      latestCheckpointId: this.#history(threadId, "")?.ids.at(-1) ?? "",
    };
  }

  async close(): Promise<void> {}

  #history(threadId: string, ns: string): History | undefined {
    return this.#threads.get(threadId)?.get(ns);
  }
}

/** `metadata` merged into the stored JSON, key by key, as PostgreSQL's `jsonb ||` does. */
function mergeMetadata(stored: string | undefined, metadata: Record<string, unknown>): string {
  return JSON.stringify({ ...(stored ? JSON.parse(stored) : {}), ...metadata });
}

/** Remove the pending writes `runId` stored in `history`. */
function dropRunWrites(history: History, runId: string): void {
  if (!history.writes) return;
  for (const [id, tasks] of history.writes) {
    for (const [taskId, body] of tasks) {
      if ((JSON.parse(body) as PendingWrite).runId === runId) tasks.delete(taskId);
    }
    if (tasks.size === 0) history.writes.delete(id);
  }
}

/**
 * Keep only the checkpoints of `history` whose ids are in `kept` (ids it lacks are
 * ignored), with their writes; returns how many went. A kept body that left its parent
 * implicit (the previous entry) gets it written out, since the previous entry may go.
 */
function keepOnly(history: History, kept: Set<string>): number {
  const ids: string[] = [];
  const bodies: string[] = [];
  const seqs: number[] = [];
  for (let i = 0; i < history.ids.length; i++) {
    const id = history.ids[i]!;
    if (!kept.has(id)) {
      history.writes?.delete(id);
      continue;
    }
    let body = history.bodies[i]!;
    const parentId = history.ids[i - 1] ?? null;
    if (parentId !== (ids.at(-1) ?? null)) {
      const parsed = JSON.parse(body) as Record<string, unknown>;
      if (parsed.parentId === undefined) body = JSON.stringify({ ...parsed, parentId });
    }
    ids.push(id);
    bodies.push(body);
    seqs.push(history.seqs[i]!);
  }
  const deleted = history.ids.length - ids.length;
  history.ids = ids;
  history.bodies = bodies;
  history.seqs = seqs;
  return deleted;
}

/** Rebuild the stored checkpoint at `index`, with its fields in their usual order. */
function checkpointAt(history: History, threadId: string, ns: string, index: number): Checkpoint {
  const body = JSON.parse(history.bodies[index]!) as Partial<Checkpoint> & Record<string, unknown>;
  const checkpoint: Checkpoint & Record<string, unknown> = {
    id: history.ids[index]!,
    threadId,
    ns,
    parentId: body.parentId !== undefined ? body.parentId : (history.ids[index - 1] ?? null),
    snapshot: body.snapshot,
    values: body.values!,
    next: body.next ?? [],
    interrupts: body.interrupts ?? [],
    metadata: body.metadata!,
    createdAt: body.createdAt ?? createdAtOf(history.ids[index]!)!,
  };
  for (const key in body) if (!(key in checkpoint)) checkpoint[key] = body[key];
  return checkpoint;
}

function tuple(
  history: History,
  threadId: string,
  ns: string,
  index: number,
): CheckpointTuple | undefined {
  if (index < 0) return undefined;
  const tasks = history.writes?.get(history.ids[index]!);
  return {
    checkpoint: checkpointAt(history, threadId, ns, index),
    pendingWrites: tasks
      ? Array.from(tasks.values(), (body) => JSON.parse(body) as PendingWrite)
      : [],
  };
}
