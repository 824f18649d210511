import { randomUUID } from "node:crypto";
import type { Store } from "../store/index.js";
import type {
  Assistant,
  AssistantCreate,
  AssistantFilter,
  AssistantSortKey,
  AssistantUpdate,
  AssistantVersion,
  GraphDefaults,
} from "./assistant-types.js";
import { RequestError } from "./errors.js";
import type { HostedGraphs } from "./hosted-graphs.js";

export type * from "./assistant-types.js";
export { ASSISTANT_SORT_KEYS } from "./assistant-types.js";

/** An assistant as stored: every version (oldest first), which one is the latest, and when. */
interface AssistantRecord {
  versions: AssistantVersion[];
  latest: number;
  updated_at: string;
  /** Creation order, for assistants made in the same millisecond. */
  made: number;
}

const NAMESPACE = ["assistants"];
// The store pages searches; this many per page while listing every assistant.
const PAGE = 1000;

/** True when `value` holds every key of `wanted` with an equal (JSON) value. */
function contains(value: Record<string, unknown>, wanted: Record<string, unknown>): boolean {
  return Object.entries(wanted).every(([k, v]) => JSON.stringify(value[k]) === JSON.stringify(v));
}

/** The assistant a record shows: its latest version, created when the first was. */
function viewOf(record: AssistantRecord): Assistant | undefined {
  const latest = record.versions.find((v) => v.version === record.latest);
  if (!latest) return undefined;
  return { ...latest, created_at: record.versions[0]!.created_at, updated_at: record.updated_at };
}

const notFound = (assistantId: string) =>
  new RequestError(
    404,
    "ASSISTANT_NOT_FOUND",
    `Assistant not found: "${assistantId}". assistants.search() lists them; a hosted graph's id is its assistant id too.`,
  );

/**
 * The server's assistants: one made by the system for every hosted graph (its id is the
 * graph id, `metadata.created_by` is `"system"`), and those clients create, each with its
 * versions. Kept in `store` (the server gives it a table of its own beside the threads), so
 * on PGlite and PostgreSQL they outlive the process, and every server on one database sees
 * the same ones. A system assistant's first version follows the graph's current defaults.
 *
 * @example
 * const assistants = new Assistants(hosted, new MemoryStore());
 * const a = await assistants.create({ graph_id: "ops", context: { team: "infra" } });
 * (await assistants.resolve(a.assistant_id)).graphId; // "ops"
 */
export class Assistants {
  readonly #hosted: HostedGraphs;
  readonly #store: Store;
  readonly #defaults: Record<string, GraphDefaults>;
  #ready: Promise<void> | undefined;
  #made = 0;
  // One change at a time per assistant in this process: a change reads, then writes.
  readonly #changing = new Map<string, Promise<unknown>>();

  /** `defaults` gives a hosted graph's system assistant its `config` and `context`. */
  constructor(hosted: HostedGraphs, store: Store, defaults: Record<string, GraphDefaults> = {}) {
    this.#hosted = hosted;
    this.#store = store;
    this.#defaults = defaults;
  }

  /** A new assistant (version 1); with `if_exists: "do_nothing"` an existing id is returned as it is. */
  async create(body: AssistantCreate): Promise<Assistant> {
    await this.#systemReady();
    this.#hosted.get(body.graph_id);
    const id = body.assistant_id ?? randomUUID();
    return this.#change(id, async () => {
      const existing = await this.#read(id);
      if (existing) {
        if (body.if_exists === "do_nothing") return viewOf(existing)!;
        throw new RequestError(
          409,
          "ASSISTANT_EXISTS",
          `Assistant "${id}" already exists; update it, or create with if_exists: "do_nothing".`,
        );
      }
      const record = this.#newRecord(id, body);
      await this.#write(id, record);
      return viewOf(record)!;
    });
  }

  /** The assistant (its latest version), or a 404. */
  async get(assistantId: string): Promise<Assistant> {
    const record = await this.#known(assistantId);
    return viewOf(record)!;
  }

  /** A new version from the latest one and `changes`; it becomes the latest. */
  async update(assistantId: string, changes: AssistantUpdate): Promise<Assistant> {
    if (changes.graph_id !== undefined) this.#hosted.get(changes.graph_id);
    return this.#change(assistantId, async () => {
      const record = await this.#known(assistantId);
      const current = viewOf(record)!;
      const version = Math.max(...record.versions.map((v) => v.version)) + 1;
      const now = new Date().toISOString();
      record.versions.push({
        assistant_id: assistantId,
        graph_id: changes.graph_id ?? current.graph_id,
        version,
        name: changes.name ?? current.name,
        description: changes.description !== undefined ? changes.description : current.description,
        config: changes.config ?? current.config,
        context: changes.context ?? current.context,
        metadata: { ...current.metadata, ...(changes.metadata ?? {}) },
        created_at: now,
      });
      record.latest = version;
      record.updated_at = now;
      await this.#write(assistantId, record);
      return viewOf(record)!;
    });
  }

  /** Make an earlier (or later) version the one runs use. */
  async setLatest(assistantId: string, version: number): Promise<Assistant> {
    return this.#change(assistantId, async () => {
      const record = await this.#known(assistantId);
      if (!record.versions.some((v) => v.version === version)) {
        throw new RequestError(
          404,
          "ASSISTANT_VERSION_NOT_FOUND",
          `Assistant "${assistantId}" has no version ${version}; assistants.getVersions() lists them.`,
        );
      }
      record.latest = version;
      record.updated_at = new Date().toISOString();
      await this.#write(assistantId, record);
      return viewOf(record)!;
    });
  }

  /** Remove the assistant and its versions (threads and runs that used it stay). */
  async delete(assistantId: string): Promise<void> {
    await this.#change(assistantId, async () => {
      await this.#known(assistantId);
      await this.#store.delete(NAMESPACE, assistantId);
    });
  }

  /** The assistant's versions, newest first, those whose metadata contains `metadata`. */
  async versions(
    assistantId: string,
    options: { metadata?: Record<string, unknown>; limit: number; offset: number },
  ): Promise<AssistantVersion[]> {
    const record = await this.#known(assistantId);
    return [...record.versions]
      .reverse()
      .filter((v) => !options.metadata || contains(v.metadata, options.metadata))
      .slice(options.offset, options.offset + options.limit);
  }

  /** Assistants matching every filter, sorted (by `created_at`, newest first, by default). */
  async search(
    filter: AssistantFilter,
    page: {
      limit: number;
      offset: number;
      sortBy?: AssistantSortKey | undefined;
      sortOrder?: "asc" | "desc" | undefined;
    },
  ): Promise<Assistant[]> {
    const key = page.sortBy ?? "created_at";
    const sign = (page.sortOrder ?? "desc") === "asc" ? 1 : -1;
    return (await this.#matching(filter))
      .sort((a, b) => {
        const byKey = String(a.assistant[key]).localeCompare(String(b.assistant[key]));
        // Created in the same millisecond: the later made comes first when newest first.
        return sign * (byKey !== 0 ? byKey : a.made - b.made);
      })
      .slice(page.offset, page.offset + page.limit)
      .map((found) => found.assistant);
  }

  /** How many assistants match every filter. */
  async count(filter: AssistantFilter): Promise<number> {
    return (await this.#matching(filter)).length;
  }

  /**
   * The graph a run of `assistantId` runs and the assistant's config and context; a 404
   * that says what exists when there is no such assistant.
   */
  async resolve(assistantId: string): Promise<{
    graphId: string;
    config: Record<string, unknown>;
    context: Record<string, unknown>;
  }> {
    await this.#systemReady();
    const record = await this.#read(assistantId);
    const a = record && viewOf(record);
    if (!a) {
      throw new RequestError(
        404,
        "ASSISTANT_NOT_FOUND",
        `No assistant found for "${assistantId}": use a hosted graph's id (${this.#hosted.ids.join(", ")}) or an assistant_id from assistants.create().`,
      );
    }
    return { graphId: a.graph_id, config: a.config, context: a.context };
  }

  /**
   * Each hosted graph's system assistant, written once per process before anything else
   * is read: made if missing, its first version set to the graph's defaults as configured
   * now (versions a client added stay). A failure (the database away) is tried again on
   * the next call.
   */
  #systemReady(): Promise<void> {
    this.#ready ??= (async () => {
      for (const graphId of this.#hosted.ids) {
        const body = {
          graph_id: graphId,
          assistant_id: graphId,
          metadata: { created_by: "system" },
          ...this.#defaults[graphId],
        };
        await this.#change(graphId, async () => {
          const existing = await this.#read(graphId);
          const first = existing?.versions[0];
          if (!existing || !first) return this.#write(graphId, this.#newRecord(graphId, body));
          const config = body.config ?? {};
          const context = body.context ?? {};
          if (contains({ ...first }, { config, context })) return;
          existing.versions[0] = { ...first, config, context };
          await this.#write(graphId, existing);
        });
      }
    })().catch((error: unknown) => {
      this.#ready = undefined;
      throw error;
    });
    return this.#ready;
  }

  #newRecord(id: string, body: AssistantCreate): AssistantRecord {
    const now = new Date().toISOString();
    return {
      versions: [
        {
          assistant_id: id,
          graph_id: body.graph_id,
          version: 1,
          name: body.name ?? body.graph_id,
          description: body.description ?? null,
          config: body.config ?? {},
          context: body.context ?? {},
          metadata: body.metadata ?? {},
          created_at: now,
        },
      ],
      latest: 1,
      updated_at: now,
      made: Date.now() * 1000 + (this.#made++ % 1000),
    };
  }

  async #known(assistantId: string): Promise<AssistantRecord> {
    await this.#systemReady();
    const record = await this.#read(assistantId);
    if (!record || !viewOf(record)) throw notFound(assistantId);
    return record;
  }

  async #read(assistantId: string): Promise<AssistantRecord | undefined> {
    const item = await this.#store.get(NAMESPACE, assistantId, { refreshTtl: false });
    return item ? (item.value as unknown as AssistantRecord) : undefined;
  }

  async #write(assistantId: string, record: AssistantRecord): Promise<void> {
    await this.#store.put(NAMESPACE, assistantId, record as unknown as Record<string, unknown>);
  }

  /** Run `change` after the changes to `assistantId` already under way in this process. */
  async #change<T>(assistantId: string, change: () => Promise<T>): Promise<T> {
    const before = this.#changing.get(assistantId) ?? Promise.resolve();
    const run = before.catch(() => undefined).then(change);
    this.#changing.set(assistantId, run);
    try {
      return await run;
    } finally {
      if (this.#changing.get(assistantId) === run) this.#changing.delete(assistantId);
    }
  }

  async #matching(filter: AssistantFilter): Promise<Array<{ assistant: Assistant; made: number }>> {
    await this.#systemReady();
    const found: Array<{ assistant: Assistant; made: number }> = [];
    for (let offset = 0; ; offset += PAGE) {
      const items = await this.#store.search(NAMESPACE, { limit: PAGE, offset, refreshTtl: false });
      for (const item of items) {
        const record = item.value as unknown as AssistantRecord;
        const a = viewOf(record);
        if (
          a &&
          (filter.graph_id === undefined || a.graph_id === filter.graph_id) &&
          (filter.name === undefined || a.name.includes(filter.name)) &&
          (!filter.metadata || contains(a.metadata, filter.metadata))
        )
          found.push({ assistant: a, made: record.made });
      }
      if (items.length < PAGE) return found;
    }
  }
}
