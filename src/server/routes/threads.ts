import { randomUUID } from "node:crypto";
import { Hono } from "hono";
import { z } from "zod";
import { jsonContains } from "../../checkpoint/index.js";
import { Command, type CompiledGraph } from "../../index.js";
import { commandUpdate } from "../command-update.js";
import { RequestError } from "../errors.js";
import { parseBody } from "../request-body.js";
import { findThread, type ServerContext, type ThreadView } from "../server-context.js";
import { extracted, extractSchema, readsValues } from "../thread-extract.js";
import {
  countThreads,
  currentValues,
  type FoundThread,
  searchThreads,
  THREAD_SORTS,
} from "../thread-search.js";
import { fromWireValues, holdsMessages } from "../wire/messages.js";
import { toWireState, toWireThread } from "../wire/threads.js";
import { joinThreadStream } from "./thread-stream.js";

const metadataSchema = z.record(z.string(), z.unknown());
const statusSchema = z.enum(["idle", "busy", "interrupted", "error"]);

/** One update of a superstep, as LangGraph's `ThreadCreate` takes it (`command`: an update and a goto). */
const superstepUpdate = z.looseObject({
  values: z.unknown().optional(),
  command: z
    .looseObject({
      update: commandUpdate.nullish(),
      goto: z.union([z.string(), z.array(z.string())]).nullish(),
      resume: z.unknown().optional(),
    })
    .nullish(),
  as_node: z.string().min(1),
});

const createBody = z.looseObject({
  thread_id: z.string().min(1).max(200).optional(),
  metadata: metadataSchema.optional(),
  if_exists: z.enum(["raise", "do_nothing"]).optional(),
  supersteps: z
    .array(z.looseObject({ updates: z.array(superstepUpdate).min(1) }))
    .max(1000)
    .nullish(),
});

const patchBody = z.looseObject({ metadata: metadataSchema.nullish() });

const countBody = z.looseObject({
  metadata: metadataSchema.nullish(),
  values: metadataSchema.nullish(),
  status: statusSchema.nullish(),
});

const THREAD_FIELDS = [
  "thread_id",
  "created_at",
  "updated_at",
  "state_updated_at",
  "metadata",
  "config",
  "context",
  "status",
  "values",
  "interrupts",
  "error",
] as const;

const searchBody = countBody.extend({
  ids: z.array(z.string()).nullish(),
  limit: z.number().int().min(1).max(1000).default(10),
  offset: z.number().int().min(0).max(10_000).default(0),
  sort_by: z.enum(THREAD_SORTS).nullish(),
  sort_order: z.enum(["asc", "desc"]).nullish(),
  select: z.array(z.enum(THREAD_FIELDS)).min(1).nullish(),
  /** Values picked by path into each thread's `extracted` (LangGraph Platform's). */
  extract: extractSchema.nullish(),
});

const pruneBody = z.looseObject({
  thread_ids: z.array(z.string().min(1)).max(1000),
  strategy: z.enum(["delete", "keep_latest"]).default("delete"),
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

/** The subgraph namespace a checkpoint object names (a subgraph task's `checkpoint`), if any. */
const refNs = (ref: z.infer<typeof checkpointRef> | null | undefined): string | undefined => {
  if (ref == null || typeof ref === "string") return undefined;
  const at = ("configurable" in ref ? ref.configurable : ref) as { checkpoint_ns?: unknown };
  return typeof at.checkpoint_ns === "string" && at.checkpoint_ns !== ""
    ? at.checkpoint_ns
    : undefined;
};

/** `POST /threads/:id/state/checkpoint`: which checkpoint (its id, its namespace) to show. */
const stateAtBody = z.looseObject({
  checkpoint: z.looseObject({
    checkpoint_id: z.string().nullish(),
    checkpoint_ns: z.string().nullish(),
  }),
  subgraphs: z.boolean().nullish(),
});

const updateBody = z.looseObject({
  values: z.unknown(),
  as_node: z.string().optional(),
  checkpoint_id: z.string().optional(),
  checkpoint: checkpointRef.nullish(),
});

/** `PATCH /threads/:id/state` (the SDK's `patchState`): metadata for one checkpoint, the latest by default. */
const patchStateBody = z.looseObject({
  metadata: metadataSchema,
  checkpoint_id: z.string().min(1).nullish(),
  checkpoint: checkpointRef.nullish(),
});

const historyBody = z.looseObject({
  limit: z.number().int().min(1).max(1000).default(10),
  before: checkpointRef.nullish(),
  metadata: metadataSchema.nullish(),
  checkpoint: z
    .looseObject({ checkpoint_ns: z.string().nullish(), checkpoint_id: z.string().nullish() })
    .nullish(),
});

/**
 * The graph a thread's state is read or updated with. A graph factory's is built from the
 * config of the thread's last run (as LangGraph rebuilds it from the thread's config), so its
 * nodes are the ones that run wrote.
 */
export async function graphOf(
  ctx: ServerContext,
  view: ThreadView,
  access: "threads.read" | "threads.update" = "threads.read",
): Promise<CompiledGraph<any, any>> {
  const graphId = graphIdOf(ctx, view);
  if (!ctx.hosted.isFactory(graphId)) return ctx.hosted.get(graphId);
  const [last] = await ctx.runs.queue.list({ threadId: view.record.threadId, limit: 1 });
  const configurable = { ...last?.request.configurable, thread_id: view.record.threadId };
  return ctx.hosted.build(
    graphId,
    { configurable },
    { accessContext: access, executionRuntime: null },
  );
}

function graphIdOf(ctx: ServerContext, view: ThreadView): string {
  if (view.graphId !== undefined) return view.graphId;
  const [only] = ctx.hosted.ids;
  if (ctx.hosted.ids.length === 1 && only !== undefined) return only;
  throw new RequestError(
    409,
    "THREAD_HAS_NO_GRAPH",
    `Thread "${view.record.threadId}" has not run any graph yet, so its state has no shape. Start a run on it first.`,
  );
}

/** The graph's nodes that run a subgraph (their tasks point at the subgraph's checkpoints). */
const subgraphNodes = (graph: CompiledGraph<any, any>): Set<string> =>
  new Set(
    graph
      .drawing()
      .nodes.filter((n) => n.kind === "subgraph")
      .map((n) => n.id),
  );

/**
 * Tells the thread's joined streams its state after an update outside a run (LangGraph's
 * `state_update` event), when one listens.
 */
async function tellStateUpdate(
  ctx: ServerContext,
  graph: CompiledGraph<any, any>,
  threadId: string,
): Promise<void> {
  if (!ctx.stateUpdates.listening(threadId)) return;
  const state = await graph.getState({ configurable: { thread_id: threadId } });
  ctx.stateUpdates.publish(threadId, {
    state: toWireState(state, subgraphNodes(graph)),
    thread_id: threadId,
  });
}

/**
 * The thread as LangGraph returns it, with its current values: read from its latest
 * checkpoint unless given, or left out (`null`).
 */
async function wireThread(ctx: ServerContext, view: ThreadView, known?: unknown) {
  const values = known === undefined ? await currentValues(ctx, view) : (known ?? undefined);
  return toWireThread(view.record, { graphId: view.graphId, status: view.status, values });
}

/** Stop the thread's runs, then delete it with its checkpoints. */
async function deleteThread(ctx: ServerContext, id: string): Promise<void> {
  for (let active = await ctx.runs.activeOn(id); active; active = await ctx.runs.activeOn(id)) {
    await ctx.runs.cancel(active.runId, { wait: true });
  }
  ctx.newThreads.take(id);
  await ctx.checkpointer.deleteThread(id);
  ctx.events.publish(id, "deleted");
}

/**
 * A new thread's supersteps (LangGraph's `bulkUpdateState` at create), written with the
 * graph its metadata names. All or nothing: if one is refused, the thread is deleted and
 * the error answers the request, so no half-built thread is left.
 */
async function applySupersteps(
  ctx: ServerContext,
  threadId: string,
  metadata: Record<string, unknown>,
  supersteps: ReadonlyArray<{ updates: ReadonlyArray<z.infer<typeof superstepUpdate>> }>,
): Promise<void> {
  try {
    const view = await findThread(ctx, threadId);
    if (view.graphId === undefined && ctx.hosted.ids.length !== 1) {
      throw new RequestError(
        400,
        "INVALID_BODY",
        `supersteps are written with a graph: name it in metadata.graph_id (graphId in the SDK), one of: ${ctx.hosted.ids.join(", ")}.`,
        { fields: [{ path: "metadata.graph_id", message: "required with supersteps" }] },
      );
    }
    const graph = await graphOf(ctx, view, "threads.update");
    const messages = holdsMessages(graph);
    const steps = supersteps.map((step, i) => ({
      updates: step.updates.map((u, j) => {
        const given = u.command ? u.command.update : u.values;
        const values = fromWireValues(given ?? null, { messages });
        if (values.badIndex !== undefined) {
          const path = `supersteps.${i}.updates.${j}.values.messages.${values.badIndex}`;
          throw new RequestError(400, "INVALID_BODY", `${path} is not a message.`, {
            fields: [{ path, message: "not a message" }],
          });
        }
        const update = (values.values ?? null) as never;
        // A command is the node's Command, as LangGraph hands it to the node's writers.
        const command = u.command;
        return {
          values: command
            ? new Command({
                update,
                ...(command.goto != null && { goto: command.goto }),
                ...("resume" in command && { resume: command.resume }),
              })
            : update,
          asNode: u.as_node,
        };
      }),
    }));
    await graph.bulkUpdateState({ configurable: { thread_id: threadId } }, steps);
    await tellStateUpdate(ctx, graph, threadId);
    // A store without createThread made the record with the first checkpoint: give it the metadata.
    if (ctx.newThreads.take(threadId) !== undefined) {
      await ctx.checkpointer.updateThreadMetadata(threadId, metadata);
    }
  } catch (error) {
    await deleteThread(ctx, threadId);
    throw error;
  }
  ctx.events.publish(threadId, "started");
}

/** The threads named, in the order named, that exist: one page of them. */
async function byIds(
  ctx: ServerContext,
  ids: string[],
  offset: number,
  limit: number,
): Promise<FoundThread[]> {
  const found: FoundThread[] = [];
  for (const id of ids) {
    const view = await findThread(ctx, id).catch(() => undefined);
    if (view) found.push({ view });
  }
  return found.slice(offset, offset + limit);
}

const queryOf = (body: z.infer<typeof countBody> & Partial<z.infer<typeof searchBody>>) => ({
  metadata: body.metadata ?? undefined,
  status: body.status ?? undefined,
  values: body.values ?? undefined,
  sortBy: body.sort_by ?? undefined,
  sortOrder: body.sort_order ?? undefined,
});

const pick = (thread: Record<string, unknown>, fields: readonly string[]) =>
  Object.fromEntries(fields.filter((f) => f in thread).map((f) => [f, thread[f]]));

/**
 * LangGraph's threads: create, get, search (status, metadata), delete, state (get,
 * update), history. Thread records come from the store's thread index.
 */
export function threadRoutes(ctx: ServerContext): Hono {
  const threadId = (c: { req: { param(name: "threadId"): string } }) => c.req.param("threadId");
  return (
    new Hono()
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
        if (ctx.checkpointer.createThread)
          stored = await ctx.checkpointer.createThread(id, metadata);
        else ctx.newThreads.add(id, metadata);
        if (!stored) {
          if (body.if_exists === "do_nothing")
            return c.json(await wireThread(ctx, await findThread(ctx, id)));
          throw new RequestError(409, "THREAD_EXISTS", `Thread "${id}" already exists.`);
        }
        if (body.supersteps?.length) await applySupersteps(ctx, id, metadata, body.supersteps);
        return c.json(await wireThread(ctx, await findThread(ctx, id)));
      })
      .post("/search", async (c) => {
        const body = await parseBody(c, searchBody);
        const found = body.ids
          ? await byIds(ctx, body.ids, body.offset, body.limit)
          : await searchThreads(ctx, queryOf(body), body);
        const select = body.select ?? undefined;
        const extract = body.extract ?? undefined;
        // Only read the state when the answer shows it, or a path reads it.
        const withValues =
          !select || select.includes("values") || (extract !== undefined && readsValues(extract));
        return c.json(
          await Promise.all(
            found.map(async ({ view, values }) => {
              const thread = await wireThread(ctx, view, withValues ? values : null);
              const shown = select ? pick(thread, select) : thread;
              return extract ? { ...shown, extracted: extracted(thread, extract) } : shown;
            }),
          ),
        );
      })
      .post("/count", async (c) => {
        const body = await parseBody(c, countBody);
        return c.json(await countThreads(ctx, queryOf(body)));
      })
      .post("/prune", async (c) => {
        const body = await parseBody(c, pruneBody);
        let pruned = 0;
        for (const id of body.thread_ids) {
          const view = await findThread(ctx, id).catch(() => undefined);
          if (!view) continue;
          if (body.strategy === "keep_latest") {
            if (!view.unwritten) await ctx.checkpointer.prune(id, { keep: "latest" });
          } else {
            await deleteThread(ctx, id);
          }
          pruned++;
        }
        return c.json({ pruned_count: pruned });
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
      .patch("/:threadId", async (c) => {
        const body = await parseBody(c, patchBody);
        const id = threadId(c);
        await findThread(ctx, id);
        const metadata = body.metadata ?? {};
        // Held in memory until its first run (a store without createThread), or in the store.
        if (!ctx.newThreads.mergeMetadata(id, metadata)) {
          await ctx.checkpointer.updateThreadMetadata(id, metadata);
        }
        return c.json(await wireThread(ctx, await findThread(ctx, id)));
      })
      .get("/:threadId", async (c) =>
        c.json(await wireThread(ctx, await findThread(ctx, threadId(c)))),
      )
      .delete("/:threadId", async (c) => {
        const id = threadId(c);
        await findThread(ctx, id);
        await deleteThread(ctx, id);
        return c.body(null, 204);
      })
      .get("/:threadId/stream", (c) => joinThreadStream(c, ctx, threadId(c)))
      .get("/:threadId/state", async (c) => {
        const view = await findThread(ctx, threadId(c));
        const graph = await graphOf(ctx, view);
        const state = await graph.getState(
          { configurable: { thread_id: view.record.threadId } },
          { subgraphs: c.req.query("subgraphs") === "true" },
        );
        return c.json(toWireState(state, subgraphNodes(graph)));
      })
      .get("/:threadId/state/:checkpointId", async (c) => {
        const view = await findThread(ctx, threadId(c));
        const graph = await graphOf(ctx, view);
        const state = await graph.getState({
          configurable: {
            thread_id: view.record.threadId,
            checkpoint_id: c.req.param("checkpointId"),
          },
        });
        return c.json(toWireState(state, subgraphNodes(graph)));
      })
      // The SDK's getState with a checkpoint object: a checkpoint, of the thread or of a subgraph run.
      .post("/:threadId/state/checkpoint", async (c) => {
        const body = await parseBody(c, stateAtBody);
        const view = await findThread(ctx, threadId(c));
        const graph = await graphOf(ctx, view);
        const { checkpoint_id, checkpoint_ns } = body.checkpoint;
        const state = await graph.getState(
          {
            configurable: {
              thread_id: view.record.threadId,
              ...(checkpoint_id && { checkpoint_id }),
              ...(checkpoint_ns && { checkpoint_ns }),
            },
          },
          { subgraphs: body.subgraphs === true },
        );
        return c.json(toWireState(state, subgraphNodes(graph)));
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
        const graph = await graphOf(ctx, view, "threads.update");
        const values = fromWireValues(body.values, { messages: holdsMessages(graph) });
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
        // A subgraph task's checkpoint (its checkpoint_ns) updates that subgraph's run.
        const checkpointNs = refNs(body.checkpoint);
        const config = await graph.updateState(
          {
            configurable: {
              thread_id: view.record.threadId,
              ...(checkpointId && { checkpoint_id: checkpointId }),
              ...(checkpointNs && { checkpoint_ns: checkpointNs }),
            },
          },
          (values.values ?? null) as never,
          body.as_node,
        );
        ctx.newThreads.take(view.record.threadId);
        ctx.events.publish(view.record.threadId, "decided");
        await tellStateUpdate(ctx, graph, view.record.threadId);
        return c.json({
          checkpoint: {
            thread_id: view.record.threadId,
            checkpoint_ns: config.configurable?.checkpoint_ns ?? "",
            checkpoint_id: config.configurable?.checkpoint_id ?? null,
            checkpoint_map: null,
          },
        });
      })
      // Metadata merged into a checkpoint's, as LangGraph Platform's server does; the
      // checkpoint's values and place in the history stay (see patchCheckpointMetadata).
      .patch("/:threadId/state", async (c) => {
        const body = await parseBody(c, patchStateBody);
        const view = await findThread(ctx, threadId(c));
        const id = view.record.threadId;
        const patch = ctx.checkpointer.patchCheckpointMetadata?.bind(ctx.checkpointer);
        if (!patch) {
          throw new RequestError(
            501,
            "PATCH_STATE_UNSUPPORTED",
            "This server's checkpointer cannot patch a checkpoint's metadata (it has no patchCheckpointMetadata); serve on MemoryCheckpointer, PGlite or PostgreSQL, or keep the metadata on the thread with PATCH /threads/:id.",
          );
        }
        const checkpointId =
          body.checkpoint_id ?? refId(body.checkpoint) ?? view.record.latestCheckpointId;
        if (!checkpointId) {
          throw new RequestError(
            409,
            "THREAD_HAS_NO_CHECKPOINT",
            `Thread "${id}" has no checkpoint yet, so there is no state to patch; start a run on it first, or set the thread's own metadata with PATCH /threads/${id}.`,
          );
        }
        const ns = refNs(body.checkpoint) ?? "";
        if ((await patch(id, ns, checkpointId, body.metadata)) === undefined) {
          throw new RequestError(
            404,
            "CHECKPOINT_NOT_FOUND",
            `Thread "${id}" has no checkpoint "${checkpointId}"${ns ? ` in namespace "${ns}"` : ""}; threads.getHistory lists its checkpoints. Nothing was written.`,
          );
        }
        return c.body(null, 204);
      })
      .post("/:threadId/history", async (c) => {
        const body = await parseBody(c, historyBody);
        const view = await findThread(ctx, threadId(c));
        if (view.unwritten) return c.json([]);
        const graph = await graphOf(ctx, view);
        const before = refId(body.before);
        const ns = body.checkpoint?.checkpoint_ns ?? "";
        const config = {
          configurable: { thread_id: view.record.threadId, ...(ns && { checkpoint_ns: ns }) },
        };
        const metadata = body.metadata ?? undefined;
        const nodes = subgraphNodes(graph);
        const wanted = body.checkpoint?.checkpoint_id;
        if (wanted) {
          // One checkpoint named: the history is that one (as LangGraph's savers list it).
          const state = await graph.getState({
            configurable: { ...config.configurable, checkpoint_id: wanted },
          });
          const fits = !metadata || jsonContains(state.metadata ?? {}, metadata);
          return c.json(fits ? [toWireState(state, nodes)] : []);
        }
        const out: unknown[] = [];
        for await (const s of graph.getStateHistory(config, {
          limit: body.limit,
          ...(before && { before }),
          ...(metadata && { filter: metadata }),
        })) {
          out.push(toWireState(s, nodes));
        }
        return c.json(out);
      })
  );
}
