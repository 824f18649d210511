import type { ThreadRecord } from "../checkpoint/index.js";

/**
 * Threads made with `POST /threads` that no run has written yet, for stores without
 * `createThread` (the memory store): their thread index holds a thread from its first
 * checkpoint on, so until then the server keeps its id and metadata here, in memory. The
 * first run carries the metadata into the index, and the entry is dropped. SQL stores
 * record the thread at once instead.
 *
 * @example
 * newThreads.add("t1", { user: "u1" }); // then a run on "t1" stores { user: "u1" }
 */
export class NewThreads {
  readonly #threads = new Map<string, ThreadRecord>();

  add(threadId: string, metadata: Record<string, unknown>): ThreadRecord {
    const now = new Date().toISOString();
    const record: ThreadRecord = {
      threadId,
      graph: null,
      status: "idle",
      interrupts: [],
      error: null,
      metadata,
      createdAt: now,
      updatedAt: now,
      latestCheckpointId: "",
    };
    this.#threads.set(threadId, record);
    return record;
  }

  get(threadId: string): ThreadRecord | undefined {
    return this.#threads.get(threadId);
  }

  /** Merge metadata into a thread not yet written (`PATCH /threads/:id`); its record, if held. */
  mergeMetadata(threadId: string, metadata: Record<string, unknown>): ThreadRecord | undefined {
    const record = this.#threads.get(threadId);
    if (!record) return undefined;
    record.metadata = { ...record.metadata, ...metadata };
    record.updatedAt = new Date().toISOString();
    return record;
  }

  /** Forget the thread (its first run wrote it, or it was deleted); its metadata. */
  take(threadId: string): Record<string, unknown> | undefined {
    const record = this.#threads.get(threadId);
    this.#threads.delete(threadId);
    return record?.metadata;
  }

  /** Every thread not yet written. */
  list(): ThreadRecord[] {
    return [...this.#threads.values()];
  }
}
