import { randomUUID } from "node:crypto";
import { HITL, type ReviewDecision } from "../agent/index.js";
import type { InterruptRecord, ThreadRecord } from "../checkpoint/index.js";
import { ConcurrentUpdateError } from "../errors/index.js";
import type { RequestIdentity } from "./auth/identity.js";
import { RequestError } from "./errors.js";
import type { ServerContext } from "./server-context.js";

/** Thread metadata holding the approvals collected so far, by interrupt id. */
export const APPROVALS_KEY = "stateweaver:approvals";

/**
 * One person's approval of a review that needs several.
 *
 * @example
 * const a: Approval = { identity: "ana", displayName: "Ana", authenticatedBy: "auth_handler",
 *   approvedAt: "2026-01-01T00:00:00.000Z", idempotencyKey: "k1" };
 */
export interface Approval {
  identity: string;
  displayName: string;
  authenticatedBy: RequestIdentity["method"];
  approvedAt: string;
  idempotencyKey: string;
}

/**
 * A review waiting for more approvals: the answer approved (the same for everyone who
 * approved), who approved it, and how many must.
 *
 * @example
 * const p: PendingApproval = { interruptId: "a1", checkpointId: "c1", answer: { decisions: [{ type: "approve" }] },
 *   approvedBy: [], required: 2 };
 */
export interface PendingApproval {
  interruptId: string;
  checkpointId: string;
  answer: unknown;
  approvedBy: Approval[];
  required: number;
}

/** The approvals a thread is collecting, by interrupt id. */
export function pendingApprovalsOf(
  record: Pick<ThreadRecord, "metadata">,
): Record<string, PendingApproval> {
  const kept = record.metadata[APPROVALS_KEY];
  return typeof kept === "object" && kept !== null && !Array.isArray(kept)
    ? (kept as Record<string, PendingApproval>)
    : {};
}

/** JSON with object keys sorted, so equal values read equal whatever their key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/**
 * What an answer does, call by call: the call it runs (name and args, whether approved as
 * proposed or edited) or the answer it gives instead. Two approvals count together only
 * when this is the same, so an edit by the second person starts the count again.
 */
export function effectOf(interrupt: InterruptRecord, answer: unknown): string {
  const review = HITL.fromInterrupt(interrupt);
  const decisions = ((answer as { decisions?: unknown[] } | null)?.decisions ??
    []) as ReviewDecision[];
  return canonical(
    review.actions.map((action, i) => {
      const d = decisions[i];
      if (d?.type === "approve") return { run: { name: action.name, args: action.args } };
      if (d?.type === "edit") return { run: d.editedAction };
      return { answer: d };
    }),
  );
}

/**
 * Adds `who`'s approval of `answer` to those collected for the interrupt and returns the
 * count so far. An approval of a different effect (an edit, another decision) replaces the
 * earlier ones: everyone must approve the same calls. While fewer than `required` approved,
 * the approvals are stored in the thread's metadata (only if the thread is still at the
 * checkpoint read) and nothing runs; at `required` the caller resumes the thread.
 * Approvals count only from people the auth handler verified, each person once.
 */
export async function collectApproval(
  ctx: ServerContext,
  record: ThreadRecord,
  interrupt: InterruptRecord,
  request: { answer: unknown; idempotencyKey: string },
  who: RequestIdentity,
  required: number,
): Promise<PendingApproval> {
  if (who.method !== "auth_handler") {
    throw new RequestError(
      403,
      "APPROVER_NOT_VERIFIED",
      `This review needs ${required} different people to approve, and "${who.user.identity}" is a name nobody verified (the shared token). Configure an auth file (docs/security.md) so approvers sign in. Nothing was decided and the thread is unchanged.`,
    );
  }
  const all = pendingApprovalsOf(record);
  const earlier = all[interrupt.id];
  const effect = effectOf(interrupt, request.answer);
  const same =
    earlier !== undefined &&
    earlier.checkpointId === record.latestCheckpointId &&
    effectOf(interrupt, earlier.answer) === effect;
  const approvedBy = same ? earlier.approvedBy : [];
  const mine = approvedBy.find((a) => a.identity === who.user.identity);
  if (mine) {
    if (mine.idempotencyKey === request.idempotencyKey) return earlier!;
    throw new RequestError(
      409,
      "ALREADY_APPROVED",
      `${who.user.identity} already approved this; it needs ${required} different people (approved so far: ${approvedBy.map((a) => a.identity).join(", ")}). Ask someone else to approve it. Nothing else changed.`,
    );
  }
  const next: PendingApproval = {
    interruptId: interrupt.id,
    checkpointId: record.latestCheckpointId,
    answer: request.answer,
    approvedBy: [
      ...approvedBy,
      {
        identity: who.user.identity,
        displayName: who.user.display_name,
        authenticatedBy: who.method,
        approvedAt: new Date().toISOString(),
        idempotencyKey: request.idempotencyKey,
      },
    ],
    required,
  };
  if (next.approvedBy.length < required) {
    await storeApprovals(ctx, record, { ...all, [interrupt.id]: next });
  }
  return next;
}

/** The approvals left once the interrupt's are used (its review is being decided). */
export function approvalsWithout(
  record: Pick<ThreadRecord, "metadata">,
  interruptId: string,
): Record<string, PendingApproval> {
  const { [interruptId]: _used, ...rest } = pendingApprovalsOf(record);
  return rest;
}

/** Write the approvals with a claim that checks the thread is still where it was read. */
async function storeApprovals(
  ctx: ServerContext,
  record: ThreadRecord,
  approvals: Record<string, PendingApproval>,
): Promise<void> {
  const claimId = `approval:${randomUUID()}`;
  try {
    await ctx.checkpointer.claimThread(record.threadId, {
      runId: claimId,
      expectedLatestId: record.latestCheckpointId,
      ttlMs: 10_000,
      metadata: { [APPROVALS_KEY]: approvals },
    });
  } catch (error) {
    if (error instanceof ConcurrentUpdateError) {
      throw new RequestError(
        409,
        "STALE_DECISION",
        `Thread "${record.threadId}" moved on or is running while the approval was recorded; nothing was decided. Reload what is pending and approve again.`,
      );
    }
    throw error;
  }
  await ctx.checkpointer.releaseThread(record.threadId, claimId);
}
