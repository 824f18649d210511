import { Hono } from "hono";
import { z } from "zod";
import type { Item, SearchItem } from "../../store/index.js";
import { RequestError } from "../errors.js";
import { parseBody } from "../request-body.js";
import type { ServerContext } from "../server-context.js";

const namespace = z.array(z.string());

const putBody = z.looseObject({
  namespace,
  key: z.string(),
  value: z.record(z.string(), z.unknown()),
  index: z.union([z.literal(false), z.array(z.string())]).nullish(),
  ttl: z.number().nullish(),
});

const deleteBody = z.looseObject({ namespace: namespace.optional(), key: z.string() });

const searchBody = z.looseObject({
  namespace_prefix: namespace,
  filter: z.record(z.string(), z.unknown()).nullish(),
  limit: z.number().optional(),
  offset: z.number().optional(),
  query: z.string().nullish(),
  refresh_ttl: z.boolean().nullish(),
});

const namespacesBody = z.looseObject({
  prefix: namespace.nullish(),
  suffix: namespace.nullish(),
  max_depth: z.number().nullish(),
  limit: z.number().optional(),
  offset: z.number().optional(),
});

/** An item as LangGraph's server sends it: snake_case times as ISO text. */
function toWireItem(item: Item | SearchItem) {
  return {
    namespace: item.namespace,
    key: item.key,
    value: item.value,
    created_at: item.createdAt.toISOString(),
    updated_at: item.updatedAt.toISOString(),
    ...("score" in item && item.score !== undefined && { score: item.score }),
  };
}

/**
 * The long-term store over HTTP, as LangGraph's Agent Server has it (`client.store.*`):
 * put, get, delete and search items, and list namespaces.
 */
export function storeRoutes(ctx: ServerContext): Hono {
  const app = new Hono();

  app.put("/items", async (c) => {
    const body = await parseBody(c, putBody);
    // No ttl sent: the store's default (the config's store.ttl.default_ttl); null: never.
    await ctx.store.put(body.namespace, body.key, body.value, {
      ...(body.ttl !== undefined && { ttl: body.ttl }),
      ...(body.index !== undefined && { index: body.index }),
    });
    return c.body(null, 204);
  });

  app.get("/items", async (c) => {
    const key = c.req.query("key");
    if (!key) {
      throw new RequestError(
        400,
        "INVALID_QUERY",
        'Name the item: GET /store/items?namespace=a.b&key=k ("key" is missing).',
      );
    }
    const ns = c.req.query("namespace");
    const refresh = c.req.query("refresh_ttl");
    const item = await ctx.store.get(ns ? ns.split(".") : [], key, {
      ...(refresh !== undefined && {
        refreshTtl: ["true", "1", "yes"].includes(refresh.toLowerCase()),
      }),
    });
    return c.json(item ? toWireItem(item) : null);
  });

  app.delete("/items", async (c) => {
    const body = await parseBody(c, deleteBody);
    await ctx.store.delete(body.namespace ?? [], body.key);
    return c.body(null, 204);
  });

  app.post("/items/search", async (c) => {
    const body = await parseBody(c, searchBody);
    const items = await ctx.store.search(body.namespace_prefix, {
      ...(body.filter && { filter: body.filter }),
      ...(body.limit !== undefined && { limit: body.limit }),
      ...(body.offset !== undefined && { offset: body.offset }),
      ...(body.query && { query: body.query }),
      ...(body.refresh_ttl != null && { refreshTtl: body.refresh_ttl }),
    });
    return c.json({ items: items.map(toWireItem) });
  });

  app.post("/namespaces", async (c) => {
    const body = await parseBody(c, namespacesBody);
    const namespaces = await ctx.store.listNamespaces({
      ...(body.prefix && { prefix: body.prefix }),
      ...(body.suffix && { suffix: body.suffix }),
      ...(body.max_depth != null && { maxDepth: body.max_depth }),
      ...(body.limit !== undefined && { limit: body.limit }),
      ...(body.offset !== undefined && { offset: body.offset }),
    });
    return c.json({ namespaces });
  });

  return app;
}
