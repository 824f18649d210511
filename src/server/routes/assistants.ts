import { Hono } from "hono";
import { z } from "zod";
import { ASSISTANT_SORT_KEYS } from "../assistants.js";
import { RequestError } from "../errors.js";
import { graphSchemas, subgraphsOf } from "../graph-schemas.js";
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
 * versions, set the latest version, and the graph's drawing, schemas and subgraphs. Every hosted
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
        await assistants.create({
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
      const page = await assistants.search(filterOf(body), {
        limit: body.limit,
        offset: body.offset,
        sortBy: given(body.sort_by) as never,
        sortOrder: given(body.sort_order),
      });
      const total = await assistants.count(filterOf(body));
      if (body.offset + body.limit < total)
        c.header("X-Pagination-Next", String(body.offset + body.limit));
      return c.json(page.map((a) => pick(a as never, body.select)));
    })
    .post("/count", async (c) => {
      const body = await parseBody(c, z.looseObject(filterBody));
      return c.json(await assistants.count(filterOf(body)));
    })
    .get("/:assistantId", async (c) => c.json(await assistants.get(c.req.param("assistantId"))))
    .patch("/:assistantId", async (c) => {
      const body = await parseBody(c, updateBody);
      return c.json(
        await assistants.update(c.req.param("assistantId"), {
          graph_id: given(body.graph_id),
          name: given(body.name),
          description: body.description === undefined ? undefined : body.description,
          config: given(body.config),
          context: given(body.context),
          metadata: given(body.metadata),
        }),
      );
    })
    .delete("/:assistantId", async (c) => {
      await assistants.delete(c.req.param("assistantId"));
      return c.body(null, 204);
    })
    .post("/:assistantId/versions", async (c) => {
      const body = await parseBody(c, versionsBody);
      return c.json(
        await assistants.versions(c.req.param("assistantId"), {
          limit: body.limit,
          offset: body.offset,
          ...(body.metadata && { metadata: body.metadata }),
        }),
      );
    })
    .post("/:assistantId/latest", async (c) => {
      const body = await parseBody(c, z.looseObject({ version: z.number().int().min(1) }));
      return c.json(await assistants.setLatest(c.req.param("assistantId"), body.version));
    })
    .get("/:assistantId/graph", async (c) => {
      const { graph_id } = await assistants.get(c.req.param("assistantId"));
      return c.json(ctx.hosted.picture(graph_id, xrayOf(c.req.query("xray"))));
    })
    .get("/:assistantId/schemas", async (c) => {
      const { graph_id } = await assistants.get(c.req.param("assistantId"));
      const schemas = graphSchemas(ctx.hosted.get(graph_id));
      return c.json({
        graph_id,
        input_schema: schemas.input,
        output_schema: schemas.output,
        state_schema: schemas.state,
        config_schema: schemas.config,
        // LangGraph.js cannot tell a config schema from a context schema: both are the one.
        context_schema: schemas.config,
      });
    })
    .get("/:assistantId/subgraphs/:namespace?", async (c) => {
      const { graph_id } = await assistants.get(c.req.param("assistantId"));
      const found = subgraphsOf(
        ctx.hosted.get(graph_id),
        c.req.param("namespace") || undefined,
        isYes(c.req.query("recurse")),
      );
      return c.json(Object.fromEntries(found.map(([ns, graph]) => [ns, graphSchemas(graph)])));
    });
}

/** A query flag as LangGraph reads one: "true", "1" or "yes" (any case) is true, else false. */
const isYes = (value: string | undefined) =>
  value !== undefined && ["true", "1", "yes"].includes(value.toLowerCase());

/**
 * `xray` as the SDK documents it: a flag, or how many levels of subgraphs to draw inside.
 * "1" is one level (LangGraph.js reads it as `true`, which draws every level).
 */
function xrayOf(value: string | undefined): boolean | number {
  if (value === undefined || value === "") return false;
  const lower = value.toLowerCase();
  if (lower === "true" || lower === "yes") return true;
  if (lower === "false" || lower === "no") return false;
  if (/^\d+$/.test(value)) return Number(value);
  throw new RequestError(
    400,
    "INVALID_QUERY",
    `xray must be true, false or a depth (a whole number of subgraph levels); got "${value}".`,
  );
}
