import { randomUUID } from "node:crypto";
import { HITL } from "../agent/index.js";
import { clauses } from "../errors/sentences.js";
import { ACTIVE_RUN_STATUSES } from "../runs/index.js";
import { type RequestIdentity, sharedTokenIdentity } from "./auth/identity.js";
import { approvalsNeeded, checkDecisionRights } from "./decision-rights.js";
import { type Decision, decisionsOf } from "./decisions.js";
import { RequestError } from "./errors.js";
import { createGraphRun } from "./graph-runs.js";
import { DECISIONS_KEY, inboxItemsOf } from "./inbox-items.js";
import { pauseKind, reviewAnswerProblems } from "./review-answer.js";
import {
  APPROVALS_KEY,
  type Approval,
  approvalsWithout,
  collectApproval,
  type PendingApproval,
} from "./review-approvals.js";
import { findThread, type ServerContext } from "./server-context.js";

/** A reviewer's answer as `POST /inbox/threads/:threadId/decisions` takes it. */
export interface DecisionRequest {
  checkpointId: string;
  interruptId: string;
  answer: unknown;
  /** The name a shared-token caller typed; ignored when the auth handler identified them. */
  reviewer?: string | undefined;
  /** Who the auth handler says sent it (absent under the shared token). */
  by?: RequestIdentity | undefined;
  idempotencyKey: string;
  unexpandedApproveOverride?: boolean | undefined;
}

// Decisions are taken one at a time per thread, so two submissions cannot both see the
// pause as pending. A thread's entry is dropped once its queue is empty.
const queues = new WeakMap<ServerContext, Map<string, Promise<unknown>>>();

function inTurn<T>(ctx: ServerContext, threadId: string, work: () => Promise<T>): Promise<T> {
  const byThread = queues.get(ctx) ?? new Map<string, Promise<unknown>>();
  queues.set(ctx, byThread);
  const previous = byThread.get(threadId) ?? Promise.resolve();
  const next = previous.then(work, work);
  const settled = next.catch(() => {});
  byThread.set(threadId, settled);
  void settled.then(() => {
    if (byThread.get(threadId) === settled) byThread.delete(threadId);
  });
  return next;
}

/**
 * The decisions carried by the thread's runs that have not settled: a decision's run
 * stores it with the thread when it claims the thread, so until then the queued run (kept
 * by the run queue, as durable as the queue is) is where the decision is.
 */
async function decisionsInFlight(ctx: ServerContext, threadId: string): Promise<Decision[]> {
  const active = await Promise.all(
    ACTIVE_RUN_STATUSES.map((status) => ctx.runs.list({ threadId, status, limit: 100 })),
  );
  return active.flat().flatMap((run) => decisionsOf({ metadata: run.metadata }));
}

/**
 * Take a reviewer's decision: stale-proof (the pause must still be the one pending, at
 * the checkpoint named), idempotent (the same key answers with the first decision and
 * runs nothing, across restarts: the decisions stored with the thread and its queued runs
 * are the only record), checked (a refused answer is a 400 with fields; nothing runs),
 * allowed (a decision the review's `reviewers` refuse this person is a 403; nothing runs),
 * recorded in the thread's metadata with who and when, then resumed as a background run.
 * A review that needs several approvals answers with the `PendingApproval` until enough
 * different people approved the same calls; only then does the thread resume.
 */
export function submitDecision(
  ctx: ServerContext,
  threadId: string,
  request: DecisionRequest,
): Promise<Decision | PendingApproval> {
  return inTurn(ctx, threadId, async () => {
    const view = await findThread(ctx, threadId);
    const recorded = decisionsOf(view.record);
    const earlier = (await decisionsInFlight(ctx, threadId))
      .concat(recorded)
      .find((d) => d.idempotencyKey === request.idempotencyKey);
    if (earlier) {
      if (earlier.interruptId !== request.interruptId) {
        throw new RequestError(
          409,
          "IDEMPOTENCY_KEY_REUSED",
          `Idempotency key "${request.idempotencyKey}" was used for another decision (${earlier.interruptId}); use a new key per decision.`,
        );
      }
      return earlier;
    }
    const pending = view.status === "busy" ? [] : inboxItemsOf(view.record, view.graphId);
    const item = pending.find((i) => i.interruptId === request.interruptId);
    if (!item || view.record.latestCheckpointId !== request.checkpointId) {
      throw new RequestError(
        409,
        "STALE_DECISION",
        view.status === "busy"
          ? `Thread "${threadId}" is running now; nothing was decided. Wait for it to pause again.`
          : `This decision was made on ${request.interruptId} at checkpoint ${request.checkpointId}, but the thread has moved on; nothing was decided. What is pending now is in "pending".`,
        {
          extra: {
            pending,
            checkpointId: view.record.latestCheckpointId || null,
            threadStatus: view.status,
          },
        },
      );
    }
    if (view.graphId === undefined) {
      throw new RequestError(
        409,
        "THREAD_HAS_NO_GRAPH",
        `No hosted graph runs thread "${threadId}".`,
      );
    }
    const interrupt = view.record.interrupts.find(
      (i) => i.id === request.interruptId || pauseKind(i) === "breakpoint",
    )!;
    const graphId = view.graphId;
    const fields = await reviewAnswerProblems(interrupt, request.answer, (name) =>
      ctx.hosted.toolSchema(graphId, name),
    );
    if (fields.length > 0) {
      throw new RequestError(
        400,
        "INVALID_DECISION",
        `The decision was refused: ${clauses(fields.map((f) => `${f.path}: ${f.message}`))} The thread is unchanged.`,
        { fields },
      );
    }
    const who = request.by ?? sharedTokenIdentity(request.reviewer);
    checkDecisionRights(interrupt, request.answer, who);
    const required = approvalsNeeded(interrupt, request.answer);
    let approvedBy: Approval[] | undefined;
    if (required > 1) {
      const approval = await collectApproval(ctx, view.record, interrupt, request, who, required);
      if (approval.approvedBy.length < required) {
        ctx.events.publish(threadId, "approved");
        return approval;
      }
      approvedBy = approval.approvedBy;
    }
    const decidedAt = new Date();
    const decision: Decision = {
      interruptId: request.interruptId,
      checkpointId: request.checkpointId,
      threadId,
      reviewer: who.user.identity,
      authenticatedBy: who.method,
      ...(approvedBy && { approvedBy }),
      decidedAt: decidedAt.toISOString(),
      waitedMs: Math.max(0, decidedAt.getTime() - Date.parse(item.waitingSince)),
      answer: request.answer ?? null,
      ...(item.kind === "tool_review" && {
        proposed: HITL.fromInterrupt(interrupt).actionRequests,
      }),
      runId: randomUUID(),
      idempotencyKey: request.idempotencyKey,
      ...(request.unexpandedApproveOverride && { unexpandedApproveOverride: true }),
    };
    const breakpoint = item.kind === "breakpoint";
    const several = view.record.interrupts.length > 1;
    await createGraphRun(ctx.hosted, ctx.runs, {
      graphId: view.graphId,
      threadId,
      runId: decision.runId,
      ...(!breakpoint && {
        resume: { value: several ? { [interrupt.id]: request.answer } : request.answer },
      }),
      streamModes: ["values", "updates", "messages-tuple", "custom"],
      ...(request.by && { authUser: request.by.user }),
      // The run merges this into the thread's metadata as it claims the thread, so the
      // decision is stored before anything it allows runs.
      metadata: {
        [DECISIONS_KEY]: [...recorded, decision],
        ...(approvedBy && { [APPROVALS_KEY]: approvalsWithout(view.record, interrupt.id) }),
      },
    });
    ctx.events.publish(threadId, "decided");
    // Told once the decision's run is queued; a webhook that cannot be queued changes nothing here.
    void ctx.runs.webhooks.reviewDecided({ ...decision, graphId, interrupt });
    return decision;
  });
}
