/** Proposed vs edited args as a list of changed paths, shown before submit and on receipts. */

export interface ArgChange {
  path: string;
  proposed: unknown;
  edited: unknown;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** Changed leaves, by dotted path; objects are compared key by key, everything else whole. */
export function argsDiff(proposed: unknown, edited: unknown, path = ""): ArgChange[] {
  if (isObject(proposed) && isObject(edited)) {
    const keys = [...new Set([...Object.keys(proposed), ...Object.keys(edited)])];
    return keys.flatMap((k) => argsDiff(proposed[k], edited[k], path ? `${path}.${k}` : k));
  }
  if (JSON.stringify(proposed) === JSON.stringify(edited)) return [];
  return [{ path, proposed, edited }];
}
