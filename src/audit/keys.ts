// The keys entries are appended under, so each fact is recorded once however often it is retried.

/**
 * Idempotency keys of the entries stateweaver appends. A reviewer's decision is keyed by
 * its thread and the idempotency key the reviewer's client sent; a deadline's by its
 * interrupt; a tool result by the run that produced it and the review it answered.
 *
 * @example
 * auditKeys.decision("t1", "k1"); // "decision:t1:k1"
 */
export const auditKeys = {
  decision: (threadId: string, idempotencyKey: string) => `decision:${threadId}:${idempotencyKey}`,
  approval: (threadId: string, idempotencyKey: string) => `approval:${threadId}:${idempotencyKey}`,
  deadline: (threadId: string, interruptId: string) => `deadline:${threadId}:${interruptId}`,
  notApplied: (decisionKey: string) => `not_applied:${decisionKey}`,
  toolResult: (runId: string, interruptId: string) => `tool_result:${runId}:${interruptId}`,
};

/**
 * The actor of what the deployment did itself: a review deadline's reject, hand-off or
 * overdue mark.
 */
export const DEADLINE_ACTOR = {
  identity: "deadline",
  displayName: "Review deadline",
  authenticatedBy: "system",
} as const;
