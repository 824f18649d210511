// Which runs `runs.cancelMany` (POST /runs/cancel) names: read once, for the route and the auth guard.
import { z } from "zod";
import type { BackgroundRun } from "../runs/index.js";
import { RequestError } from "./errors.js";
import type { ServerContext } from "./server-context.js";

/** The body `runs.cancelMany` sends: runs by id (on one thread, if given), or by status. */
export const cancelManyBody = z.object({
  thread_id: z.string().min(1).nullish(),
  run_ids: z.array(z.string().min(1)).min(1).nullish(),
  status: z.enum(["pending", "running", "all"]).nullish(),
});
export type CancelManyBody = z.infer<typeof cancelManyBody>;

/** Runs are read at most this many a status: a bulk cancel past it is sent again. */
const MOST = 10_000;

/**
 * The runs `body` names: each of `run_ids` (a 404 naming the first unknown one, or one not
 * on `thread_id`, before anything is cancelled), or every run `pending`, `running` or both
 * (`all`), on `thread_id` when given. Ended runs are left out: there is nothing to stop.
 *
 * @example
 * await runsToCancel(ctx, { thread_id: "t1", status: "all" }); // the thread's active runs
 */
export async function runsToCancel(
  ctx: ServerContext,
  body: CancelManyBody,
): Promise<BackgroundRun[]> {
  const threadId = body.thread_id ?? undefined;
  if (body.run_ids) {
    const runs: BackgroundRun[] = [];
    for (const runId of body.run_ids) {
      const run = await ctx.runs.get(runId);
      if (!run || (threadId !== undefined && run.threadId !== threadId))
        throw new RequestError(
          404,
          "RUN_NOT_FOUND",
          `No run "${runId}"${threadId ? ` on thread "${threadId}"` : ""}; nothing was cancelled (runs.list(threadId) lists a thread's runs).`,
        );
      runs.push(run);
    }
    return runs.filter((r) => r.status === "pending" || r.status === "running");
  }
  if (!body.status)
    throw new RequestError(
      400,
      "INVALID_BODY",
      'Say which runs to cancel: run_ids (with thread_id, optionally), or status ("pending", "running" or "all").',
      { fields: [{ path: "status", message: "required without run_ids" }] },
    );
  const statuses = body.status === "all" ? (["pending", "running"] as const) : [body.status];
  const runs: BackgroundRun[] = [];
  for (const status of statuses)
    runs.push(...(await ctx.runs.list({ status, limit: MOST, ...(threadId && { threadId }) })));
  return runs;
}
