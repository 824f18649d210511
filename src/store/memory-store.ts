/** The long-term store in this process's memory: for tests and single-process apps. */
import { jsonClone } from "../checkpoint/serde.js";
import {
  EmbeddingIndex,
  type FieldVector,
  type StoreIndexConfig,
  similarity,
} from "./embedding-index.js";
import type {
  Item,
  ListNamespacesOptions,
  Namespace,
  SearchItem,
  Store,
  StoreGetOptions,
  StorePutOptions,
  StoreSearchOptions,
  StoreTtlConfig,
} from "./store.js";
import {
  checkKey,
  checkNamespace,
  checkPut,
  checkPutIf,
  checkSearch,
  compareItems,
  compareScored,
  jsonEqual,
  listNamespacesOf,
  matchesFilter,
  ttlSettingsOf,
} from "./store-rules.js";

interface Stored {
  namespace: string[];
  key: string;
  /** The value as JSON text: what is handed out is a fresh copy, never aliased. */
  json: string;
  createdAt: number;
  updatedAt: number;
  ttlMinutes: number | null;
  expiresAt: number | null;
  /** Its embedded fields, when the store has an index. */
  vectors: FieldVector[];
}

/**
 * A `Store` in memory. Items expire by their TTL like the SQL store's; with an `index`,
 * a search's `query` ranks items by cosine similarity, computed here in JavaScript.
 *
 * @example
 * const store = new MemoryStore();
 * await store.put(["notes"], "n1", { text: "hi" }, { ttl: 60 });
 * const semantic = new MemoryStore({ index: { dims: 1536, embed: initEmbeddings("openai:text-embedding-3-small") } });
 * const expiring = new MemoryStore({ ttl: { defaultTtl: 60 } }); // puts without ttl live an hour
 */
export class MemoryStore implements Store {
  readonly #items = new Map<string, Stored>();
  readonly #index: EmbeddingIndex | undefined;
  readonly #ttl: Required<StoreTtlConfig>;
  /** Monotonic "now": two writes in one millisecond still order by time. */
  #last = 0;

  constructor(options: { index?: StoreIndexConfig; ttl?: StoreTtlConfig } = {}) {
    this.#index = options.index ? new EmbeddingIndex(options.index) : undefined;
    this.#ttl = ttlSettingsOf(options.ttl);
  }

  #now(): number {
    this.#last = Math.max(Date.now(), this.#last + 1);
    return this.#last;
  }

  #live(at: number): Stored[] {
    const live: Stored[] = [];
    for (const [id, item] of this.#items) {
      if (item.expiresAt !== null && item.expiresAt <= at) this.#items.delete(id);
      else live.push(item);
    }
    return live;
  }

  #refresh(item: Stored, refresh: boolean | undefined, at: number): void {
    if ((refresh ?? this.#ttl.refreshOnRead) && item.ttlMinutes !== null)
      item.expiresAt = at + item.ttlMinutes * 60_000;
  }

  async get(
    namespace: Namespace,
    key: string,
    options: StoreGetOptions = {},
  ): Promise<Item | null> {
    checkNamespace(namespace);
    checkKey(key);
    const at = Date.now();
    const item = this.#items.get(idOf(namespace, key));
    if (!item || (item.expiresAt !== null && item.expiresAt <= at)) return null;
    this.#refresh(item, options.refreshTtl, at);
    return toItem(item);
  }

  async put(
    namespace: Namespace,
    key: string,
    value: Record<string, unknown>,
    options: StorePutOptions = {},
  ): Promise<void> {
    const ttlMinutes = checkPut(namespace, key, value, options, this.#ttl.defaultTtl);
    await this.#write(namespace, key, undefined, value, ttlMinutes, options);
  }

  async putIf(
    namespace: Namespace,
    key: string,
    expected: Record<string, unknown> | null,
    value: Record<string, unknown> | null,
    options: StorePutOptions = {},
  ): Promise<boolean> {
    const ttlMinutes = checkPutIf(namespace, key, expected, value, options, this.#ttl.defaultTtl);
    return this.#write(namespace, key, expected, value, ttlMinutes, options);
  }

  /** Writes (or with `value` null removes) the item when `expected` (undefined: anything) is what it holds. */
  async #write(
    namespace: Namespace,
    key: string,
    expected: Record<string, unknown> | null | undefined,
    value: Record<string, unknown> | null,
    ttlMinutes: number | null,
    options: StorePutOptions,
  ): Promise<boolean> {
    // Embedded before anything changes: an embedder that fails leaves the item as it was.
    const vectors = (value && (await this.#index?.vectorsOf(value, options.index))) ?? [];
    // From here to the end nothing awaits: the comparison and the write are one step.
    const at = this.#now();
    const id = idOf(namespace, key);
    const before = this.#items.get(id);
    const kept =
      before && (before.expiresAt === null || before.expiresAt > at) ? before : undefined;
    if (expected !== undefined) {
      const holds = kept ? JSON.parse(kept.json) : null;
      if (!(expected === null ? holds === null : holds !== null && jsonEqual(holds, expected)))
        return false;
    }
    if (value === null) {
      this.#items.delete(id);
      return true;
    }
    this.#items.set(id, {
      namespace: [...namespace],
      key,
      json: JSON.stringify(value),
      createdAt: kept?.createdAt ?? at,
      updatedAt: at,
      ttlMinutes,
      expiresAt: ttlMinutes === null ? null : at + ttlMinutes * 60_000,
      vectors,
    });
    return true;
  }

  async delete(namespace: Namespace, key: string): Promise<void> {
    checkNamespace(namespace);
    checkKey(key);
    this.#items.delete(idOf(namespace, key));
  }

  async search(
    namespacePrefix: Namespace,
    options: StoreSearchOptions = {},
  ): Promise<SearchItem[]> {
    const { limit, offset } = checkSearch(namespacePrefix, options);
    const query =
      this.#index && options.query ? await this.#index.queryVector(options.query) : undefined;
    const at = Date.now();
    const hits = this.#live(at)
      .filter((item) => namespacePrefix.every((label, i) => item.namespace[i] === label))
      .filter((item) => matchesFilter(JSON.parse(item.json), options.filter))
      .map((item) => ({ item, ...dated(item), score: query && scoreOf(item, query) }))
      .sort(query ? compareScored : compareItems)
      .slice(offset, offset + limit);
    for (const { item } of hits) this.#refresh(item, options.refreshTtl, at);
    return hits.map(({ item, score }) => ({
      ...toItem(item),
      ...(score !== undefined && { score }),
    }));
  }

  async sweepExpired(): Promise<number> {
    const before = this.#items.size;
    this.#live(Date.now());
    return before - this.#items.size;
  }

  async listNamespaces(options: ListNamespacesOptions = {}): Promise<string[][]> {
    return listNamespacesOf(
      this.#live(Date.now()).map((item) => item.namespace),
      options,
    );
  }
}

/** Labels cannot hold `.`, so joining with it names each (namespace, key) once. */
const idOf = (namespace: Namespace, key: string) => `${namespace.join(".")}\u0000${key}`;

const dated = (item: Stored) => ({
  namespace: item.namespace,
  key: item.key,
  updatedAt: new Date(item.updatedAt),
});

/** The item's best field against the query; none when nothing of it was embedded. */
function scoreOf(item: Stored, query: readonly number[]): number | undefined {
  if (item.vectors.length === 0) return undefined;
  return Math.max(...item.vectors.map(({ vector }) => similarity(vector, query)));
}

function toItem(item: Stored): Item {
  return {
    namespace: jsonClone(item.namespace),
    key: item.key,
    value: JSON.parse(item.json) as Record<string, unknown>,
    createdAt: new Date(item.createdAt),
    updatedAt: new Date(item.updatedAt),
  };
}
