import { HITL, type ReviewDeadline } from "../agent/index.js";
import type { InterruptRecord, ThreadRecord } from "../checkpoint/index.js";
import { DECISIONS_KEY, deadlineOf, REVIEW_GROUP_KEY } from "../runs/review-deadlines.js";
import { type PauseKind, pauseKind } from "./review-answer.js";
import { APPROVALS_KEY, type Approval, pendingApprovalsOf } from "./review-approvals.js";

export { DECISIONS_KEY };

/**
 * One thing waiting for a person: a tool review, a plain `interrupt()`, or a breakpoint.
 *
 * @example
 * const item: InboxItem = { threadId: "t1", graphId: "ops", interruptId: "a1b2…", kind: "tool_review",
 *   node: "humanInTheLoop/afterModel", ns: "", value: {}, checkpointId: "c1",
 *   waitingSince: "2026-01-01T00:00:00.000Z", threadMetadata: {}, summary: "remove_file(path: temp.txt)",
 *   deadline: null, reviewGroup: null, approvals: null };
 */
export interface InboxItem {
  threadId: string;
  graphId: string | undefined;
  interruptId: string;
  kind: PauseKind;
  node: string;
  ns: string;
  value: unknown;
  checkpointId: string;
  waitingSince: string;
  threadMetadata: Record<string, unknown>;
  summary: string;
  /** When the review's deadline passes and what happens then (its policy's), or null. */
  deadline: ReviewDeadline | null;
  /** The group the review was handed to (the thread's `review_group` metadata), or null. */
  reviewGroup: string | null;
  /**
   * For a review whose policy wants several approvals: how many, who approved so far and
   * the answer they approved (others approve the same, or their edit starts the count
   * again); null otherwise.
   */
  approvals: {
    required: number;
    approvedBy: Array<Omit<Approval, "idempotencyKey">>;
    answer: unknown;
  } | null;
}

const clip = (text: string, max = 120) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

const shortValue = (v: unknown) => (typeof v === "string" ? v : (JSON.stringify(v) ?? "null"));

/** A short plain-text line for the list, e.g. `remove_file(path: temp.txt)`. */
export function summaryOf(i: InterruptRecord, kind: PauseKind): string {
  if (kind === "breakpoint") return `paused ${i.timing} ${i.node}`;
  if (kind === "interrupt") {
    // A question (`interrupt({ question })`, as ask_user tools do) reads better as itself.
    const question = (i.value as { question?: unknown } | null)?.question;
    return clip(typeof question === "string" ? question : shortValue(i.value));
  }
  const { actionRequests } = i.value as {
    actionRequests: Array<{ name: string; args: Record<string, unknown> }>;
  };
  return clip(
    actionRequests
      .map(
        (a) =>
          `${a.name}(${Object.entries(a.args)
            .map(([k, v]) => `${k}: ${clip(shortValue(v), 40)}`)
            .join(", ")})`,
      )
      .join(", "),
  );
}

/** The id a reviewer answers: the interrupt's, or `breakpoint:<checkpointId>` for a breakpoint. */
export function itemIdOf(i: InterruptRecord, checkpointId: string): string {
  return pauseKind(i) === "breakpoint" ? `breakpoint:${checkpointId}` : i.id;
}

/** What a thread record has pending, as inbox items (a breakpoint once, however many nodes). */
export function inboxItemsOf(record: ThreadRecord, graphId: string | undefined): InboxItem[] {
  const {
    [DECISIONS_KEY]: _decisions,
    [APPROVALS_KEY]: _approvals,
    ...threadMetadata
  } = record.metadata;
  const items: InboxItem[] = [];
  const seen = new Set<string>();
  const group = record.metadata[REVIEW_GROUP_KEY];
  for (const i of record.interrupts) {
    const kind = pauseKind(i);
    const interruptId = itemIdOf(i, record.latestCheckpointId);
    if (seen.has(interruptId)) continue;
    seen.add(interruptId);
    items.push({
      threadId: record.threadId,
      graphId,
      interruptId,
      kind,
      node: i.node,
      ns: i.ns,
      value: i.value,
      checkpointId: record.latestCheckpointId,
      waitingSince: record.updatedAt,
      threadMetadata,
      summary: summaryOf(i, kind),
      deadline: deadlineOf(i) ?? null,
      reviewGroup: typeof group === "string" ? group : null,
      approvals: kind === "tool_review" ? approvalsOf(record, i) : null,
    });
  }
  return items;
}

/** The approvals a review collects, when its policy wants more than one. */
function approvalsOf(record: ThreadRecord, interrupt: InterruptRecord): InboxItem["approvals"] {
  const required = Math.max(
    1,
    ...HITL.fromInterrupt(interrupt).actions.map((a) => a.approvals ?? 1),
  );
  if (required < 2) return null;
  const kept = pendingApprovalsOf(record)[interrupt.id];
  const current = kept?.checkpointId === record.latestCheckpointId ? kept : undefined;
  const approvedBy = (current?.approvedBy ?? []).map(({ idempotencyKey: _key, ...a }) => a);
  return { required, approvedBy, answer: current?.answer ?? null };
}
