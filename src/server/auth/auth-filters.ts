// The filters an auth handler returns, and the two ways the server applies them to metadata.

/**
 * What an `on` handler may return to narrow what a user sees, in LangGraph's `Filters`
 * shape: per metadata key, a value it must equal (`"ana"` or `{ $eq: "ana" }`), or a value
 * (or values) the key's list must contain (`{ $contains: "ops" }`). All keys must hold.
 *
 * @example
 * const mine: AuthFilters = { owner: "ana", teams: { $contains: "ops" } };
 */
export type AuthFilters = Record<string, string | { $eq?: string; $contains?: string | string[] }>;

/**
 * True when `metadata` passes every filter (no filters: always). LangGraph's rules: a plain
 * value or `$eq` must equal the key's value; `$contains` needs the key to be a list holding
 * the value (each of them, for a list).
 *
 * @example
 * matchesFilters({ owner: "ana" }, { owner: "ana" }); // true
 * matchesFilters({ owner: "bo" }, { owner: { $eq: "ana" } }); // false
 */
export function matchesFilters(
  metadata: Record<string, unknown> | undefined,
  filters: AuthFilters | undefined,
): boolean {
  if (!filters) return true;
  return Object.entries(filters).every(([key, wanted]) => {
    const actual = metadata?.[key];
    if (typeof wanted !== "object" || wanted === null) return actual === wanted;
    if (wanted.$eq !== undefined) return actual === wanted.$eq;
    if (wanted.$contains !== undefined) {
      if (!Array.isArray(actual)) return false;
      const needed = Array.isArray(wanted.$contains) ? wanted.$contains : [wanted.$contains];
      return needed.every((v) => actual.includes(v));
    }
    return true;
  });
}

/**
 * The filters as a JSON containment query (what thread search's `metadata` means in every
 * store: `{ owner: "ana" }`, `{ teams: ["ops"] }`), so a search reads only matching
 * threads and its pages stay full.
 */
export function containmentOf(filters: AuthFilters): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(filters).map(([key, wanted]) => {
      if (typeof wanted !== "object" || wanted === null) return [key, wanted];
      if (wanted.$eq !== undefined) return [key, wanted.$eq];
      const contains = wanted.$contains;
      return [key, contains === undefined ? [] : Array.isArray(contains) ? contains : [contains]];
    }),
  );
}

/**
 * Both containment queries at once: objects merged, lists joined; `undefined` when they
 * cannot both hold (two different values for one key), i.e. nothing can match.
 *
 * @example
 * bothContained({ owner: "ana" }, { tag: "x" }); // { owner: "ana", tag: "x" }
 * bothContained({ owner: "bo" }, { owner: "ana" }); // undefined
 */
export function bothContained(a: unknown, b: unknown): unknown {
  if (a === undefined) return b;
  if (b === undefined) return a;
  if (Array.isArray(a) && Array.isArray(b)) return [...a, ...b];
  const isObject = (v: unknown): v is Record<string, unknown> =>
    typeof v === "object" && v !== null && !Array.isArray(v);
  if (isObject(a) && isObject(b)) {
    const out: Record<string, unknown> = { ...a };
    for (const [key, value] of Object.entries(b)) {
      const merged = bothContained(out[key], value);
      if (merged === undefined) return undefined;
      out[key] = merged;
    }
    return out;
  }
  return JSON.stringify(a) === JSON.stringify(b) ? a : undefined;
}
