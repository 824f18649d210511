// `threads.search({ extract })`: values picked out of each thread found, by path.
import { z } from "zod";
import { type PathStep, pathSteps, valuesAt } from "../store/text-paths.js";

/** At most this many paths per search, as LangGraph Platform allows. */
export const MAX_EXTRACT_PATHS = 10;

/** One path checked: fields joined by `.`, `[n]` or `[-n]` (from the end) for array elements. */
const extractPath = z.string().transform((path, ctx): PathStep[] => {
  const parsed = path === "" ? { badAt: "" } : pathSteps(path);
  const every = "steps" in parsed && parsed.steps.some((s) => "every" in s);
  if ("badAt" in parsed || every) {
    ctx.addIssue({
      code: "custom",
      message: `${JSON.stringify(path)} is not a path into the thread: write fields joined by "." with [n] or [-n] for one array element, e.g. "values.messages[-1]" or "metadata.owner"`,
    });
    return z.NEVER;
  }
  return parsed.steps;
});

/**
 * `extract` as LangGraph Platform's thread search takes it: an alias for each path into
 * the thread (`{ "last": "values.messages[-1]" }`), at most `MAX_EXTRACT_PATHS`.
 */
export const extractSchema = z
  .record(z.string().min(1), extractPath)
  .refine((paths) => Object.keys(paths).length <= MAX_EXTRACT_PATHS, {
    message: `at most ${MAX_EXTRACT_PATHS} paths; ask for fewer, or read the thread's state`,
  });

export type ThreadExtract = z.output<typeof extractSchema>;

/** Whether a path reads the thread's values (so they must be read even when not selected). */
export const readsValues = (extract: ThreadExtract): boolean =>
  Object.values(extract).some((steps) => {
    const first = steps[0];
    return first !== undefined && "field" in first && first.field === "values";
  });

/**
 * Each alias with what its path finds in the thread as the API answers it, or `null` where
 * nothing is there (as a JSONB path that leads nowhere reads in PostgreSQL).
 *
 * @example
 * extracted({ values: { messages: [m1, m2] } }, { last: [{ field: "values" }, { field: "messages" }, { index: -1 }] }); // { last: m2 }
 */
export function extracted(
  thread: Record<string, unknown>,
  extract: ThreadExtract,
): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(extract).map(([alias, steps]) => [alias, valuesAt(thread, steps)[0] ?? null]),
  );
}
