import { randomUUID } from "node:crypto";
import { Hono } from "hono";
import { z } from "zod";
import type { CompiledGraph } from "../../index.js";
import { RequestError } from "../errors.js";
import { parseBody } from "../request-body.js";
import { findThread, type ServerContext, type ThreadView, viewOf } from "../server-context.js";
import { fromWireValues } from "../wire/messages.js";
import { toWireState, toWireThread } from "../wire/threads.js";

const metadataSchema = z.record(z.string(), z.unknown());
const statusSchema = z.enum(["idle", "busy", "interrupted", "error"]);

const createBody = z.looseObject({
  thread_id: z.string().min(1).max(200).optional(),
  metadata: metadataSchema.optional(),
  if_exists: z.enum(["raise", "do_nothing"]).optional(),
});

const searchBody = z.looseObject({
  metadata: metadataSchema.nullish(),
  status: statusSchema.nullish(),
  ids: z.array(z.string()).nullish(),
  limit: z.number().int().min(1).max(1000).default(10),
  offset: z.number().int().min(0).max(10_000).default(0),
});

const checkpointRef = z.union([
  z.string(),
  z.looseObject({ checkpoint_id: z.string().optional() }),
  z.looseObject({ configurable: z.looseObject({ checkpoint_id: z.string().optional() }) }),
]);

const refId = (ref: z.infer<typeof checkpointRef> | null | undefined): string | undefined => {
  if (ref == null) return undefined;
  if (typeof ref === "string") return ref;
  if ("configurable" in ref) return (ref.configurable as { checkpoint_id?: string }).checkpoint_id;
  return (ref as { checkpoint_id?: string }).checkpoint_id;
};

const updateBody = z.looseObject({
  values: z.unknown(),
  as_node: z.string().optional(),
  checkpoint_id: z.string().optional(),
  checkpoint: checkpointRef.nullish(),
});

const historyBody = z.looseObject({
  limit: z.number().int().min(1).max(1000).default(10),
  before: checkpointRef.nullish(),
  checkpoint: checkpointRef.nullish(),
});

function graphOf(ctx: ServerContext, view: ThreadView): CompiledGraph<any, any> {
  if (view.graphId !== undefined) return ctx.hosted.get(view.graphId);
  const [only] = ctx.hosted.ids;
  if (ctx.hosted.ids.length === 1 && only !== undefined) return ctx.hosted.get(only);
  throw new RequestError(
    409,
    "THREAD_HAS_NO_GRAPH",
    `Thread "${view.record.threadId}" has not run any graph yet, so its state has no shape. Start a run on it first.`,
  );
}

/** The thread as LangGraph returns it, with its current values. */
async function wireThread(ctx: ServerContext, view: ThreadView) {
  let values: unknown;
  if (!view.unwritten && view.graphId !== undefined) {
    const state = await ctx.hosted
      .get(view.graphId)
      .getState({ configurable: { thread_id: view.record.threadId } });
    values = state.values;
  }
  return toWireThread(view.record, { graphId: view.graphId, status: view.status, values });
}

/**
 * LangGraph's threads: create, get, search (status, metadata), delete, state (get,
 * update), history. Thread records come from the store's thread index.
 */
export function threadRoutes(ctx: ServerContext): Hono {
  const threadId = (c: { req: { param(name: "threadId"): string } }) => c.req.param("threadId");
  return new Hono()
    .post("/", async (c) => {
      const body = await parseBody(c, createBody);
      const id = body.thread_id ?? randomUUID();
      const existing =
        (await ctx.checkpointer.getThread(id)) ?? ctx.newThreads.get(id) ?? undefined;
      if (existing) {
        if (body.if_exists === "do_nothing")
          return c.json(await wireThread(ctx, await findThread(ctx, id)));
        throw new RequestError(409, "THREAD_EXISTS", `Thread "${id}" already exists.`);
      }
      const metadata = Object.fromEntries(
        Object.entries(body.metadata ?? {}).filter(([, v]) => v !== undefined && v !== null),
      );
      // Stored at once where the store can (another process, or this one after a restart,
      // finds it); else held in memory until its first run.
      let stored = true;
      if (ctx.checkpointer.createThread) stored = await ctx.checkpointer.createThread(id, metadata);
      else ctx.newThreads.add(id, metadata);
      if (!stored) {
        if (body.if_exists === "do_nothing")
          return c.json(await wireThread(ctx, await findThread(ctx, id)));
        throw new RequestError(409, "THREAD_EXISTS", `Thread "${id}" already exists.`);
      }
      return c.json(await wireThread(ctx, await findThread(ctx, id)));
    })
    .post("/search", async (c) => {
      const body = await parseBody(c, searchBody);
      const wanted = body.offset + body.limit;
      const views: ThreadView[] = [];
      if (body.ids) {
        for (const id of body.ids) {
          const view = await findThread(ctx, id).catch(() => undefined);
          if (view) views.push(view);
        }
      } else {
        let cursor: string | undefined;
        do {
          const page = await ctx.checkpointer.searchThreads({
            ...(body.status && { status: body.status }),
            ...(body.metadata && { metadata: body.metadata }),
            limit: Math.min(1000, wanted),
            ...(cursor && { cursor }),
          });
          for (const record of page.threads) {
            const view = await viewOf(ctx, record);
            if (!body.status || view.status === body.status) views.push(view);
          }
          cursor = page.nextCursor ?? undefined;
        } while (cursor && views.length < wanted);
      }
      const page = views.slice(body.offset, wanted);
      return c.json(await Promise.all(page.map((v) => wireThread(ctx, v))));
    })
    .post("/:threadId/copy", async (c) => {
      const view = await findThread(ctx, threadId(c));
      const id = randomUUID();
      if (view.unwritten) {
        // Nothing has run on it yet: the copy is a new thread with the same metadata.
        if (ctx.checkpointer.createThread)
          await ctx.checkpointer.createThread(id, view.record.metadata);
        else ctx.newThreads.add(id, view.record.metadata);
      } else {
        await ctx.checkpointer.copyThread(view.record.threadId, id);
      }
      ctx.events.publish(id, "started");
      return c.json(await wireThread(ctx, await findThread(ctx, id)));
    })
    .get("/:threadId", async (c) =>
      c.json(await wireThread(ctx, await findThread(ctx, threadId(c)))),
    )
    .delete("/:threadId", async (c) => {
      const id = threadId(c);
      await findThread(ctx, id);
      for (let active = await ctx.runs.activeOn(id); active; active = await ctx.runs.activeOn(id)) {
        await ctx.runs.cancel(active.runId, { wait: true });
      }
      ctx.newThreads.take(id);
      await ctx.checkpointer.deleteThread(id);
      ctx.events.publish(id, "deleted");
      return c.body(null, 204);
    })
    .get("/:threadId/state", async (c) => {
      const view = await findThread(ctx, threadId(c));
      const graph = graphOf(ctx, view);
      const state = await graph.getState(
        { configurable: { thread_id: view.record.threadId } },
        { subgraphs: c.req.query("subgraphs") === "true" },
      );
      return c.json(toWireState(state));
    })
    .get("/:threadId/state/:checkpointId", async (c) => {
      const view = await findThread(ctx, threadId(c));
      const state = await graphOf(ctx, view).getState({
        configurable: {
          thread_id: view.record.threadId,
          checkpoint_id: c.req.param("checkpointId"),
        },
      });
      return c.json(toWireState(state));
    })
    .post("/:threadId/state", async (c) => {
      const body = await parseBody(c, updateBody);
      const view = await findThread(ctx, threadId(c));
      if (view.status === "busy") {
        throw new RequestError(
          409,
          "THREAD_BUSY",
          `Thread "${view.record.threadId}" is running; update it when the run ends.`,
        );
      }
      const graph = graphOf(ctx, view);
      const values = fromWireValues(body.values);
      if (values.badIndex !== undefined) {
        throw new RequestError(
          400,
          "INVALID_BODY",
          `values.messages[${values.badIndex}] is not a message.`,
          {
            fields: [{ path: `values.messages.${values.badIndex}`, message: "not a message" }],
          },
        );
      }
      const checkpointId = body.checkpoint_id ?? refId(body.checkpoint);
      const config = await graph.updateState(
        {
          configurable: {
            thread_id: view.record.threadId,
            ...(checkpointId && { checkpoint_id: checkpointId }),
          },
        },
        (values.values ?? null) as never,
        body.as_node,
      );
      ctx.newThreads.take(view.record.threadId);
      ctx.events.publish(view.record.threadId, "decided");
      return c.json({
        checkpoint: {
          thread_id: view.record.threadId,
          checkpoint_ns: "",
          checkpoint_id: config.configurable?.checkpoint_id ?? null,
          checkpoint_map: null,
        },
      });
    })
    .post("/:threadId/history", async (c) => {
      const body = await parseBody(c, historyBody);
      const view = await findThread(ctx, threadId(c));
      if (view.unwritten) return c.json([]);
      const graph = graphOf(ctx, view);
      const before = refId(body.before);
      const out: unknown[] = [];
      for await (const s of graph.getStateHistory(
        { configurable: { thread_id: view.record.threadId } },
        { limit: body.limit, ...(before && { before }) },
      )) {
        out.push(toWireState(s));
      }
      return c.json(out);
    });
}
