import { Hono } from "hono";
import { z } from "zod";
import { parseBody } from "../request-body.js";
import type { ServerContext } from "../server-context.js";

const searchBody = z.looseObject({
  graph_id: z.string().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  limit: z.number().int().min(1).max(1000).default(10),
  offset: z.number().int().min(0).default(0),
});

/**
 * LangGraph's assistants, read-only: one per hosted graph, its id the graph id.
 * `POST /assistants/search`, `GET /assistants/:id`, `GET /assistants/:id/graph`.
 */
export function assistantRoutes(ctx: ServerContext): Hono {
  return new Hono()
    .post("/search", async (c) => {
      const body = await parseBody(c, searchBody);
      const ids = ctx.hosted.ids.filter(
        (id) => body.graph_id === undefined || id === body.graph_id,
      );
      const page = ids.slice(body.offset, body.offset + body.limit);
      const next = body.offset + body.limit < ids.length ? String(body.offset + body.limit) : null;
      if (next) c.header("X-Pagination-Next", next);
      return c.json(page.map((id) => ctx.hosted.assistant(id)));
    })
    .get("/:assistantId", (c) => c.json(ctx.hosted.assistant(c.req.param("assistantId"))))
    .get("/:assistantId/graph", (c) => c.json(ctx.hosted.picture(c.req.param("assistantId"))))
    .get("/:assistantId/schemas", (c) => {
      ctx.hosted.get(c.req.param("assistantId"));
      return c.json({
        graph_id: c.req.param("assistantId"),
        input_schema: null,
        output_schema: null,
        state_schema: null,
        config_schema: null,
        context_schema: null,
      });
    });
}
