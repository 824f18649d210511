import { Hono } from "hono";
import type { ServerContext } from "../server-context.js";

/** `GET /ok` (liveness) and `GET /info` (what this server is and hosts). */
export function healthRoutes(ctx: ServerContext): Hono {
  return new Hono()
    .get("/ok", (c) => c.json({ ok: true }))
    .get("/info", (c) =>
      c.json({
        version: "stateweaver",
        graphs: ctx.hosted.ids,
        flags: { assistants: true, crons: false, langsmith: false },
      }),
    );
}
