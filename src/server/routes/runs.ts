import { randomUUID } from "node:crypto";
import { type Context, Hono } from "hono";
import { z } from "zod";
import { clauses } from "../../errors/sentences.js";
import type { BackgroundRun } from "../../runs/index.js";
import { type RequestIdentity, sharedTokenIdentity } from "../auth/identity.js";
import { commandUpdate } from "../command-update.js";
import { headersForRun } from "../configurable-headers.js";
import { actorOf, recordNotApplied, recordResumeDecisions } from "../decision-audit.js";
import { checkResumeRights } from "../decision-rights.js";
import { RequestError } from "../errors.js";
import {
  createGraphRun,
  type GraphRunRequest,
  STREAM_MODES,
  type StreamMode,
} from "../graph-runs.js";
import { answersOf, tellDecided } from "../resume-decisions.js";
import { reviewAnswerProblems } from "../review-answer.js";
import { readRunBody } from "../run-webhook.js";
import { findThread, type ServerContext, type ThreadView } from "../server-context.js";
import { streamRun } from "../sse.js";
import { toWireValues } from "../wire/messages.js";
import { wireInterrupts } from "../wire/threads.js";

// Modes this server does not speak (e.g. `debug`, `events`) are accepted and send nothing,
// so clients that ask for them by default still work.
const modeSchema = z.string().min(1);
const knownModes = (modes: readonly string[]): StreamMode[] =>
  modes.filter((m): m is StreamMode => (STREAM_MODES as readonly string[]).includes(m));
const breakpoints = z.union([z.literal("*"), z.array(z.string())]).optional();

export const runBody = z.looseObject({
  assistant_id: z.string().min(1),
  input: z.unknown().optional(),
  command: z
    .looseObject({
      resume: z.unknown().optional(),
      update: commandUpdate.nullish(),
      goto: z.union([z.string(), z.array(z.string())]).nullish(),
    })
    .nullish(),
  metadata: z.record(z.string(), z.unknown()).nullish(),
  config: z
    .looseObject({
      configurable: z.record(z.string(), z.unknown()).nullish(),
      recursion_limit: z.number().int().min(1).nullish(),
    })
    .nullish(),
  context: z.unknown().optional(),
  stream_mode: z.union([modeSchema, z.array(modeSchema)]).nullish(),
  /** Stream the subgraphs' events too, each under `<mode>|<namespace>`. */
  stream_subgraphs: z.boolean().nullish(),
  interrupt_before: breakpoints,
  interrupt_after: breakpoints,
  checkpoint_id: z.string().nullish(),
  checkpoint: z.looseObject({ checkpoint_id: z.string().nullish() }).nullish(),
  multitask_strategy: z.enum(["reject", "interrupt", "rollback", "enqueue"]).nullish(),
  if_not_exists: z.enum(["create", "reject"]).nullish(),
  after_seconds: z.number().min(0).max(31_536_000).nullish(),
  on_disconnect: z.enum(["cancel", "continue"]).nullish(),
  /** Posted the run when it ends (see docs/webhooks.md): a URL, or a path of this server. */
  webhook: z
    .union([z.url({ protocol: /^https?$/ }), z.string().regex(/^\/(?![/\\])/)], {
      error: "an http:// or https:// URL, or a path of this server (starting with one /)",
    })
    .nullish(),
});
export type RunBody = z.infer<typeof runBody>;

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

const stringOr = (v: unknown): string | undefined =>
  typeof v === "string" && v.length > 0 ? v : undefined;

// Set by the server, never by a client: the thread and checkpoint come from the route and
// the body's own fields, the user from authentication.
const SERVER_KEYS = new Set(["thread_id", "checkpoint_id", "checkpoint_ns", "langgraph_auth_user"]);

/** The run's `config.configurable` keys that reach its nodes (LangGraph passes them through). */
function passedConfigurable(
  configurable: Record<string, unknown> | null | undefined,
): Record<string, unknown> | undefined {
  if (!configurable) return undefined;
  const kept = Object.entries(configurable).filter(([key]) => !SERVER_KEYS.has(key));
  return kept.length > 0 ? Object.fromEntries(kept) : undefined;
}

/** A run as LangGraph returns it. */
export function toWireRun(run: BackgroundRun): Record<string, unknown> {
  return {
    run_id: run.runId,
    thread_id: run.threadId,
    assistant_id: run.graphId,
    created_at: run.createdAt,
    updated_at: run.updatedAt,
    // LangGraph has no "cancelled": a run stopped through cancel reads "interrupted" there.
    status: run.status === "cancelled" ? "interrupted" : run.status,
    metadata: run.metadata,
    multitask_strategy: run.multitaskStrategy,
    kwargs: {},
    ...(run.error && { error: run.error }),
  };
}

/** Refuse a resume that cannot apply, before any run starts, so the thread stays as it was. */
export async function checkResume(
  view: ThreadView,
  resume: unknown,
  toolSchema: (toolName: string) => z.ZodType | undefined,
  who?: RequestIdentity,
): Promise<void> {
  if (view.status !== "interrupted") {
    throw new RequestError(
      409,
      "NOT_PAUSED",
      `Thread "${view.record.threadId}" is ${view.status}, not waiting for a resume; nothing was run. Read its state to see where it is.`,
    );
  }
  const answers = answersOf(view.record.interrupts, resume);
  if (answers.length === 0) {
    throw new RequestError(
      400,
      "INVALID_RESUME",
      `Thread "${view.record.threadId}" waits on ${view.record.interrupts.length} interrupts; resume with an object keyed by interrupt id (${view.record.interrupts.map((i) => i.id).join(", ")}). The thread is unchanged.`,
    );
  }
  for (const [interrupt, answer] of answers) {
    const fields = await reviewAnswerProblems(interrupt, answer, toolSchema);
    if (fields.length > 0) {
      throw new RequestError(
        400,
        "INVALID_RESUME",
        `The answer to interrupt ${interrupt.id} was refused: ${clauses(fields.map((f) => `${f.path}: ${f.message}`))} The thread is unchanged.`,
        { fields },
      );
    }
    checkResumeRights(interrupt, answer, who);
  }
}

/** Check a run request against the thread and start it. */
export async function startRun(
  ctx: ServerContext,
  threadId: string,
  body: RunBody,
  defaultModes: readonly StreamMode[],
  who: RequestIdentity | undefined,
  /** The request's headers: those the server's rule lets through reach the nodes. */
  headers?: Headers,
): Promise<BackgroundRun> {
  const assistant = await ctx.assistants.resolve(body.assistant_id);
  const { graphId } = assistant;
  const strategy = body.multitask_strategy ?? "reject";
  let view = await findThread(ctx, threadId).catch((error) => {
    if (body.if_not_exists === "create") return undefined;
    throw error;
  });
  if (!view) {
    // Recorded at once where the store can: a second request finds the thread while this
    // run waits (a delayed or queued run writes nothing until it starts).
    if (ctx.checkpointer.createThread) await ctx.checkpointer.createThread(threadId, {});
    else ctx.newThreads.add(threadId, {});
    view = await findThread(ctx, threadId);
  }
  if (view.graphId !== undefined && view.graphId !== graphId) {
    throw new RequestError(
      409,
      "GRAPH_MISMATCH",
      `Thread "${threadId}" belongs to graph "${view.graphId}"; run an assistant of that graph on it, or use a new thread.`,
    );
  }
  if (view.status === "busy" && strategy === "reject") {
    throw new RequestError(
      409,
      "THREAD_BUSY",
      `Thread "${threadId}" is running; join or cancel that run first, or send multitask_strategy "enqueue", "interrupt" or "rollback".`,
    );
  }
  const resume =
    body.command && "resume" in body.command ? { value: body.command.resume } : undefined;
  // An answer is checked against what waits now; a queued one is checked when it runs.
  if (resume && view.status !== "busy") {
    await checkResume(view, resume.value, (name) => ctx.hosted.toolSchema(graphId, name), who);
  }
  const modes = body.stream_mode
    ? knownModes(Array.isArray(body.stream_mode) ? body.stream_mode : [body.stream_mode])
    : defaultModes;
  // The assistant's context under the run's (LangGraph merges them key by key).
  const context =
    Object.keys(assistant.context).length === 0
      ? body.context
      : isRecord(body.context) || body.context === undefined || body.context === null
        ? { ...assistant.context, ...(isRecord(body.context) ? body.context : {}) }
        : body.context;
  const metadata = { ...(ctx.newThreads.take(threadId) ?? {}), ...(body.metadata ?? {}) };
  const checkpointId =
    body.checkpoint_id ??
    body.checkpoint?.checkpoint_id ??
    stringOr(body.config?.configurable?.checkpoint_id);
  // The assistant's configurable under the run's (LangGraph merges the two configs).
  const assistantConfigurable = assistant.config.configurable;
  const configurable = passedConfigurable({
    ...(isRecord(assistantConfigurable) ? assistantConfigurable : {}),
    ...body.config?.configurable,
    ...headersForRun(headers, ctx.configurableHeaders),
  });
  const all = (b: RunBody["interrupt_before"], graphId: string) =>
    b === "*" ? ctx.hosted.get(graphId).nodes : (b ?? undefined);
  const request: GraphRunRequest = {
    graphId,
    threadId,
    input: body.input,
    ...(resume && { resume }),
    ...(body.command?.update && { update: body.command.update }),
    ...(body.command?.goto && { goto: body.command.goto }),
    streamModes: modes,
    ...(body.stream_subgraphs && { streamSubgraphs: true }),
    ...(context !== undefined && { context }),
    ...(Object.keys(metadata).length > 0 && { metadata }),
    ...(body.interrupt_before && {
      interruptBefore: all(body.interrupt_before, graphId),
    }),
    ...(body.interrupt_after && { interruptAfter: all(body.interrupt_after, graphId) }),
    ...(checkpointId && { checkpointId }),
    ...(configurable && { configurable }),
    ...(body.config?.recursion_limit && { recursionLimit: body.config.recursion_limit }),
    ...(body.after_seconds && { delayMs: Math.round(body.after_seconds * 1000) }),
    ...(who && { authUser: who.user }),
    ...(body.webhook && { webhook: body.webhook }),
    multitaskStrategy: strategy,
    // What the resume was checked against: a concurrent resume that got there first makes
    // this one a 409, wherever the runs execute.
    ...(resume &&
      view.status === "interrupted" &&
      strategy === "reject" && { expectedCheckpointId: view.record.latestCheckpointId }),
  };
  // Under rollback, LangGraph deletes the runs it rolls back: those active now.
  const rolledBack =
    strategy === "rollback" && view.status === "busy" ? await activeRuns(ctx, threadId) : [];
  // A resume of what waits is a decision: recorded in the audit log before its run exists.
  const caller = who ?? sharedTokenIdentity(undefined);
  const runId = randomUUID();
  const decided =
    resume && view.status === "interrupted"
      ? await recordResumeDecisions(
          ctx.audit,
          view.record,
          answersOf(view.record.interrupts, resume.value),
          caller,
          runId,
        )
      : [];
  const recorded = decided.length > 0 && {
    decisionsRecorded: { toolReviews: decided.some((d) => (d.proposed ?? []).length > 0) },
  };
  const run = await createGraphRun(ctx.hosted, ctx.runs, { ...request, runId, ...recorded }).catch(
    async (error: unknown) => {
      for (const d of decided)
        await recordNotApplied(ctx.audit, d, actorOf(caller), (error as Error).message);
      throw error;
    },
  );
  // Told once the decision's run is queued, as the inbox's decisions are.
  tellDecided(ctx.runs.webhooks, graphId, view.record, decided);
  if (view.graphId === undefined) {
    // The thread belongs to this graph from its first run on, as LangGraph records it:
    // its state has a shape even while the run waits (or after it was cancelled unrun).
    await ctx.checkpointer.updateThreadMetadata(threadId, { graph_id: graphId });
  }
  if (rolledBack.length > 0) void forgetRolledBack(ctx, rolledBack);
  ctx.events.publish(threadId, "started");
  return run;
}

/** The ids of the thread's pending and running runs. */
async function activeRuns(ctx: ServerContext, threadId: string): Promise<string[]> {
  const [pending, running] = await Promise.all([
    ctx.runs.list({ threadId, status: "pending", limit: 1000 }),
    ctx.runs.list({ threadId, status: "running", limit: 1000 }),
  ]);
  return [...pending, ...running].map((r) => r.runId);
}

/**
 * Delete rolled-back runs once they have stopped, as LangGraph does (its rolled-back run is
 * gone, not kept cancelled). A run that ended otherwise before the rollback reached it is
 * kept. Never throws: a run it could not delete is left as it ended (`cancelled`).
 */
export async function forgetRolledBack(ctx: ServerContext, runIds: string[]): Promise<void> {
  await Promise.all(
    runIds.map(async (runId) => {
      const ended = await ctx.runs.join(runId).catch(() => undefined);
      if (ended?.status === "cancelled") await ctx.runs.delete(runId).catch(() => false);
    }),
  );
}

/** The client that asked for the run went away: stop it (it reads "interrupted" after). */
export function cancelQuietly(ctx: ServerContext, run: BackgroundRun): void {
  ctx.runs.cancel(run.runId).catch(() => undefined);
}

/**
 * What a run ended with, once it has (`runs.wait`); under `on_disconnect: "cancel"` the run
 * is stopped if the client goes away first.
 */
export async function waitForRun(
  c: Context,
  ctx: ServerContext,
  run: BackgroundRun,
  body: Pick<RunBody, "on_disconnect">,
): Promise<Record<string, unknown>> {
  const gone = c.req.raw.signal;
  const onGone = () => cancelQuietly(ctx, run);
  if (body.on_disconnect === "cancel") gone.addEventListener("abort", onGone, { once: true });
  try {
    return await finalValues(ctx, await ctx.runs.join(run.runId));
  } finally {
    gone.removeEventListener("abort", onGone);
  }
}

/**
 * A run's stream joined (`runs.joinStream`, with or without its thread in the path): what
 * it streamed after `Last-Event-ID`, then the rest, in the `stream_mode`s asked; with
 * `cancel_on_disconnect=1` the run is stopped when the client goes away, as LangGraph does.
 */
export function joinRunStream(c: Context, ctx: ServerContext, run: BackgroundRun): Response {
  const cancelOnDisconnect = ["1", "true"].includes(c.req.query("cancel_on_disconnect") ?? "");
  return streamRun(c, ctx.runs, run.runId, {
    modes: c.req.queries("stream_mode") ?? [],
    ended: async () => finalValues(ctx, await ctx.runs.join(run.runId)),
    ...(cancelOnDisconnect && { onDisconnect: () => cancelQuietly(ctx, run) }),
  });
}

/** What `runs.wait` and `runs.join` return: the thread's values, with `__interrupt__` when paused. */
export async function finalValues(
  ctx: ServerContext,
  run: BackgroundRun,
): Promise<Record<string, unknown>> {
  if (run.status === "error") {
    return { __error__: { error: run.error?.name ?? "Error", message: run.error?.message ?? "" } };
  }
  const state = await ctx.hosted
    .get(run.graphId)
    .getState({ configurable: { thread_id: run.threadId } });
  const values = toWireValues(state.values) as Record<string, unknown>;
  const interrupts = wireInterrupts(state.interrupts);
  return interrupts.length > 0 ? { ...values, __interrupt__: interrupts } : values;
}

export const ALL_MODES: readonly StreamMode[] = ["values", "updates", "messages-tuple", "custom"];

/**
 * LangGraph's runs on a thread: create (background), wait, stream (SSE), list, get, join,
 * join stream, cancel.
 */
export function runRoutes(ctx: ServerContext): Hono {
  const location = (run: BackgroundRun) => `/threads/${run.threadId}/runs/${run.runId}`;
  const endedWith = async (run: BackgroundRun) => finalValues(ctx, await ctx.runs.join(run.runId));
  const known = async (threadId: string, runId: string): Promise<BackgroundRun> => {
    const run = await ctx.runs.get(runId);
    if (run && run.threadId === threadId) return run;
    throw new RequestError(
      404,
      "RUN_NOT_FOUND",
      `Thread "${threadId}" has no run "${runId}" (runs.list(threadId) lists its runs).`,
    );
  };
  // A run of the thread in the path, as the request's caller, with its headers.
  const start = (c: Context, body: RunBody, modes: readonly StreamMode[]) =>
    startRun(ctx, c.req.param("threadId")!, body, modes, c.get("identity"), c.req.raw.headers);
  return new Hono()
    .post("/:threadId/runs", async (c) => {
      const body = await readRunBody(c, runBody);
      const run = await start(c, body, ALL_MODES);
      c.header("Content-Location", location(run));
      return c.json(toWireRun(run));
    })
    .post("/:threadId/runs/wait", async (c) => {
      const body = await readRunBody(c, runBody);
      const run = await start(c, body, ALL_MODES);
      c.header("Content-Location", location(run));
      return c.json(await waitForRun(c, ctx, run, body));
    })
    .post("/:threadId/runs/stream", async (c) => {
      const body = await readRunBody(c, runBody);
      const run = await start(c, body, ["values"]);
      return streamRun(c, ctx.runs, run.runId, {
        headers: { "Content-Location": location(run) },
        ended: () => endedWith(run),
        ...(body.on_disconnect === "cancel" && { onDisconnect: () => cancelQuietly(ctx, run) }),
      });
    })
    .get("/:threadId/runs", async (c) => {
      const limit = Math.min(Math.max(Number(c.req.query("limit") ?? 10) || 10, 1), 1000);
      const status = c.req.query("status") as BackgroundRun["status"] | undefined;
      const threadId = c.req.param("threadId");
      const of = (s?: BackgroundRun["status"]) =>
        ctx.runs.list({ threadId, limit, ...(s && { status: s }) });
      // "interrupted" on the wire is ours "interrupted" or "cancelled" (see toWireRun).
      const runs =
        status === "interrupted"
          ? [...(await of("interrupted")), ...(await of("cancelled"))]
              .sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0))
              .slice(0, limit)
          : await of(status);
      return c.json(runs.map(toWireRun));
    })
    .get("/:threadId/runs/:runId", async (c) =>
      c.json(toWireRun(await known(c.req.param("threadId"), c.req.param("runId")))),
    )
    .get("/:threadId/runs/:runId/join", async (c) => {
      const run = await known(c.req.param("threadId"), c.req.param("runId"));
      return c.json(await finalValues(ctx, await ctx.runs.join(run.runId)));
    })
    .get("/:threadId/runs/:runId/stream", async (c) =>
      joinRunStream(c, ctx, await known(c.req.param("threadId"), c.req.param("runId"))),
    )
    .post("/:threadId/runs/:runId/cancel", async (c) => {
      const run = await known(c.req.param("threadId"), c.req.param("runId"));
      const action = c.req.query("action") === "rollback" ? "rollback" : "interrupt";
      await ctx.runs.cancel(run.runId, { action });
      const gone = action === "rollback" ? forgetRolledBack(ctx, [run.runId]) : undefined;
      if (c.req.query("wait") === "1" || c.req.query("wait") === "true") {
        await (gone ?? ctx.runs.join(run.runId));
        return c.body(null, 204);
      }
      return c.body(null, 202);
    })
    .delete("/:threadId/runs/:runId", async (c) => {
      const run = await known(c.req.param("threadId"), c.req.param("runId"));
      if (!(await ctx.runs.delete(run.runId))) {
        throw new RequestError(
          409,
          "RUN_ACTIVE",
          `Run "${run.runId}" is ${run.status}; cancel it (or wait for it to end), then delete it.`,
        );
      }
      return c.body(null, 204);
    });
}
