import { Hono } from "hono";
import { z } from "zod";
import { ASSISTANT_SORT_KEYS } from "../assistants.js";
import { parseBody } from "../request-body.js";
import type { ServerContext } from "../server-context.js";

const record = z.record(z.string(), z.unknown());

const createBody = z.looseObject({
  graph_id: z.string().min(1),
  assistant_id: z.string().min(1).max(200).nullish(),
  name: z.string().min(1).nullish(),
  description: z.string().nullish(),
  config: record.nullish(),
  context: record.nullish(),
  metadata: record.nullish(),
  if_exists: z.enum(["raise", "do_nothing"]).nullish(),
});

const updateBody = z.looseObject({
  graph_id: z.string().min(1).nullish(),
  name: z.string().min(1).nullish(),
  description: z.string().nullish(),
  config: record.nullish(),
  context: record.nullish(),
  metadata: record.nullish(),
});

const filterBody = {
  graph_id: z.string().nullish(),
  name: z.string().nullish(),
  metadata: record.nullish(),
};

const searchBody = z.looseObject({
  ...filterBody,
  limit: z.number().int().min(1).max(1000).default(10),
  offset: z.number().int().min(0).default(0),
  sort_by: z.enum(ASSISTANT_SORT_KEYS as [string, ...string[]]).nullish(),
  sort_order: z.enum(["asc", "desc"]).nullish(),
  select: z.array(z.string()).nullish(),
});

const versionsBody = z.looseObject({
  metadata: record.nullish(),
  limit: z.number().int().min(1).max(1000).default(10),
  offset: z.number().int().min(0).default(0),
});

/** Null and absent are the same to these routes (the SDK sends both). */
const given = <T>(value: T | null | undefined): T | undefined => value ?? undefined;

/** Only the fields asked for (LangGraph's `select`), or all. */
const pick = (row: Record<string, unknown>, select: string[] | null | undefined) =>
  select?.length ? Object.fromEntries(select.map((k) => [k, row[k]])) : row;

/**
 * LangGraph's assistants: create, get, update (a new version), delete, search, count,
 * versions, set the latest version, and the graph's drawing and schemas. Every hosted
 * graph has a system assistant whose id is the graph id.
 */
export function assistantRoutes(ctx: ServerContext): Hono {
  const { assistants } = ctx;
  const filterOf = (body: {
    graph_id?: string | null;
    name?: string | null;
    metadata?: Record<string, unknown> | null;
  }) => ({
    graph_id: given(body.graph_id),
    name: given(body.name),
    metadata: given(body.metadata),
  });
  return new Hono()
    .post("/", async (c) => {
      const body = await parseBody(c, createBody);
      return c.json(
        assistants.create({
          graph_id: body.graph_id,
          assistant_id: given(body.assistant_id),
          name: given(body.name),
          description: given(body.description),
          config: given(body.config),
          context: given(body.context),
          metadata: given(body.metadata),
          if_exists: given(body.if_exists),
        }),
      );
    })
    .post("/search", async (c) => {
      const body = await parseBody(c, searchBody);
      const page = assistants.search(filterOf(body), {
        limit: body.limit,
        offset: body.offset,
        sortBy: given(body.sort_by) as never,
        sortOrder: given(body.sort_order),
      });
      const total = assistants.count(filterOf(body));
      if (body.offset + body.limit < total)
        c.header("X-Pagination-Next", String(body.offset + body.limit));
      return c.json(page.map((a) => pick(a as never, body.select)));
    })
    .post("/count", async (c) => {
      const body = await parseBody(c, z.looseObject(filterBody));
      return c.json(assistants.count(filterOf(body)));
    })
    .get("/:assistantId", (c) => c.json(assistants.get(c.req.param("assistantId"))))
    .patch("/:assistantId", async (c) => {
      const body = await parseBody(c, updateBody);
      return c.json(
        assistants.update(c.req.param("assistantId"), {
          graph_id: given(body.graph_id),
          name: given(body.name),
          description: body.description === undefined ? undefined : body.description,
          config: given(body.config),
          context: given(body.context),
          metadata: given(body.metadata),
        }),
      );
    })
    .delete("/:assistantId", (c) => {
      assistants.delete(c.req.param("assistantId"));
      return c.body(null, 204);
    })
    .post("/:assistantId/versions", async (c) => {
      const body = await parseBody(c, versionsBody);
      return c.json(
        assistants.versions(c.req.param("assistantId"), {
          limit: body.limit,
          offset: body.offset,
          ...(body.metadata && { metadata: body.metadata }),
        }),
      );
    })
    .post("/:assistantId/latest", async (c) => {
      const body = await parseBody(c, z.looseObject({ version: z.number().int().min(1) }));
      return c.json(assistants.setLatest(c.req.param("assistantId"), body.version));
    })
    .get("/:assistantId/graph", (c) => {
      const { graph_id } = assistants.get(c.req.param("assistantId"));
      return c.json(ctx.hosted.picture(graph_id));
    })
    .get("/:assistantId/schemas", (c) => {
      const { graph_id } = assistants.get(c.req.param("assistantId"));
      return c.json({
        graph_id,
        input_schema: null,
        output_schema: null,
        state_schema: null,
        config_schema: null,
        context_schema: null,
      });
    });
}
