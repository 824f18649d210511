// What an assistant is on the wire: its versions, and what create, update and search take.

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
