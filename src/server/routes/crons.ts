// LangGraph's crons API: runs on a schedule, on a thread or each on a new one.
import { Hono } from "hono";
import { z } from "zod";
import type { CronRecord } from "../crons/cron-store.js";
import type { NewCron } from "../crons/crons.js";
import { RequestError } from "../errors.js";
import { parseBody } from "../request-body.js";
import { findThread, type ServerContext } from "../server-context.js";
import { runBody } from "./runs.js";

/** What every cron takes besides its run: when, until when, and what becomes of its threads. */
const timing = {
  schedule: z.string().min(1),
  timezone: z.string().min(1).nullish(),
  end_time: z.string().nullish(),
  on_run_completed: z.enum(["delete", "keep"]).nullish(),
  enabled: z.boolean().nullish(),
};
// A cron starts runs with input; answering a pause is not something to schedule.
const cronCreate = runBody.omit({ command: true }).extend(timing);
const cronUpdate = runBody
  .omit({ command: true, assistant_id: true })
  .extend({ ...timing, schedule: timing.schedule.optional() });
const cronQuery = z.looseObject({
  assistant_id: z.string().nullish(),
  thread_id: z.string().nullish(),
  enabled: z.boolean().nullish(),
  metadata: z.record(z.string(), z.unknown()).nullish(),
  limit: z.number().int().min(1).max(1000).default(10),
  offset: z.number().int().min(0).default(0),
  sort_by: z
    .enum(["cron_id", "assistant_id", "thread_id", "created_at", "updated_at", "next_run_date"])
    .nullish(),
  sort_order: z.enum(["asc", "desc"]).nullish(),
  select: z.array(z.string()).nullish(),
});

/** The cron's fields that are not its run's. */
const OWN = new Set([
  "assistant_id",
  "schedule",
  "timezone",
  "end_time",
  "on_run_completed",
  "enabled",
]);

function newCron(body: z.infer<typeof cronCreate>, threadId: string | null): NewCron {
  return {
    assistant_id: body.assistant_id,
    thread_id: threadId,
    schedule: body.schedule,
    timezone: body.timezone,
    end_time: body.end_time,
    on_run_completed: body.on_run_completed,
    enabled: body.enabled,
    metadata: body.metadata,
    payload: Object.fromEntries(Object.entries(body).filter(([k, v]) => !OWN.has(k) && v != null)),
  };
}

/** A cron as LangGraph's API shows it. */
export function toWireCron(
  cron: CronRecord,
  select?: readonly string[] | null,
): Record<string, unknown> {
  const { creator: _creator, ...wire } = cron;
  if (!select?.length) return wire;
  return Object.fromEntries(Object.entries(wire).filter(([k]) => select.includes(k)));
}

/** `/runs/crons`: create a cron whose runs each get a new thread; search, count, change, delete. */
export function cronRoutes(ctx: ServerContext): Hono {
  return new Hono()
    .post("/", async (c) => {
      const body = await parseBody(c, cronCreate);
      // Each firing starts a new thread, which has nothing to continue from without input.
      if (body.input == null) {
        throw new RequestError(
          400,
          "INVALID_BODY",
          "A cron without a thread starts each run on a new thread, so it needs input (e.g. {}); to continue one thread, create the cron with POST /threads/:id/runs/crons.",
          { fields: [{ path: "input", message: "required for a cron without a thread" }] },
        );
      }
      await ctx.assistants.resolve(body.assistant_id);
      const cron = await ctx.crons.create(newCron(body, null), c.get("identity"));
      return c.json(toWireCron(cron));
    })
    .post("/search", async (c) => {
      const query = await parseBody(c, cronQuery);
      return c.json((await ctx.crons.search(query)).map((cron) => toWireCron(cron, query.select)));
    })
    .post("/count", async (c) => c.json(await ctx.crons.count(await parseBody(c, cronQuery))))
    .patch("/:cronId", async (c) => {
      const body = await parseBody(c, cronUpdate);
      const { schedule, timezone, end_time, on_run_completed, enabled, metadata, ...run } = body;
      const payload = Object.fromEntries(Object.entries(run).filter(([, v]) => v != null));
      const cron = await ctx.crons.update(c.req.param("cronId"), {
        ...(schedule !== undefined && { schedule }),
        ...(timezone !== undefined && { timezone }),
        ...(end_time !== undefined && { end_time }),
        ...(on_run_completed && { on_run_completed }),
        ...(enabled != null && { enabled }),
        ...(metadata && { metadata }),
        payload,
      });
      return c.json(toWireCron(cron));
    })
    .delete("/:cronId", async (c) => {
      await ctx.crons.delete(c.req.param("cronId"));
      return c.body(null, 204);
    });
}

/** `POST /threads/:threadId/runs/crons`: a cron whose runs all go to that thread. */
export function threadCronRoutes(ctx: ServerContext): Hono {
  return new Hono().post("/:threadId/runs/crons", async (c) => {
    const body = await parseBody(c, cronCreate);
    const view = await findThread(ctx, c.req.param("threadId"));
    await ctx.assistants.resolve(body.assistant_id);
    const cron = await ctx.crons.create(newCron(body, view.record.threadId), c.get("identity"));
    return c.json(toWireCron(cron));
  });
}
