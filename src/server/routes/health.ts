import { Hono } from "hono";
import type { ServerContext } from "../server-context.js";

/** `GET /ok`: liveness, answered before authentication so probes need no token. */
export function healthRoutes(): Hono {
  return new Hono().get("/ok", (c) => c.json({ ok: true }));
}

/** `GET /info`: what this server is and hosts; behind authentication, as the rest of the API. */
export function infoRoutes(ctx: ServerContext): Hono {
  return new Hono().get("/info", (c) =>
    c.json({
      version: "stateweaver",
      graphs: ctx.hosted.ids,
      flags: { assistants: true, crons: true, langsmith: false },
    }),
  );
}
