import type { ActionRequest } from "../agent/index.js";
import type { ThreadRecord } from "../checkpoint/index.js";
import { DECISIONS_KEY } from "./inbox-items.js";
import type { Approval } from "./review-approvals.js";

/**
 * A reviewer's answer to one pause, as recorded in the thread's metadata
 * (`stateweaver:decisions`) and shown in its history.
 *
 * @example
 * const d: Decision = { interruptId: "a1", checkpointId: "c1", threadId: "t1", reviewer: "ana",
 *   decidedAt: "2026-01-01T00:00:05.000Z", waitedMs: 5000, answer: { decisions: [{ type: "approve" }] },
 *   runId: "r1", idempotencyKey: "k1" };
 */
export interface Decision {
  interruptId: string;
  checkpointId: string;
  threadId: string;
  reviewer: string;
  decidedAt: string;
  waitedMs: number;
  answer: unknown;
  /** A tool review's action requests as the model proposed them. */
  proposed?: ActionRequest[];
  runId: string;
  idempotencyKey: string;
  unexpandedApproveOverride?: boolean;
  /**
   * How `reviewer` was known: `auth_handler` (verified by the auth file) or `shared_token`
   * (a typed name nobody verified). Absent on a deadline's decision: the system's.
   */
  authenticatedBy?: "auth_handler" | "shared_token";
  /** Everyone who approved, when the review needed several people (`approvals`). */
  approvedBy?: Approval[];
}

/** One arg an edit changed: its path, the value proposed and the value the reviewer set. */
export interface ArgChange {
  path: string;
  proposed: unknown;
  edited: unknown;
}

/** The decisions recorded on a thread, oldest first. */
export function decisionsOf(record: Pick<ThreadRecord, "metadata">): Decision[] {
  const list = record.metadata[DECISIONS_KEY];
  return Array.isArray(list) ? (list as Decision[]) : [];
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** What the reviewer's edits changed, arg by arg (`actions.<i>.args.<key>`, or `.name`). */
export function diffOf(decision: Decision): ArgChange[] {
  const answers = (decision.answer as { decisions?: unknown[] } | null)?.decisions;
  if (!decision.proposed || !Array.isArray(answers)) return [];
  const changes: ArgChange[] = [];
  for (const [i, proposed] of decision.proposed.entries()) {
    const d = answers[i] as
      | { type?: string; editedAction?: { name: string; args: Record<string, unknown> } }
      | undefined;
    if (d?.type !== "edit" || !d.editedAction) continue;
    const edited = d.editedAction;
    if (edited.name !== proposed.name)
      changes.push({ path: `actions.${i}.name`, proposed: proposed.name, edited: edited.name });
    for (const key of new Set([...Object.keys(proposed.args), ...Object.keys(edited.args)])) {
      if (!same(proposed.args[key], edited.args[key])) {
        changes.push({
          path: `actions.${i}.args.${key}`,
          proposed: proposed.args[key] ?? null,
          edited: edited.args[key] ?? null,
        });
      }
    }
  }
  return changes;
}
