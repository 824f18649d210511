import { randomUUID } from "node:crypto";
import { Hono } from "hono";
import { z } from "zod";
import type { BackgroundRun } from "../../runs/index.js";
import type { RequestIdentity } from "../auth/identity.js";
import { RequestError } from "../errors.js";
import { parseBody } from "../request-body.js";
import { readRunBody, withOwnWebhook } from "../run-webhook.js";
import { cancelManyBody, runsToCancel } from "../runs-to-cancel.js";
import type { ServerContext } from "../server-context.js";
import { streamRun } from "../sse.js";
import {
  ALL_MODES,
  cancelQuietly,
  forgetRolledBack,
  joinRunStream,
  runBody,
  startRun,
  toWireRun,
  waitForRun,
} from "./runs.js";

/** A stateless run's body: a thread run's, and what becomes of its thread afterwards. */
const statelessBody = runBody.extend({
  on_completion: z.enum(["delete", "keep"]).nullish(),
});
type StatelessBody = z.infer<typeof statelessBody>;

/**
 * LangGraph's runs without a thread (`/runs`, `/runs/stream`, `/runs/wait`, `/runs/batch`,
 * what `RemoteGraph` calls): each runs on a new thread of its own, deleted when the run
 * ends unless `on_completion` is `"keep"` (LangGraph's default is to delete it too). And
 * runs named without their thread: a joined stream (`/runs/:id/stream`), `/runs/cancel`.
 */
export function statelessRunRoutes(ctx: ServerContext): Hono {
  const start = async (
    body: StatelessBody,
    modes: typeof ALL_MODES,
    who: RequestIdentity | undefined,
    headers: Headers,
  ) => {
    const threadId = randomUUID();
    const run = await startRun(
      ctx,
      threadId,
      { ...body, if_not_exists: "create" },
      modes,
      who,
      headers,
    );
    return { run, keep: body.on_completion === "keep" };
  };
  const cleanUp = async (run: BackgroundRun, keep: boolean) => {
    if (!keep) await deleteThreadWhenEnded(ctx, run);
  };
  const later = (run: BackgroundRun, keep: boolean) => {
    cleanUp(run, keep).catch(() => {
      // A thread left behind is found by search and deleted like any other.
    });
  };
  return new Hono()
    .post("/", async (c) => {
      const { run, keep } = await start(
        await readRunBody(c, statelessBody),
        ALL_MODES,
        c.get("identity"),
        c.req.raw.headers,
      );
      later(run, keep);
      return c.json(toWireRun(run));
    })
    .post("/batch", async (c) => {
      const bodies = (await parseBody(c, z.array(statelessBody).min(1).max(100))).map((b) =>
        withOwnWebhook(b, c.req.url),
      );
      const runs = [];
      for (const body of bodies) {
        const { run, keep } = await start(body, ALL_MODES, c.get("identity"), c.req.raw.headers);
        later(run, keep);
        runs.push(toWireRun(run));
      }
      return c.json(runs);
    })
    .post("/wait", async (c) => {
      const body = await readRunBody(c, statelessBody);
      const { run, keep } = await start(body, ALL_MODES, c.get("identity"), c.req.raw.headers);
      const values = await waitForRun(c, ctx, run, body);
      await cleanUp(run, keep);
      return c.json(values);
    })
    .post("/stream", async (c) => {
      const body = await readRunBody(c, statelessBody);
      const { run, keep } = await start(body, ["values"], c.get("identity"), c.req.raw.headers);
      later(run, keep);
      return streamRun(c, ctx.runs, run.runId, {
        ...(body.on_disconnect === "cancel" && { onDisconnect: () => cancelQuietly(ctx, run) }),
      });
    })
    .post("/cancel", async (c) => {
      const action = c.req.query("action") === "rollback" ? "rollback" : "interrupt";
      const runs = await runsToCancel(ctx, await parseBody(c, cancelManyBody));
      for (const run of runs) await ctx.runs.cancel(run.runId, { action });
      if (action === "rollback")
        void forgetRolledBack(
          ctx,
          runs.map((r) => r.runId),
        );
      return c.body(null, 204);
    })
    .get("/:runId/stream", async (c) => {
      const run = await ctx.runs.get(c.req.param("runId"));
      if (run) return joinRunStream(c, ctx, run);
      throw new RequestError(
        404,
        "RUN_NOT_FOUND",
        `No run "${c.req.param("runId")}" (runs.list(threadId) lists a thread's runs).`,
      );
    });
}

/**
 * A run's own thread (a stateless run's, a stateless cron's) deleted once the run has ended
 * and what it ended with has been read.
 */
export async function deleteThreadWhenEnded(ctx: ServerContext, run: BackgroundRun): Promise<void> {
  await ctx.runs.join(run.runId);
  await ctx.checkpointer.deleteThread(run.threadId);
  ctx.events.publish(run.threadId, "deleted");
}
