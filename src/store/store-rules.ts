/**
 * The rules every store applies the same way: which namespaces, keys, values and paging
 * options are valid, how a filter matches a value, and how namespaces are listed.
 */
import { assertJson } from "../checkpoint/serde.js";
import { InvalidStoreRequestError } from "../errors/index.js";
import type {
  ListNamespacesOptions,
  Namespace,
  StoreFilter,
  StorePutOptions,
  StoreTtlConfig,
} from "./store.js";

const MAX_LIMIT = 1000;

/** Refuses a namespace the HTTP API could not name: empty, or a label empty or with `.`. */
export function checkNamespace(namespace: Namespace, what = "namespace", allowEmpty = false): void {
  if (!Array.isArray(namespace) || (!allowEmpty && namespace.length === 0)) {
    throw new InvalidStoreRequestError(
      `${what} must be a non-empty array of labels, e.g. ["users", "u1"]; got ${JSON.stringify(namespace)}.`,
    );
  }
  for (const label of namespace) {
    if (typeof label !== "string" || label === "" || label.includes(".")) {
      throw new InvalidStoreRequestError(
        `${what} labels must be non-empty strings without periods; got ${JSON.stringify(label)} in ${JSON.stringify(namespace)}.`,
      );
    }
  }
}

export function checkKey(key: string): void {
  if (typeof key !== "string" || key === "") {
    throw new InvalidStoreRequestError(
      `An item key must be a non-empty string; got ${JSON.stringify(key)}.`,
    );
  }
}

/** The value must be a plain JSON object, as in LangGraph's store. */
export function checkValue(value: unknown): asserts value is Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new InvalidStoreRequestError(
      `An item's value must be a JSON object, e.g. { "theme": "dark" }; got ${Array.isArray(value) ? "an array" : value === null ? "null" : typeof value}.`,
    );
  }
  assertJson(value, "value");
}

/** `ttl` in minutes: a positive finite number, or null/undefined for none. */
export function checkTtl(ttl: number | null | undefined): number | null {
  if (ttl === undefined || ttl === null) return null;
  if (typeof ttl !== "number" || !Number.isFinite(ttl) || ttl <= 0) {
    throw new InvalidStoreRequestError(
      `ttl is in minutes and must be a positive number or null; got ${JSON.stringify(ttl)}.`,
    );
  }
  return ttl;
}

/**
 * A store's TTL settings checked, with their defaults: no default TTL, reads refresh.
 *
 * @example
 * ttlSettingsOf({ defaultTtl: 60 }); // { defaultTtl: 60, refreshOnRead: true }
 */
export function ttlSettingsOf(config: StoreTtlConfig = {}): Required<StoreTtlConfig> {
  const defaultTtl = config.defaultTtl ?? null;
  if (
    defaultTtl !== null &&
    (typeof defaultTtl !== "number" || !Number.isFinite(defaultTtl) || defaultTtl <= 0)
  ) {
    throw new InvalidStoreRequestError(
      `ttl.defaultTtl is in minutes and must be a positive number or null; got ${JSON.stringify(defaultTtl)}.`,
    );
  }
  const refreshOnRead = config.refreshOnRead ?? true;
  if (typeof refreshOnRead !== "boolean") {
    throw new InvalidStoreRequestError(
      `ttl.refreshOnRead is true or false; got ${JSON.stringify(refreshOnRead)}.`,
    );
  }
  return { defaultTtl, refreshOnRead };
}

/** Checks a put's arguments; returns its TTL in minutes (`defaultTtl` when it names none), or null. */
export function checkPut(
  namespace: Namespace,
  key: string,
  value: unknown,
  options: StorePutOptions,
  defaultTtl: number | null = null,
): number | null {
  checkNamespace(namespace);
  checkKey(key);
  checkValue(value);
  const { index } = options;
  if (
    index !== undefined &&
    index !== null &&
    index !== false &&
    !(Array.isArray(index) && index.every((path) => typeof path === "string"))
  ) {
    throw new InvalidStoreRequestError(
      `index is false (embed nothing), null (the store's fields) or an array of paths such as ["text"]; got ${JSON.stringify(index)}.`,
    );
  }
  return options.ttl === undefined ? defaultTtl : checkTtl(options.ttl);
}

/** Checks a search's arguments; returns its page. */
export function checkSearch(
  namespacePrefix: Namespace,
  options: { filter?: StoreFilter; limit?: number; offset?: number; query?: string },
): { limit: number; offset: number } {
  checkNamespace(namespacePrefix, "namespacePrefix", true);
  checkFilter(options.filter);
  if (options.query !== undefined && typeof options.query !== "string") {
    throw new InvalidStoreRequestError(
      `query is the text to search by meaning; got ${JSON.stringify(options.query)}.`,
    );
  }
  return paging(options.limit, options.offset, 10);
}

/** Paging numbers as given or their defaults, refused when not whole and in range. */
export function paging(
  limit: number | undefined,
  offset: number | undefined,
  defaultLimit: number,
) {
  const l = limit ?? defaultLimit;
  const o = offset ?? 0;
  if (!Number.isInteger(l) || l < 0 || l > MAX_LIMIT) {
    throw new InvalidStoreRequestError(
      `limit must be a whole number from 0 to ${MAX_LIMIT}; got ${JSON.stringify(limit)}.`,
    );
  }
  if (!Number.isInteger(o) || o < 0) {
    throw new InvalidStoreRequestError(
      `offset must be a whole number ≥ 0; got ${JSON.stringify(offset)}.`,
    );
  }
  return { limit: l, offset: o };
}

const COMPARISONS = new Set(["$gt", "$gte", "$lt", "$lte"]);
const OPERATORS = new Set(["$eq", "$ne", ...COMPARISONS, "$in", "$nin"]);

/** A filter condition that is an operator object (`{ $gte: 2 }`), as opposed to a value. */
export function operatorsOf(condition: unknown): Array<[string, unknown]> | undefined {
  if (condition === null || typeof condition !== "object" || Array.isArray(condition))
    return undefined;
  const entries = Object.entries(condition);
  if (entries.length === 0 || !entries.every(([k]) => k.startsWith("$"))) return undefined;
  for (const [op, operand] of entries) {
    if (!OPERATORS.has(op)) {
      throw new InvalidStoreRequestError(
        `Unknown filter operator ${op}; use one of ${[...OPERATORS].join(", ")}.`,
      );
    }
    if ((op === "$in" || op === "$nin") && !Array.isArray(operand)) {
      throw new InvalidStoreRequestError(
        `${op} takes an array of values; got ${JSON.stringify(operand)}.`,
      );
    }
    if (COMPARISONS.has(op) && typeof operand !== "number") {
      throw new InvalidStoreRequestError(`${op} compares numbers; got ${JSON.stringify(operand)}.`);
    }
  }
  return entries;
}

/** Checks a filter's shape once, before any store reads with it. */
export function checkFilter(filter: StoreFilter | undefined): void {
  if (filter === undefined) return;
  if (filter === null || typeof filter !== "object" || Array.isArray(filter)) {
    throw new InvalidStoreRequestError(
      `filter must be an object of field conditions; got ${JSON.stringify(filter)}.`,
    );
  }
  for (const condition of Object.values(filter)) operatorsOf(condition);
  assertJson(filter, "filter");
}

/** JSON equality, as PostgreSQL's `jsonb` compares: objects whatever their keys' order. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    return (
      Array.isArray(a) &&
      Array.isArray(b) &&
      a.length === b.length &&
      a.every((x, i) => jsonEqual(x, b[i]))
    );
  }
  const keys = Object.keys(a);
  return (
    keys.length === Object.keys(b).length &&
    keys.every(
      (k) =>
        Object.hasOwn(b, k) &&
        jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]),
    )
  );
}

/** Checks a conditional put's arguments (`null` is allowed for both values); returns its TTL. */
export function checkPutIf(
  namespace: Namespace,
  key: string,
  expected: unknown,
  value: unknown,
  options: StorePutOptions,
  defaultTtl: number | null = null,
): number | null {
  if (expected !== null) checkValue(expected);
  if (value !== null) return checkPut(namespace, key, value, options, defaultTtl);
  checkNamespace(namespace);
  checkKey(key);
  return null;
}

/** Whether `value` passes `filter` (the in-process twin of SqlStore's `where`). */
export function matchesFilter(
  value: Record<string, unknown>,
  filter: StoreFilter | undefined,
): boolean {
  if (!filter) return true;
  return Object.entries(filter).every(([field, condition]) => {
    const actual = Object.hasOwn(value, field) ? value[field] : undefined;
    const ops = operatorsOf(condition);
    if (!ops) return actual !== undefined && jsonEqual(actual, condition);
    return ops.every(([op, operand]) => {
      switch (op) {
        case "$eq":
          return actual !== undefined && jsonEqual(actual, operand);
        case "$ne":
          return actual === undefined || !jsonEqual(actual, operand);
        case "$in":
          return actual !== undefined && (operand as unknown[]).some((x) => jsonEqual(actual, x));
        case "$nin":
          return actual === undefined || !(operand as unknown[]).some((x) => jsonEqual(actual, x));
        default: {
          if (typeof actual !== "number") return false;
          const n = operand as number;
          return op === "$gt"
            ? actual > n
            : op === "$gte"
              ? actual >= n
              : op === "$lt"
                ? actual < n
                : actual <= n;
        }
      }
    });
  });
}

/** Whether `namespace` starts (or ends) with `pattern`, `*` standing for any one label. */
function matchesAt(namespace: readonly string[], pattern: Namespace, atEnd: boolean): boolean {
  if (pattern.length > namespace.length) return false;
  const start = atEnd ? namespace.length - pattern.length : 0;
  return pattern.every((label, i) => label === "*" || namespace[start + i] === label);
}

/** Lists namespaces as LangGraph does: match prefix/suffix, cut to maxDepth, once each, sorted. */
export function listNamespacesOf(
  namespaces: Iterable<readonly string[]>,
  options: ListNamespacesOptions = {},
): string[][] {
  if (options.prefix) checkNamespace(options.prefix, "prefix");
  if (options.suffix) checkNamespace(options.suffix, "suffix");
  if (
    options.maxDepth !== undefined &&
    !(Number.isInteger(options.maxDepth) && options.maxDepth > 0)
  ) {
    throw new InvalidStoreRequestError(
      `maxDepth must be a whole number ≥ 1; got ${JSON.stringify(options.maxDepth)}.`,
    );
  }
  const { limit, offset } = paging(options.limit, options.offset, 100);
  const seen = new Map<string, string[]>();
  for (const namespace of namespaces) {
    if (options.prefix && !matchesAt(namespace, options.prefix, false)) continue;
    if (options.suffix && !matchesAt(namespace, options.suffix, true)) continue;
    const cut = options.maxDepth ? namespace.slice(0, options.maxDepth) : [...namespace];
    seen.set(cut.join("."), cut);
  }
  return [...seen.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .slice(offset, offset + limit)
    .map(([, namespace]) => namespace);
}

/** Newest-updated first, then namespace, then key: the order every store returns. */
export function compareItems(
  a: { namespace: readonly string[]; key: string; updatedAt: Date },
  b: { namespace: readonly string[]; key: string; updatedAt: Date },
): number {
  const t = b.updatedAt.getTime() - a.updatedAt.getTime();
  if (t !== 0) return t;
  const na = a.namespace.join(".");
  const nb = b.namespace.join(".");
  if (na !== nb) return na < nb ? -1 : 1;
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

/** A semantic search's order: scored items best first, then the unscored, each by `compareItems`. */
export function compareScored(
  a: { namespace: readonly string[]; key: string; updatedAt: Date; score?: number | undefined },
  b: { namespace: readonly string[]; key: string; updatedAt: Date; score?: number | undefined },
): number {
  if (a.score !== undefined && b.score !== undefined && a.score !== b.score)
    return b.score - a.score;
  if ((a.score === undefined) !== (b.score === undefined)) return a.score === undefined ? 1 : -1;
  return compareItems(a, b);
}
