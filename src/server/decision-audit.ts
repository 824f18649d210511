// Decisions in the audit log: how the server records them and reads them back.
import { HITL } from "../agent/index.js";
import type { AuditActor, AuditEntry, AuditLog } from "../audit/index.js";
import { auditKeys } from "../audit/index.js";
import type { InterruptRecord, ThreadRecord } from "../checkpoint/index.js";
import type { CompiledGraph } from "../index.js";
import type { QueuedRun } from "../runs/index.js";
import type { RequestIdentity } from "./auth/identity.js";
import { type Decision, diffOf } from "./decisions.js";
import { pauseKind } from "./review-answer.js";
import type { PendingApproval } from "./review-approvals.js";

/** The audit actor of a request: who, and how the server knows (auth file or typed name). */
export function actorOf(who: RequestIdentity): AuditActor {
  return {
    identity: who.user.identity,
    displayName: who.user.display_name,
    authenticatedBy: who.method,
  };
}

/** The decision an entry of kind `decision` records (its data, less the diff). */
export function decisionOfEntry(entry: AuditEntry): Decision {
  const { diff: _diff, ...decision } = entry.data;
  return decision as unknown as Decision;
}

/**
 * Append `decision` (taken by `actor`) to the audit log before it runs, with what was
 * proposed, what was decided and the edit's diff; keyed by its idempotency key, so a retry
 * records nothing twice. Returns the entry (the first one, for a key used before).
 */
export function recordDecision(
  audit: AuditLog,
  decision: Decision,
  actor: AuditActor,
): Promise<AuditEntry> {
  return audit.append({
    kind: "decision",
    threadId: decision.threadId,
    interruptId: decision.interruptId,
    actor,
    key: auditKeys.decision(decision.threadId, decision.idempotencyKey),
    data: { ...decision, diff: diffOf(decision) },
  });
}

/**
 * Append one person's approval of a review that needs several: the answer they approved,
 * what was proposed, who approved so far and how many must (once per idempotency key).
 */
export function recordApproval(
  audit: AuditLog,
  threadId: string,
  interrupt: InterruptRecord,
  approval: PendingApproval,
  idempotencyKey: string,
  actor: AuditActor,
): Promise<AuditEntry> {
  return audit.append({
    kind: "approval",
    threadId,
    interruptId: interrupt.id,
    actor,
    key: auditKeys.approval(threadId, idempotencyKey),
    data: {
      checkpointId: approval.checkpointId,
      answer: approval.answer ?? null,
      proposed: HITL.fromInterrupt(interrupt).actionRequests,
      approvedSoFar: approval.approvedBy.map((a) => a.identity),
      required: approval.required,
    },
  });
}

/** Record that a recorded decision could not be applied, and why (it never ran). */
export function recordNotApplied(
  audit: AuditLog,
  decision: Decision,
  actor: AuditActor,
  reason: string,
): Promise<AuditEntry> {
  const key = auditKeys.decision(decision.threadId, decision.idempotencyKey);
  return audit.append({
    kind: "not_applied",
    threadId: decision.threadId,
    interruptId: decision.interruptId,
    actor,
    key: auditKeys.notApplied(key),
    data: { decision: key, reason },
  });
}

/** The decision recorded under a thread's idempotency key, and whether it was applied. */
export async function recordedDecision(
  audit: AuditLog,
  threadId: string,
  idempotencyKey: string,
): Promise<{ decision: Decision; notApplied: AuditEntry | undefined } | undefined> {
  const key = auditKeys.decision(threadId, idempotencyKey);
  const entry = await audit.find(key);
  if (!entry) return undefined;
  return {
    decision: decisionOfEntry(entry),
    notApplied: await audit.find(auditKeys.notApplied(key)),
  };
}

/**
 * The decisions the audit log holds for a thread (or for one review), oldest first: those
 * that were applied, as the inbox shows who decided.
 */
export async function auditedDecisions(
  audit: AuditLog,
  where: { threadId: string } | { interruptId: string },
): Promise<Decision[]> {
  const entries: AuditEntry[] = [];
  for await (const entry of audit.entries(where)) entries.push(entry);
  const notApplied = new Set(
    entries.filter((e) => e.kind === "not_applied").map((e) => String(e.data.decision)),
  );
  return entries
    .filter((e) => e.kind === "decision" && !notApplied.has(String(e.key)))
    .map(decisionOfEntry);
}

/**
 * The decisions a run carries out, as the audit log recorded them: those of the inbox's
 * endpoint, a deadline or a run's resume all name their run. Reads the thread's decisions
 * (few per thread), oldest first.
 */
export async function decisionsOfRun(
  audit: AuditLog,
  threadId: string,
  runId: string,
): Promise<Decision[]> {
  const found: Decision[] = [];
  for await (const entry of audit.entries({ threadId, kind: "decision" })) {
    if (entry.data.runId === runId) found.push(decisionOfEntry(entry));
  }
  return found;
}

/**
 * After a decision's run: append what the calls it allowed returned (the tool messages
 * answering the proposed calls), one entry per decision, linked to it. Whoever decided
 * (the inbox, a deadline, a run's `command.resume`), the decision names the run. Runs
 * that carry out no decision, and decisions that ran no tool, record nothing.
 */
export async function recordToolResults(
  audit: AuditLog,
  graph: CompiledGraph<any, any>,
  run: QueuedRun,
): Promise<void> {
  // Only a run that answers a pause can carry out a decision: others are not looked up.
  if (run.request.input === null || !("command" in run.request.input)) return;
  // Its decisions were recorded with the run, and none answers a tool review.
  if (run.request.decisionsRecorded?.toolReviews === false) return;
  const decisions = (await decisionsOfRun(audit, run.threadId, run.runId)).filter(
    (d) => (d.proposed ?? []).length > 0,
  );
  if (decisions.length === 0) return;
  const state = await graph.getState({ configurable: { thread_id: run.threadId } });
  const messages = ((state.values as { messages?: unknown[] }).messages ?? []) as Array<
    Record<string, unknown>
  >;
  for (const decision of decisions) {
    const callIds = new Set(decision.proposed!.map((a) => a.id));
    const results = messages
      .filter((m) => m.role === "tool" && callIds.has(String(m.toolCallId)))
      .map((m) => ({
        toolCallId: String(m.toolCallId),
        name: String(m.name),
        content: m.content ?? null,
        ...(m.status !== undefined && { status: m.status }),
      }));
    if (results.length === 0) continue;
    const decisionKey = auditKeys.decision(decision.threadId, decision.idempotencyKey);
    const decided = await audit.find(decisionKey);
    await audit.append({
      kind: "tool_result",
      threadId: decision.threadId,
      interruptId: decision.interruptId,
      actor: { identity: "system", displayName: "stateweaver", authenticatedBy: "system" },
      key: auditKeys.toolResult(run.runId, decision.interruptId),
      data: {
        decision: decisionKey,
        decisionSeq: decided?.seq ?? null,
        runId: run.runId,
        results,
      },
    });
  }
}

/**
 * A resume sent as a run's `command.resume` (the LangGraph API) answers each pending
 * interrupt it names: record each answer as a decision of the caller's (keyed by the run,
 * which has no idempotency key of its own) before the run is created.
 */
export async function recordResumeDecisions(
  audit: AuditLog,
  record: ThreadRecord,
  answers: Array<[InterruptRecord, unknown]>,
  who: RequestIdentity,
  runId: string,
): Promise<Decision[]> {
  const decidedAt = new Date();
  const decisions: Decision[] = [];
  for (const [interrupt, answer] of answers) {
    const decision: Decision = {
      interruptId: interrupt.id,
      checkpointId: record.latestCheckpointId,
      threadId: record.threadId,
      reviewer: who.user.identity,
      authenticatedBy: who.method,
      decidedAt: decidedAt.toISOString(),
      waitedMs: Math.max(0, decidedAt.getTime() - Date.parse(record.updatedAt)),
      answer: answer ?? null,
      ...(pauseKind(interrupt) === "tool_review" && {
        proposed: HITL.fromInterrupt(interrupt).actionRequests,
      }),
      runId,
      idempotencyKey: `run:${runId}:${interrupt.id}`,
    };
    await recordDecision(audit, decision, actorOf(who));
    decisions.push(decision);
  }
  return decisions;
}
