// A Command's `update` as LangGraph's API takes it: an object of state keys, or a list of
// [key, value] pairs (what Python's `Command(update=[...])` sends).
import { z } from "zod";

const asObject = z.record(z.string(), z.unknown(), {
  error: "is an object of state keys, or a list of [key, value] pairs",
});

const asPairs = z
  .array(z.tuple([z.string(), z.unknown()], { error: "is a [key, value] pair, the key a string" }))
  .transform((pairs, ctx) => {
    const update: Record<string, unknown> = {};
    for (const [key, value] of pairs) {
      if (Object.hasOwn(update, key)) {
        ctx.addIssue({
          code: "custom",
          message: `names "${key}" twice; send each key once, as an object or one [key, value] pair per key`,
        });
        return z.NEVER;
      }
      // Defined, not assigned: a "__proto__" key stays a key.
      Object.defineProperty(update, key, {
        value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return update;
  });

/**
 * `command.update` in a request body. Pairs become the object they name; a key named twice
 * is refused, since one update writes each key once here (an object cannot say it twice).
 * Checked by the shape it has, so an error names what is wrong with that shape.
 *
 * @example
 * commandUpdate.parse([["keyOne", "value1"], ["keyTwo", "value2"]]); // { keyOne: "value1", keyTwo: "value2" }
 */
export const commandUpdate = z
  .unknown()

  .transform((value, ctx): Record<string, unknown> => {
    const parsed = Array.isArray(value) ? asPairs.safeParse(value) : asObject.safeParse(value);
    if (parsed.success) return parsed.data;
    for (const issue of parsed.error.issues) {
      ctx.addIssue({ code: "custom", message: issue.message, path: issue.path });
    }
    return z.NEVER;
  });
