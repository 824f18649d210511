import { randomUUID } from "node:crypto";
import { RequestError } from "./errors.js";
import type { HostedGraphs } from "./hosted-graphs.js";

/**
 * One version of an assistant, as LangGraph's API returns it: a graph with its own
 * `config`, `context` and `metadata`, under a stable `assistant_id`.
 *
 * @example
 * const v: AssistantVersion = { assistant_id: "a1", graph_id: "ops", version: 1, name: "ops",
 *   description: null, config: {}, context: {}, metadata: {}, created_at: "2026-01-01T00:00:00.000Z" };
 */
export interface AssistantVersion {
  assistant_id: string;
  graph_id: string;
  version: number;
  name: string;
  description: string | null;
  config: Record<string, unknown>;
  context: Record<string, unknown>;
  metadata: Record<string, unknown>;
  created_at: string;
}

/** An assistant: its latest version (the one runs use), and when it was created and changed. */
export type Assistant = AssistantVersion & { updated_at: string };

/** What `create` takes (LangGraph's `POST /assistants` body). */
export interface AssistantCreate {
  graph_id: string;
  assistant_id?: string | undefined;
  name?: string | undefined;
  description?: string | null | undefined;
  config?: Record<string, unknown> | undefined;
  context?: Record<string, unknown> | undefined;
  metadata?: Record<string, unknown> | undefined;
  if_exists?: "raise" | "do_nothing" | undefined;
}

/**
 * A hosted graph's defaults: the `config` and `context` its system assistant carries
 * (LangGraph's `LANGGRAPH_CONFIG`); runs through the assistant take its context under their own.
 *
 * @example
 * const defaults: GraphDefaults = { config: { configurable: { model_name: "openai" } } };
 */
export interface GraphDefaults {
  config?: Record<string, unknown>;
  context?: Record<string, unknown>;
}

/** What `update` takes: each field given replaces the latest version's (metadata is merged). */
export type AssistantUpdate = Partial<Omit<AssistantCreate, "assistant_id" | "if_exists">>;

/** Filters of `search` and `count` (LangGraph's `POST /assistants/search` body). */
export interface AssistantFilter {
  graph_id?: string | undefined;
  name?: string | undefined;
  metadata?: Record<string, unknown> | undefined;
}

const SORT_KEYS = ["assistant_id", "graph_id", "name", "created_at", "updated_at"] as const;
/** The fields `search` can sort by. */
export type AssistantSortKey = (typeof SORT_KEYS)[number];
export const ASSISTANT_SORT_KEYS: readonly AssistantSortKey[] = SORT_KEYS;

/** True when `value` holds every key of `wanted` with an equal (JSON) value. */
function contains(value: Record<string, unknown>, wanted: Record<string, unknown>): boolean {
  return Object.entries(wanted).every(([k, v]) => JSON.stringify(value[k]) === JSON.stringify(v));
}

/**
 * The server's assistants: one made by the system for every hosted graph (its id is the
 * graph id, `metadata.created_by` is `"system"`), and those clients create, each with its
 * versions. Kept in this server's memory: they do not outlive the process (docs/server.md).
 *
 * @example
 * const assistants = new Assistants(hosted);
 * const a = assistants.create({ graph_id: "ops", context: { team: "infra" } });
 * assistants.resolve(a.assistant_id).graphId; // "ops"
 */
export class Assistants {
  readonly #hosted: HostedGraphs;
  // Every version of every assistant, oldest first, and which one is the latest.
  readonly #versions = new Map<string, AssistantVersion[]>();
  readonly #latest = new Map<string, number>();
  readonly #updatedAt = new Map<string, string>();

  /** `defaults` gives a hosted graph's system assistant its `config` and `context`. */
  constructor(hosted: HostedGraphs, defaults: Record<string, GraphDefaults> = {}) {
    this.#hosted = hosted;
    for (const graphId of hosted.ids) {
      this.create({
        graph_id: graphId,
        assistant_id: graphId,
        metadata: { created_by: "system" },
        ...defaults[graphId],
      });
    }
  }

  /** A new assistant (version 1); with `if_exists: "do_nothing"` an existing id is returned as it is. */
  create(body: AssistantCreate): Assistant {
    this.#hosted.get(body.graph_id);
    const id = body.assistant_id ?? randomUUID();
    if (this.#versions.has(id)) {
      if (body.if_exists === "do_nothing") return this.get(id);
      throw new RequestError(
        409,
        "ASSISTANT_EXISTS",
        `Assistant "${id}" already exists; update it, or create with if_exists: "do_nothing".`,
      );
    }
    const now = new Date().toISOString();
    this.#versions.set(id, [
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
    ]);
    this.#latest.set(id, 1);
    this.#updatedAt.set(id, now);
    return this.get(id);
  }

  /** The assistant (its latest version), or a 404. */
  get(assistantId: string): Assistant {
    const versions = this.#versions.get(assistantId);
    const latest = versions?.find((v) => v.version === this.#latest.get(assistantId));
    if (!versions || !latest) {
      throw new RequestError(
        404,
        "ASSISTANT_NOT_FOUND",
        `Assistant not found: "${assistantId}". assistants.search() lists them; a hosted graph's id is its assistant id too.`,
      );
    }
    const first = versions[0]!;
    return {
      ...latest,
      created_at: first.created_at,
      updated_at: this.#updatedAt.get(assistantId)!,
    };
  }

  /** A new version from the latest one and `changes`; it becomes the latest. */
  update(assistantId: string, changes: AssistantUpdate): Assistant {
    const current = this.get(assistantId);
    if (changes.graph_id !== undefined) this.#hosted.get(changes.graph_id);
    const versions = this.#versions.get(assistantId)!;
    const version = Math.max(...versions.map((v) => v.version)) + 1;
    const now = new Date().toISOString();
    versions.push({
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
    this.#latest.set(assistantId, version);
    this.#updatedAt.set(assistantId, now);
    return this.get(assistantId);
  }

  /** Make an earlier (or later) version the one runs use. */
  setLatest(assistantId: string, version: number): Assistant {
    this.get(assistantId);
    if (!this.#versions.get(assistantId)!.some((v) => v.version === version)) {
      throw new RequestError(
        404,
        "ASSISTANT_VERSION_NOT_FOUND",
        `Assistant "${assistantId}" has no version ${version}; assistants.getVersions() lists them.`,
      );
    }
    this.#latest.set(assistantId, version);
    this.#updatedAt.set(assistantId, new Date().toISOString());
    return this.get(assistantId);
  }

  /** Remove the assistant and its versions (threads and runs that used it stay). */
  delete(assistantId: string): void {
    this.get(assistantId);
    this.#versions.delete(assistantId);
    this.#latest.delete(assistantId);
    this.#updatedAt.delete(assistantId);
  }

  /** The assistant's versions, newest first, those whose metadata contains `metadata`. */
  versions(
    assistantId: string,
    options: { metadata?: Record<string, unknown>; limit: number; offset: number },
  ): AssistantVersion[] {
    this.get(assistantId);
    return [...this.#versions.get(assistantId)!]
      .reverse()
      .filter((v) => !options.metadata || contains(v.metadata, options.metadata))
      .slice(options.offset, options.offset + options.limit);
  }

  /** Assistants matching every filter, sorted (by `created_at`, newest first, by default). */
  search(
    filter: AssistantFilter,
    page: {
      limit: number;
      offset: number;
      sortBy?: AssistantSortKey | undefined;
      sortOrder?: "asc" | "desc" | undefined;
    },
  ): Assistant[] {
    const key = page.sortBy ?? "created_at";
    const sign = (page.sortOrder ?? "desc") === "asc" ? 1 : -1;
    // Created in the same millisecond: the later made comes first when newest first.
    const order = [...this.#versions.keys()];
    return this.#matching(filter)
      .sort((a, b) => {
        const byKey = String(a[key]).localeCompare(String(b[key]));
        const byMade = order.indexOf(a.assistant_id) - order.indexOf(b.assistant_id);
        return sign * (byKey !== 0 ? byKey : byMade);
      })
      .slice(page.offset, page.offset + page.limit);
  }

  /** How many assistants match every filter. */
  count(filter: AssistantFilter): number {
    return this.#matching(filter).length;
  }

  /**
   * The graph a run of `assistantId` runs and the assistant's config and context; a 404
   * that says what exists when there is no such assistant.
   */
  resolve(assistantId: string): {
    graphId: string;
    config: Record<string, unknown>;
    context: Record<string, unknown>;
  } {
    if (!this.#versions.has(assistantId)) {
      throw new RequestError(
        404,
        "ASSISTANT_NOT_FOUND",
        `No assistant found for "${assistantId}": use a hosted graph's id (${this.#hosted.ids.join(", ")}) or an assistant_id from assistants.create().`,
      );
    }
    const a = this.get(assistantId);
    return { graphId: a.graph_id, config: a.config, context: a.context };
  }

  #matching(filter: AssistantFilter): Assistant[] {
    return [...this.#versions.keys()]
      .map((id) => this.get(id))
      .filter(
        (a) =>
          (filter.graph_id === undefined || a.graph_id === filter.graph_id) &&
          (filter.name === undefined || a.name.includes(filter.name)) &&
          (!filter.metadata || contains(a.metadata, filter.metadata)),
      );
  }
}
