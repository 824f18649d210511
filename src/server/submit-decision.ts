import { randomUUID } from "node:crypto";
import { HITL } from "../agent/index.js";
import type { InterruptRecord } from "../checkpoint/index.js";
import { clauses } from "../errors/sentences.js";
import { type RequestIdentity, sharedTokenIdentity } from "./auth/identity.js";
import {
  actorOf,
  recordApproval,
  recordDecision,
  recordedDecision,
  recordNotApplied,
} from "./decision-audit.js";
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
import { findThread, type ServerContext, type ThreadView } from "./server-context.js";

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
 * Take a reviewer's decision: stale-proof (the pause must still be the one pending, at
 * the checkpoint named), idempotent (the same key answers with the first decision and
 * runs nothing, across restarts and processes: the audit log is the record), checked (a
 * refused answer is a 400 with fields; nothing runs), allowed (a decision the review's
 * `reviewers` refuse this person is a 403; nothing runs), appended to the audit log with
 * who and how they were known before anything runs (a copy goes to the thread's metadata
 * for display), then resumed as a background run.
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
    const earlier = await recordedDecision(ctx.audit, threadId, request.idempotencyKey);
    if (earlier) return decidedBefore(ctx, view, earlier, request);
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
      await recordApproval(
        ctx.audit,
        threadId,
        interrupt,
        approval,
        request.idempotencyKey,
        actorOf(who),
      );
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
    // Recorded first: nothing a decision allows runs unless the audit log has it.
    await recordDecision(ctx.audit, decision, actorOf(who));
    await startDecisionRun(ctx, view, interrupt, decision, request.by);
    return decision;
  });
}

/**
 * Resume the thread with a recorded decision, as a background run that stores a copy of
 * it in the thread's metadata as it claims the thread (for display; the audit log is the
 * record). A run that cannot start is recorded as not applied, and the error thrown.
 */
async function startDecisionRun(
  ctx: ServerContext,
  view: ThreadView,
  interrupt: InterruptRecord,
  decision: Decision,
  by: RequestIdentity | undefined,
): Promise<void> {
  const breakpoint = decision.interruptId.startsWith("breakpoint:");
  const several = view.record.interrupts.length > 1;
  try {
    await createGraphRun(ctx.hosted, ctx.runs, {
      graphId: view.graphId!,
      threadId: decision.threadId,
      runId: decision.runId,
      ...(!breakpoint && {
        resume: { value: several ? { [interrupt.id]: decision.answer } : decision.answer },
      }),
      streamModes: ["values", "updates", "messages-tuple", "custom"],
      ...(by && { authUser: by.user }),
      metadata: {
        [DECISIONS_KEY]: [...decisionsOf(view.record), decision],
        ...(decision.approvedBy && {
          [APPROVALS_KEY]: approvalsWithout(view.record, interrupt.id),
        }),
      },
    });
  } catch (error) {
    const actor = by ? actorOf(by) : actorOf(sharedTokenIdentity(decision.reviewer));
    await recordNotApplied(ctx.audit, decision, actor, (error as Error).message ?? String(error));
    throw error;
  }
  ctx.events.publish(decision.threadId, "decided");
  // Told once the decision's run is queued; a webhook that cannot be queued changes nothing here.
  void ctx.runs.webhooks.reviewDecided({ ...decision, graphId: view.graphId!, interrupt });
}

/**
 * A decision sent again with a key the audit log already has: the first decision, and
 * nothing runs again. Refused (409) when the key was used for another review, or when
 * the recorded decision could not be applied (a new key decides again). A decision whose
 * run never started (the process stopped between recording and starting it) is started
 * now, if its review still waits at the same checkpoint.
 */
async function decidedBefore(
  ctx: ServerContext,
  view: ThreadView,
  earlier: NonNullable<Awaited<ReturnType<typeof recordedDecision>>>,
  request: DecisionRequest,
): Promise<Decision> {
  const { decision, notApplied } = earlier;
  if (decision.interruptId !== request.interruptId) {
    throw new RequestError(
      409,
      "IDEMPOTENCY_KEY_REUSED",
      `Idempotency key "${request.idempotencyKey}" was used for another decision (${decision.interruptId}); use a new key per decision.`,
    );
  }
  if (notApplied) {
    throw new RequestError(
      409,
      "DECISION_NOT_APPLIED",
      `The decision sent with idempotency key "${request.idempotencyKey}" was recorded but could not be applied (${String(notApplied.data.reason)}); nothing ran. Reload what is pending and decide again with a new key.`,
    );
  }
  const interrupt = view.record.interrupts.find(
    (i) => i.id === decision.interruptId || pauseKind(i) === "breakpoint",
  );
  const stillWaiting =
    interrupt !== undefined &&
    view.status === "interrupted" &&
    view.record.latestCheckpointId === decision.checkpointId &&
    inboxItemsOf(view.record, view.graphId).some((i) => i.interruptId === decision.interruptId) &&
    (await ctx.runs.get(decision.runId)) === undefined;
  if (stillWaiting) await startDecisionRun(ctx, view, interrupt, decision, request.by);
  return decision;
}
