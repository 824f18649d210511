// A run's `command.resume` (the LangGraph API) as review decisions: which interrupts it answers,
// and, for a run that was queued behind another, the rights, the record and the webhook when it starts.
import type { AuditLog } from "../audit/index.js";
import type { InterruptRecord, ThreadRecord } from "../checkpoint/index.js";
import type { CompiledGraph } from "../index.js";
import type { DecidedReview, QueuedRun, RunInput } from "../runs/index.js";
import type { AuthUser, RequestIdentity } from "./auth/identity.js";
import { sharedTokenIdentity } from "./auth/identity.js";
import { decisionsOfRun, recordResumeDecisions } from "./decision-audit.js";
import { checkResumeRights } from "./decision-rights.js";
import type { Decision } from "./decisions.js";

/**
 * Which pending interrupt each part of a resume answers: an object keyed by pending
 * interrupt ids answers those; anything else answers the only pending interrupt.
 *
 * @example
 * answersOf(record.interrupts, { decisions: [{ type: "approve" }] }); // [[theOnlyInterrupt, { decisions: … }]]
 */
export function answersOf(
  pending: InterruptRecord[],
  resume: unknown,
): Array<[InterruptRecord, unknown]> {
  if (typeof resume === "object" && resume !== null && !Array.isArray(resume)) {
    const keys = Object.keys(resume);
    const byId = new Map(pending.map((i) => [i.id, i]));
    if (keys.length > 0 && keys.every((k) => byId.has(k)))
      return keys.map((k) => [byId.get(k)!, (resume as Record<string, unknown>)[k]]);
  }
  return pending.length === 1 ? [[pending[0]!, resume]] : [];
}

/** Where `review.decided` goes: the runs' webhooks (`runs.webhooks`). */
export interface DecisionTeller {
  reviewDecided(review: DecidedReview): Promise<void>;
}

/** Tell `review.decided` for each decision a resume took (never throws: webhooks report their own errors). */
export function tellDecided(
  webhooks: DecisionTeller | undefined,
  graphId: string,
  record: ThreadRecord,
  decisions: Decision[],
): void {
  for (const decision of decisions) {
    const interrupt = record.interrupts.find((i) => i.id === decision.interruptId);
    if (interrupt) void webhooks?.reviewDecided({ ...decision, graphId, interrupt });
  }
}

const resumeOf = (input: RunInput): { value: unknown } | undefined =>
  input !== null && "command" in input && input.command && "resume" in input.command
    ? { value: (input.command as { resume?: unknown }).resume }
    : undefined;

/** Who started a run: the auth handler's user stored with it, else a shared-token caller. */
function starterOf(run: QueuedRun): RequestIdentity {
  const user = run.request.configurable?.langgraph_auth_user as AuthUser | undefined;
  return user && typeof user.identity === "string"
    ? { user, method: "auth_handler" }
    : sharedTokenIdentity(undefined);
}

/**
 * Before a run with a resume executes: if nothing recorded it as a decision yet (it was
 * queued behind another run, or sent with `interrupt`/`rollback` while one ran, so what
 * it answers was not known when it was created), check the starter's rights against
 * what waits now (a `RequestError` 403 fails the run before the graph moves: the thread
 * stays paused), record each answer as the starter's decision, and tell `review.decided`.
 * Runs the inbox, a deadline or an admitted resume started are already recorded: nothing.
 *
 * @example
 * await admitQueuedResume({ audit, webhooks: runs.webhooks }, graph, run, input);
 */
export async function admitQueuedResume(
  options: { audit: AuditLog; webhooks?: DecisionTeller | undefined },
  graph: CompiledGraph<any, any>,
  run: QueuedRun,
  input: RunInput,
): Promise<void> {
  const resume = resumeOf(input);
  // Recorded by the server that created the run, before it did: nothing to look up.
  if (!resume || !graph.checkpointer || run.request.decisionsRecorded) return;
  const record = await graph.checkpointer.getThread(run.threadId);
  const answers = record ? answersOf(record.interrupts, resume.value) : [];
  if (!record || answers.length === 0) return;
  if ((await decisionsOfRun(options.audit, run.threadId, run.runId)).length > 0) return;
  const who = starterOf(run);
  for (const [interrupt, answer] of answers) checkResumeRights(interrupt, answer, who);
  const decisions = await recordResumeDecisions(options.audit, record, answers, who, run.runId);
  tellDecided(options.webhooks, run.graphId, record, decisions);
}
