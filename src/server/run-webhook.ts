// A run's webhook given as a path: LangGraph's callback into its own routes, as an address.
import type { Context } from "hono";
import type { z } from "zod";
import { RequestError } from "./errors.js";
import { parseBody } from "./request-body.js";

/**
 * The body with its webhook made a full address: a path (`/hooks/done`, as LangGraph takes
 * one for its own routes) is this server's, at the address the request came to, so the
 * process that delivers it (this one or a worker) posts it back here.
 *
 * @example
 * withOwnWebhook({ webhook: "/hooks/done" }, "http://127.0.0.1:2024/runs"); // webhook: "http://127.0.0.1:2024/hooks/done"
 */
export function withOwnWebhook<B extends { webhook?: string | null | undefined }>(
  body: B,
  requestUrl: string,
): B {
  if (!body.webhook?.startsWith("/")) return body;
  const here = new URL(requestUrl);
  const address = new URL(body.webhook, here);
  if (address.origin !== here.origin) {
    throw new RequestError(
      400,
      "INVALID_BODY",
      `webhook "${body.webhook}" does not name a path of this server; pass a full http(s) URL for another.`,
    );
  }
  return { ...body, webhook: address.href };
}

/**
 * A run request's body, checked against `schema`, with a webhook path made this server's
 * address.
 *
 * @example
 * const body = await readRunBody(c, runBody);
 */
export async function readRunBody<T extends z.ZodType<{ webhook?: string | null | undefined }>>(
  c: Context,
  schema: T,
): Promise<z.output<T>> {
  return withOwnWebhook(await parseBody(c, schema), c.req.url);
}
