/** The long-term store in this process's memory: for tests and single-process apps. */
import { jsonClone } from "../checkpoint/serde.js";
import type {
  Item,
  ListNamespacesOptions,
  Namespace,
  SearchItem,
  Store,
  StoreGetOptions,
  StorePutOptions,
  StoreSearchOptions,
} from "./store.js";
import {
  checkKey,
  checkNamespace,
  checkPut,
  checkSearch,
  compareItems,
  listNamespacesOf,
  matchesFilter,
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
}

/**
 * A `Store` in memory. Items expire by their TTL like the SQL store's.
 *
 * @example
 * const store = new MemoryStore();
 * await store.put(["notes"], "n1", { text: "hi" }, { ttl: 60 });
 */
export class MemoryStore implements Store {
  readonly #items = new Map<string, Stored>();
  /** Monotonic "now": two writes in one millisecond still order by time. */
  #last = 0;

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
    if (refresh !== false && item.ttlMinutes !== null)
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
    const ttlMinutes = checkPut(namespace, key, value, options.ttl);
    const at = this.#now();
    const id = idOf(namespace, key);
    const before = this.#items.get(id);
    const kept =
      before && (before.expiresAt === null || before.expiresAt > at) ? before : undefined;
    this.#items.set(id, {
      namespace: [...namespace],
      key,
      json: JSON.stringify(value),
      createdAt: kept?.createdAt ?? at,
      updatedAt: at,
      ttlMinutes,
      expiresAt: ttlMinutes === null ? null : at + ttlMinutes * 60_000,
    });
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
    const at = Date.now();
    const hits = this.#live(at)
      .filter((item) => namespacePrefix.every((label, i) => item.namespace[i] === label))
      .map((item) => ({ item, value: JSON.parse(item.json) as Record<string, unknown> }))
      .filter(({ value }) => matchesFilter(value, options.filter))
      .sort((a, b) => compareItems(dated(a.item), dated(b.item)))
      .slice(offset, offset + limit);
    for (const { item } of hits) this.#refresh(item, options.refreshTtl, at);
    return hits.map(({ item }) => toItem(item));
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

const dated = (item: Stored) => ({ ...item, updatedAt: new Date(item.updatedAt) });

function toItem(item: Stored): Item {
  return {
    namespace: jsonClone(item.namespace),
    key: item.key,
    value: JSON.parse(item.json) as Record<string, unknown>,
    createdAt: new Date(item.createdAt),
    updatedAt: new Date(item.updatedAt),
  };
}
