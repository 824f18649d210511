import {
  type DecisionType,
  HITL,
  type ReviewDecision,
  reviewRefusal,
  type ToolReview,
} from "../agent/index.js";
import type { InterruptRecord } from "../checkpoint/index.js";
import { type RequestIdentity, reviewerOf, sharedTokenIdentity } from "./auth/identity.js";
import { type FieldProblem, RequestError } from "./errors.js";
import { pauseKind } from "./review-answer.js";

const decisionsIn = (answer: unknown): ReviewDecision[] => {
  const list = (answer as { decisions?: unknown } | null)?.decisions;
  return Array.isArray(list) ? (list as ReviewDecision[]) : [];
};

/**
 * Per action of a tool review, the decisions `who` may not take and why (an empty object:
 * every decision the policy allows). The inbox shows a review read-only with these reasons.
 *
 * @example
 * refusalsFor(review, who); // [{ approve: 'Only holders of the "dba" permission may approve this call; bo may not.' }]
 */
export function refusalsFor(
  review: ToolReview,
  who: RequestIdentity,
): Array<Partial<Record<DecisionType, string>>> {
  const reviewer = reviewerOf(who);
  return review.actions.map((action) => {
    const refused: Partial<Record<DecisionType, string>> = {};
    for (const type of action.allowedDecisions) {
      const why = reviewRefusal(action.reviewers, type, reviewer);
      if (why !== undefined) refused[type] = why;
    }
    return refused;
  });
}

/**
 * Refuses (403, nothing changes) an answer with a decision its review's `reviewers` do not
 * allow `who` to take. Answers to other pauses pass: only tool reviews carry rules.
 */
export function checkDecisionRights(
  interrupt: InterruptRecord,
  answer: unknown,
  who: RequestIdentity,
): void {
  if (pauseKind(interrupt) !== "tool_review") return;
  const review = HITL.fromInterrupt(interrupt);
  const refusals = refusalsFor(review, who);
  const fields: FieldProblem[] = [];
  for (const [i, decision] of decisionsIn(answer).entries()) {
    const why = refusals[i]?.[decision?.type];
    if (why !== undefined) fields.push({ path: `answer.decisions.${i}.type`, message: why });
  }
  if (fields.length > 0) {
    throw new RequestError(
      403,
      "NOT_ALLOWED_TO_DECIDE",
      `${fields.map((f) => f.message).join(" ")} Nothing was decided and the thread is unchanged; ask someone who may, or choose a decision you may take.`,
      { fields },
    );
  }
}

/**
 * How many different people must approve this answer before it runs: the largest
 * `approvals` among the actions it approves or edits (1 when it runs none of them).
 */
export function approvalsNeeded(interrupt: InterruptRecord, answer: unknown): number {
  if (pauseKind(interrupt) !== "tool_review") return 1;
  const review = HITL.fromInterrupt(interrupt);
  let needed = 1;
  for (const [i, decision] of decisionsIn(answer).entries()) {
    if (decision?.type !== "approve" && decision?.type !== "edit") continue;
    needed = Math.max(needed, review.actions[i]?.approvals ?? 1);
  }
  return needed;
}

/**
 * The same rights for a resume sent as a run's `command.resume` (the LangGraph API): a
 * decision the caller may not take is a 403, and a review that needs several approvals is
 * refused outright, since one request cannot carry several people's approval; those are
 * collected by `POST /inbox/threads/:threadId/decisions`.
 */
export function checkResumeRights(
  interrupt: InterruptRecord,
  answer: unknown,
  who: RequestIdentity | undefined,
): void {
  checkDecisionRights(interrupt, answer, who ?? sharedTokenIdentity(undefined));
  const needed = approvalsNeeded(interrupt, answer);
  if (needed > 1) {
    throw new RequestError(
      403,
      "APPROVALS_REQUIRED",
      `Interrupt ${interrupt.id} needs ${needed} different people to approve before its calls run, which a run's resume cannot carry. Approve through POST /inbox/threads/:threadId/decisions (the inbox), once per person. The thread is unchanged.`,
    );
  }
}
