import { randomUUID } from "node:crypto";
import { Hono } from "hono";
import { streamSSE } from "hono/streaming";
import { z } from "zod";
import { HITL } from "../../agent/index.js";
import type { ThreadRecord } from "../../checkpoint/index.js";
import type { StateSnapshot } from "../../graph/running/state-snapshot.js";
import { matchesFilters } from "../auth/auth-filters.js";
import { sharedTokenIdentity } from "../auth/identity.js";
import { auditedDecisions } from "../decision-audit.js";
import { refusalsFor } from "../decision-rights.js";
import { diffOf } from "../decisions.js";
import { RequestError } from "../errors.js";
import { createGraphRun } from "../graph-runs.js";
import { timelineOf } from "../history-timeline.js";
import { DECISIONS_KEY, type InboxItem, inboxItemsOf } from "../inbox-items.js";
import { byTimeLeft } from "../inbox-order.js";
import { parseBody } from "../request-body.js";
import { findThread, type ServerContext } from "../server-context.js";
import { submitDecision } from "../submit-decision.js";
import { toWireValues } from "../wire/messages.js";

const decisionBody = z.object({
  checkpointId: z.string().min(1),
  interruptId: z.string().min(1),
  answer: z.unknown(),
  reviewer: z.string().max(200).optional(),
  idempotencyKey: z.string().min(1).max(200),
  unexpandedApproveOverride: z.boolean().optional(),
});

const newThreadBody = z.object({
  graphId: z.string().min(1),
  input: z.record(z.string(), z.unknown()),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

/** Pages of interrupted threads read for the counts; more than this many are not counted. */
const MAX_COUNTED_PAGES = 10;
const PING_MS = 15_000;

/** Every interrupted thread (up to the count limit), newest first. */
async function interruptedThreads(ctx: ServerContext) {
  const out: ThreadRecord[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_COUNTED_PAGES; page++) {
    const found = await ctx.checkpointer.searchThreads({
      status: "interrupted",
      limit: 1000,
      ...(cursor && { cursor }),
    });
    out.push(...found.threads);
    cursor = found.nextCursor ?? undefined;
    if (!cursor) break;
  }
  return out;
}

/**
 * The inbox endpoints (see docs/server.md): what waits for a person, a thread's page,
 * decisions, permanent review links, new threads, the graphs, and a change feed.
 */
export function inboxRoutes(ctx: ServerContext): Hono {
  return new Hono()
    .get("/items", async (c) => {
      const graphId = c.req.query("graph") || undefined;
      const graphName = graphId === undefined ? undefined : ctx.hosted.get(graphId).name;
      const limit = Math.min(Math.max(Number(c.req.query("limit") ?? 50) || 50, 1), 500);
      const offset = Math.max(Number(c.req.query("cursor") ?? 0) || 0, 0);
      const group = c.req.query("group") || undefined;
      // Only the threads the auth file's threads:search handler lets this user see.
      const filters = c.get("threadFilters");
      const all = (await interruptedThreads(ctx)).filter((r) =>
        matchesFilters(r.metadata, filters),
      );
      const active = await ctx.runs.activeThreads();
      const byGraph: Record<string, number> = {};
      const items: InboxItem[] = [];
      for (const record of all) {
        if (active.has(record.threadId)) continue;
        const id = ctx.hosted.idOf(record.graph);
        const pending = inboxItemsOf(record, id);
        if (id !== undefined) byGraph[id] = (byGraph[id] ?? 0) + pending.length;
        if (graphName !== undefined && record.graph !== graphName) continue;
        items.push(...pending.filter((i) => group === undefined || i.reviewGroup === group));
      }
      items.sort(byTimeLeft);
      const page = items.slice(offset, offset + limit);
      const total = Object.values(byGraph).reduce((a, b) => a + b, 0);
      return c.json({
        items: page,
        counts: { total, byGraph },
        nextCursor: offset + limit < items.length ? String(offset + limit) : null,
      });
    })
    .get("/events", (c) => {
      // With an auth file's filters, only changes to threads this user may see are sent.
      const filters = c.get("threadFilters");
      const visible = async (threadId: string) =>
        !filters ||
        matchesFilters(
          (await findThread(ctx, threadId).catch(() => undefined))?.record.metadata ?? {},
          filters,
        );
      return streamSSE(c, async (stream) => {
        const queue: Array<{ threadId: string; reason: string }> = [];
        let wake: (() => void) | undefined;
        const stop = ctx.events.subscribe((e) => {
          queue.push(e);
          wake?.();
        });
        let open = true;
        stream.onAbort(() => {
          open = false;
          wake?.();
        });
        const ping = setInterval(() => {
          void stream.write(": ping\n\n");
        }, PING_MS);
        try {
          await stream.write(": connected\n\n");
          while (open) {
            while (queue.length > 0) {
              const event = queue.shift()!;
              if (await visible(event.threadId))
                await stream.writeSSE({ event: "inbox", data: JSON.stringify(event) });
            }
            await new Promise<void>((resolve) => {
              wake = resolve;
            });
            wake = undefined;
          }
        } finally {
          clearInterval(ping);
          stop();
        }
      });
    })
    .get("/threads/:threadId", async (c) => {
      const view = await findThread(ctx, c.req.param("threadId"));
      const { record, graphId } = view;
      // Who decided comes from the audit log, not from the metadata's display copy.
      const decisions = await auditedDecisions(ctx.audit, { threadId: record.threadId });
      const { [DECISIONS_KEY]: _d, ...metadata } = record.metadata;
      const graph = graphId === undefined ? undefined : ctx.hosted.get(graphId);
      const config = { configurable: { thread_id: record.threadId } };
      const state = graph && !view.unwritten ? await graph.getState(config) : undefined;
      const history: unknown[] = [];
      if (graph && !view.unwritten) {
        const page: StateSnapshot[] = [];
        for await (const s of graph.getStateHistory(config, { limit: 100 })) page.push(s);
        for (const entry of timelineOf(page, decisions)) {
          history.push({ ...entry, writes: toWireValues(entry.writes) });
        }
      }
      const who = c.get("identity") ?? sharedTokenIdentity(undefined);
      // Per action, the decisions this caller may not take and why: the page shows those
      // read-only with the reason.
      const pending = (view.status === "busy" ? [] : inboxItemsOf(record, graphId)).map((i) =>
        i.kind === "tool_review"
          ? {
              ...i,
              refused: refusalsFor(HITL.fromInterrupt({ id: i.interruptId, value: i.value }), who),
            }
          : i,
      );
      const values = (toWireValues(state?.values ?? {}) ?? {}) as Record<string, unknown>;
      return c.json({
        thread: {
          threadId: record.threadId,
          graphId,
          status: view.status,
          metadata,
          createdAt: record.createdAt,
          updatedAt: record.updatedAt,
        },
        values,
        messages: Array.isArray(values.messages) ? values.messages : [],
        pending,
        checkpointId: record.latestCheckpointId || null,
        graph: graphId === undefined ? { nodes: [], edges: [] } : ctx.hosted.picture(graphId),
        waitingAt: [...new Set(record.interrupts.map((i) => i.node))],
        history,
        decisions,
      });
    })
    .post("/threads/:threadId/decisions", async (c) => {
      const body = await parseBody(c, decisionBody);
      const outcome = await submitDecision(ctx, c.req.param("threadId"), {
        ...body,
        by: c.get("identity"),
      });
      // A review that needs more approvals is recorded but not resumed: no run yet.
      if (!("runId" in outcome)) return c.json({ runId: null, approval: outcome }, 202);
      return c.json({ runId: outcome.runId, decision: outcome }, 202);
    })
    .get("/reviews/:interruptId", async (c) => {
      const interruptId = c.req.param("interruptId");
      const decision = (await auditedDecisions(ctx.audit, { interruptId })).at(-1);
      const record = decision && (await ctx.checkpointer.getThread(decision.threadId));
      if (!record || !decision) {
        throw new RequestError(
          404,
          "REVIEW_NOT_FOUND",
          `No decision was recorded for "${interruptId}".`,
        );
      }
      const graphId = ctx.hosted.idOf(record.graph);
      const callIds = new Set((decision.proposed ?? []).map((a) => a.id));
      const toolResults: Array<{ toolCallId: string; name: string; content: string }> = [];
      if (graphId !== undefined && callIds.size > 0) {
        const state = await ctx.hosted
          .get(graphId)
          .getState({ configurable: { thread_id: record.threadId } });
        const messages = (state.values as { messages?: unknown[] }).messages ?? [];
        for (const m of messages as Array<Record<string, unknown>>) {
          if (m.role === "tool" && callIds.has(String(m.toolCallId))) {
            toolResults.push({
              toolCallId: String(m.toolCallId),
              name: String(m.name),
              content: String(m.content),
            });
          }
        }
      }
      return c.json({
        decision,
        threadId: record.threadId,
        graphId,
        diff: diffOf(decision),
        toolResults,
      });
    })
    .post("/threads", async (c) => {
      const body = await parseBody(c, newThreadBody);
      const threadId = randomUUID();
      const run = await createGraphRun(ctx.hosted, ctx.runs, {
        graphId: body.graphId,
        threadId,
        input: body.input,
        streamModes: ["values", "updates", "messages-tuple", "custom"],
        ...(body.metadata && { metadata: body.metadata }),
        ...(c.get("identity") && { authUser: c.get("identity").user }),
      });
      ctx.events.publish(threadId, "started");
      return c.json({ threadId, runId: run.runId }, 201);
    })
    .get("/graphs", (c) =>
      c.json(
        ctx.hosted.ids.map((graphId) => ({
          graphId,
          name: ctx.hosted.get(graphId).name,
          ...ctx.hosted.picture(graphId),
        })),
      ),
    );
}
