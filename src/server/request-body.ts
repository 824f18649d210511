import type { Context } from "hono";
import type { z } from "zod";
import { clauses } from "../errors/sentences.js";
import { RequestError } from "./errors.js";

/**
 * The request's JSON body checked against `schema`; a 400 listing each problem at its
 * field otherwise. An empty body counts as `{}`.
 *
 * @example
 * const body = await parseBody(c, z.object({ token: z.string() }));
 */
export async function parseBody<T extends z.ZodType>(c: Context, schema: T): Promise<z.output<T>> {
  const text = await c.req.text();
  let json: unknown = {};
  if (text.trim() !== "") {
    try {
      json = JSON.parse(text);
    } catch {
      throw new RequestError(400, "INVALID_JSON", "The request body is not valid JSON.");
    }
  }
  const parsed = await schema.safeParseAsync(json);
  if (parsed.success) return parsed.data;
  const fields = parsed.error.issues.map((issue) => ({
    path: issue.path.map(String).join(".") || "(body)",
    message: issue.message,
  }));
  throw new RequestError(
    400,
    "INVALID_BODY",
    `The request body is not valid: ${clauses(fields.map((f) => `${f.path}: ${f.message}`))}`,
    { fields },
  );
}
