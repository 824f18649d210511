/**
 * The long-term store: JSON documents by namespace and key that outlive threads (user
 * preferences, memories, shared facts). The shape of LangGraph's `BaseStore`, so code
 * written against `runtime.store` or the SDK's `client.store` reads the same.
 *
 * @example
 * const store = new MemoryStore();
 * await store.put(["users", "u1"], "prefs", { theme: "dark" });
 * await store.get(["users", "u1"], "prefs"); // { namespace: ["users","u1"], key: "prefs", value: { theme: "dark" }, … }
 * await store.search(["users"], { filter: { theme: "dark" } });
 */

/** A path of labels; none empty, none containing `.` (the HTTP API joins them with it). */
export type Namespace = readonly string[];

/** One stored document. */
export interface Item {
  namespace: string[];
  key: string;
  /** A plain JSON object. */
  value: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * A search hit. A search with a `query` on a store with an index sets `score`: the cosine
 * similarity of the query to the item's best-matching field (-1 to 1, higher is closer).
 */
export interface SearchItem extends Item {
  score?: number;
}

export interface StorePutOptions {
  /**
   * Minutes until the item expires (reads refresh it unless told not to); `null`: never;
   * left out: the store's `defaultTtl` (see `StoreTtlConfig`), else never.
   */
  ttl?: number | null;
  /**
   * What to embed for semantic search: `false` nothing (the item is found by `query` only
   * after the scored ones), paths such as `["text"]` in place of the index's `fields`.
   * Ignored by a store without an index, as in LangGraph.
   */
  index?: false | readonly string[] | null;
}

export interface StoreGetOptions {
  /** Whether reading restarts the item's TTL (default: the store's `refreshOnRead`, true). */
  refreshTtl?: boolean;
}

/**
 * How a store's items expire when the call does not say (LangGraph's `store.ttl`).
 *
 * @example
 * const store = new MemoryStore({ ttl: { defaultTtl: 7 * 24 * 60, refreshOnRead: true } });
 * await store.put(["notes"], "n1", { text: "hi" }); // expires a week after its last read
 */
export interface StoreTtlConfig {
  /** Minutes a put without `ttl` lives (LangGraph's `default_ttl`); null or left out: for ever. */
  defaultTtl?: number | null;
  /** Whether a get or search without `refreshTtl` restarts the item's TTL (default true). */
  refreshOnRead?: boolean;
}

/**
 * A filter on the item's top-level fields: a value matches when equal (JSON equality), or
 * an operator object: `$eq`, `$ne`, `$gt`, `$gte`, `$lt`, `$lte` (numbers), `$in`, `$nin`.
 *
 * @example
 * { status: "open", priority: { $gte: 2 }, owner: { $in: ["ana", "bo"] } }
 */
export type StoreFilter = Record<string, unknown>;

export interface StoreSearchOptions extends StoreGetOptions {
  filter?: StoreFilter;
  /** At most this many items (default 10). */
  limit?: number;
  offset?: number;
  /**
   * Ranks the items by similarity to this text (best first, each with its `score`; items
   * with nothing embedded come after them, newest first). A store without an index ignores
   * it and answers as without, as LangGraph's stores do.
   */
  query?: string;
}

export interface ListNamespacesOptions {
  /** Namespaces that start with these labels (`*` matches any one label). */
  prefix?: Namespace;
  /** Namespaces that end with these labels (`*` matches any one label). */
  suffix?: Namespace;
  /** Cut every namespace to this many labels, then list each once. */
  maxDepth?: number;
  /** Default 100. */
  limit?: number;
  offset?: number;
}

/**
 * What every store does. `MemoryStore` keeps items in the process; `SqlStore` keeps them
 * in the checkpointer's PGlite or PostgreSQL database (`storeFor(checkpointer)`). One
 * conformance suite (`describeStoreConformance` in `stateweaver/testing`) holds them to
 * the same behaviour.
 *
 * Search results come newest-updated first (ties by namespace, then key), or by score for
 * a semantic search. Give a store an `index` (`StoreIndexConfig`) to search by meaning.
 */
export interface Store {
  /** The item, or `null` when there is none (or it expired). */
  get(namespace: Namespace, key: string, options?: StoreGetOptions): Promise<Item | null>;
  /** Creates or replaces the item (`createdAt` is kept on replace). */
  put(
    namespace: Namespace,
    key: string,
    value: Record<string, unknown>,
    options?: StorePutOptions,
  ): Promise<void>;
  /**
   * Optional compare-and-set: writes `value` (or, when it is `null`, removes the item) only
   * if the item's current value is JSON-equal to `expected` (`null`: only if there is no
   * live item), as one atomic step, so of several writers that read the same value exactly
   * one wins. True when it wrote. What needs read-modify-write across processes (the
   * server's assistants) uses it; without it such changes are only ordered per process.
   *
   * @example
   * const seen = await store.get(["counters"], "c");
   * const next = { n: Number(seen?.value.n ?? 0) + 1 };
   * if (!(await store.putIf!(["counters"], "c", seen?.value ?? null, next))) {
   *   // another writer changed it first: read again and retry
   * }
   */
  putIf?(
    namespace: Namespace,
    key: string,
    expected: Record<string, unknown> | null,
    value: Record<string, unknown> | null,
    options?: StorePutOptions,
  ): Promise<boolean>;
  /** Removes the item; removing one that is not there is not an error. */
  delete(namespace: Namespace, key: string): Promise<void>;
  /** Items whose namespace starts with `namespacePrefix` (`[]`: all), filtered and paged. */
  search(namespacePrefix: Namespace, options?: StoreSearchOptions): Promise<SearchItem[]>;
  /** The namespaces that hold at least one live item, sorted, paged. */
  listNamespaces(options?: ListNamespacesOptions): Promise<string[][]>;
  /**
   * Deletes the expired items now (they are already invisible), returning how many; what
   * a server's TTL sweep calls (`sweep_interval_minutes`).
   */
  sweepExpired?(): Promise<number>;
  /** Releases what the store opened (a shared database connection is left to its owner). */
  close?(): Promise<void>;
}
