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

/** The record when it shows an assistant, else the 404. */
function known(assistantId: string, record: AssistantRecord | undefined): AssistantRecord {
  if (!record || !viewOf(record)) throw notFound(assistantId);
  return record;
}

// Each failed attempt means another change was saved: this many in a row is a stampede.
const MAX_ATTEMPTS = 50;

const busy = (assistantId: string) =>
  new RequestError(
    409,
    "ASSISTANT_BUSY",
    `Assistant "${assistantId}" was changed ${MAX_ATTEMPTS} times by others while this change was being made; nothing of it was saved. Try again.`,
  );

/**
 * The server's assistants: one made by the system for every hosted graph (its id is the
 * graph id, `metadata.created_by` is `"system"`), and those clients create, each with its
 * versions. Kept in `store` (the server gives it a table of its own beside the threads), so
 * on PGlite and PostgreSQL they outlive the process, and every server on one database sees
 * the same ones. Each change is a compare-and-set (`Store.putIf`), so changes that servers
 * make to one assistant at the same moment all count, as on LangGraph's server: every update
 * is one new version with a number of its own. A store without `putIf` orders only each
 * process's own changes. A system assistant's first version follows the graph's current defaults.
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
  // One change at a time per assistant in this process, so its own changes never race.
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
    return this.#change(id, (existing) => {
      if (existing) {
        if (body.if_exists === "do_nothing") return { answer: viewOf(existing)! };
        throw new RequestError(
          409,
          "ASSISTANT_EXISTS",
          `Assistant "${id}" already exists; update it, or create with if_exists: "do_nothing".`,
        );
      }
      const record = this.#newRecord(id, body);
      return { write: record, answer: viewOf(record)! };
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
    await this.#systemReady();
    return this.#change(assistantId, (stored) => {
      const record = known(assistantId, stored);
      const current = viewOf(record)!;
      const version = Math.max(...record.versions.map((v) => v.version)) + 1;
      const now = new Date().toISOString();
      const next: AssistantRecord = {
        ...record,
        versions: [
          ...record.versions,
          {
            assistant_id: assistantId,
            graph_id: changes.graph_id ?? current.graph_id,
            version,
            name: changes.name ?? current.name,
            description:
              changes.description !== undefined ? changes.description : current.description,
            config: changes.config ?? current.config,
            context: changes.context ?? current.context,
            metadata: { ...current.metadata, ...(changes.metadata ?? {}) },
            created_at: now,
          },
        ],
        latest: version,
        updated_at: now,
      };
      return { write: next, answer: viewOf(next)! };
    });
  }

  /** Make an earlier (or later) version the one runs use. */
  async setLatest(assistantId: string, version: number): Promise<Assistant> {
    await this.#systemReady();
    return this.#change(assistantId, (stored) => {
      const record = known(assistantId, stored);
      if (!record.versions.some((v) => v.version === version)) {
        throw new RequestError(
          404,
          "ASSISTANT_VERSION_NOT_FOUND",
          `Assistant "${assistantId}" has no version ${version}; assistants.getVersions() lists them.`,
        );
      }
      const next = { ...record, latest: version, updated_at: new Date().toISOString() };
      return { write: next, answer: viewOf(next)! };
    });
  }

  /** Remove the assistant and its versions (threads and runs that used it stay). */
  async delete(assistantId: string): Promise<void> {
    await this.#systemReady();
    await this.#change(assistantId, (stored) => {
      known(assistantId, stored);
      return { write: null, answer: undefined };
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
        await this.#change(graphId, (existing) => {
          const [first, ...rest] = existing?.versions ?? [];
          if (!existing || !first) return { write: this.#newRecord(graphId, body), answer: 0 };
          const config = body.config ?? {};
          const context = body.context ?? {};
          if (contains({ ...first }, { config, context })) return { answer: 0 };
          const versions = [{ ...first, config, context }, ...rest];
          return { write: { ...existing, versions }, answer: 0 };
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
    return known(assistantId, await this.#read(assistantId));
  }

  async #read(assistantId: string): Promise<AssistantRecord | undefined> {
    const item = await this.#store.get(NAMESPACE, assistantId, { refreshTtl: false });
    return item ? (item.value as unknown as AssistantRecord) : undefined;
  }

  /**
   * Changes `assistantId`'s record as `decide` says from the one stored (undefined: none):
   * `write` is the record to store (null: remove it; absent: nothing to write), `answer`
   * what the caller gets. The write is a compare-and-set (`putIf`) on the record `decide`
   * saw; when another server changed it first, `decide` runs again on the new one, so no
   * change is lost. Without `putIf`, only this process's changes are ordered.
   */
  async #change<T>(
    assistantId: string,
    decide: (record: AssistantRecord | undefined) => {
      write?: AssistantRecord | null;
      answer: T;
    },
  ): Promise<T> {
    return this.#inTurn(assistantId, async () => {
      for (let attempt = 1; ; attempt++) {
        const seen = await this.#read(assistantId);
        const { write, answer } = decide(seen);
        if (write === undefined) return answer;
        const next = write as unknown as Record<string, unknown> | null;
        if (this.#store.putIf) {
          const expected = (seen ?? null) as Record<string, unknown> | null;
          if (await this.#store.putIf(NAMESPACE, assistantId, expected, next)) return answer;
          if (attempt === MAX_ATTEMPTS) throw busy(assistantId);
        } else {
          if (next) await this.#store.put(NAMESPACE, assistantId, next);
          else await this.#store.delete(NAMESPACE, assistantId);
          return answer;
        }
      }
    });
  }

  /** Runs `change` after the changes to `assistantId` already under way in this process. */
  async #inTurn<T>(assistantId: string, change: () => Promise<T>): Promise<T> {
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
