/**
 * Field paths that say which parts of an item's value are embedded for semantic search:
 * `$` (the whole value), `a.b` (nested fields), `items[*].text` (every element), `tags[0]`,
 * `tags[-1]` (from the end). The syntax is LangGraph's `fields`, less its `{a,b}` groups.
 */
import { InvalidStoreRequestError } from "../errors/index.js";

/** One step of a parsed path: a field name, an array index (negative from the end), or every element. */
export type PathStep = { field: string } | { index: number } | { every: true };

/** A checked path: its text (which names the field an embedding came from) and its steps. */
export interface TextPath {
  path: string;
  steps: PathStep[];
}

const STEP = /^([^.[\]{}]+)|^\.([^.[\]{}]+)|^\[(\*|-?\d+)\]/;

/**
 * The steps of `path` (fields joined by `.`, `[n]`, `[-n]` from the end, `[*]` every
 * element), or where it stops being one: the rest of the text that is not a step.
 *
 * @example
 * pathSteps("items[*].text"); // { steps: [{ field: "items" }, { every: true }, { field: "text" }] }
 * pathSteps("a..b"); // { badAt: "..b" }
 */
export function pathSteps(path: string): { steps: PathStep[] } | { badAt: string } {
  const steps: PathStep[] = [];
  let rest = path;
  while (rest !== "") {
    const match = STEP.exec(rest);
    const name = match?.[1] ?? match?.[2];
    // A leading "." is only for the fields after the first.
    if (!match || (match[2] !== undefined && steps.length === 0)) return { badAt: rest };
    if (name !== undefined) steps.push({ field: name });
    else if (match[3] === "*") steps.push({ every: true });
    else steps.push({ index: Number(match[3]) });
    rest = rest.slice(match[0].length);
  }
  return { steps };
}

/**
 * Parses `path`, refusing what is not a path with an error that shows the syntax.
 *
 * @example
 * textPath("items[*].text").steps; // [{ field: "items" }, { every: true }, { field: "text" }]
 */
export function textPath(path: string): TextPath {
  if (typeof path !== "string" || path === "") {
    throw new InvalidStoreRequestError(
      `An index field must be a path such as "$", "text", "meta.title" or "items[*].text"; got ${JSON.stringify(path)}.`,
    );
  }
  if (path === "$") return { path, steps: [] };
  const parsed = pathSteps(path);
  if ("badAt" in parsed) {
    throw new InvalidStoreRequestError(
      `Cannot read index field ${JSON.stringify(path)} at ${JSON.stringify(parsed.badAt)}: write fields joined by "." with [n], [-n] or [*] for arrays, e.g. "items[*].text" (groups such as {a,b} are not supported: list each field).`,
    );
  }
  return { path, steps: parsed.steps };
}

/**
 * What lies at `steps` in `value`: one value per match (`[*]` may match several), none
 * where a field or element is missing.
 *
 * @example
 * valuesAt({ tags: ["a", "b"] }, [{ field: "tags" }, { index: -1 }]); // ["b"]
 */
export function valuesAt(value: unknown, steps: readonly PathStep[]): unknown[] {
  let at: unknown[] = [value];
  for (const step of steps) {
    const next: unknown[] = [];
    for (const here of at) {
      if ("field" in step) {
        if (isObject(here) && Object.hasOwn(here, step.field)) next.push(here[step.field]);
      } else if (Array.isArray(here)) {
        if ("every" in step) next.push(...here);
        else {
          const i = step.index < 0 ? here.length + step.index : step.index;
          if (i >= 0 && i < here.length) next.push(here[i]);
        }
      }
    }
    at = next;
  }
  return at;
}

/**
 * The texts at `path` in `value`: strings as they are, numbers and booleans as text,
 * objects and arrays as JSON; missing fields and nulls give none.
 *
 * @example
 * textsAt({ items: [{ text: "a" }, { text: "b" }] }, textPath("items[*].text")); // ["a", "b"]
 */
export function textsAt(value: unknown, path: TextPath): string[] {
  return valuesAt(value, path.steps).flatMap((found) => {
    if (typeof found === "string") return [found];
    if (typeof found === "number" || typeof found === "boolean") return [String(found)];
    if (found !== null && typeof found === "object") return [JSON.stringify(found)];
    return [];
  });
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);
