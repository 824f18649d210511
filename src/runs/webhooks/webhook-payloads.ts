// What each webhook event says: chat-ready `title`/`text` plus the structured fields, built purely.
import type { DecisionType, ReviewDeadline, ReviewerRules } from "../../agent/index.js";
import type { InterruptRecord } from "../../checkpoint/index.js";
import { type DeadlineOutcome, deadlineOf } from "../review-deadlines.js";
import type { BackgroundRun } from "../run.js";
import type { WebhookEvent } from "./webhook-options.js";

/**
 * The JSON body of a webhook from the `"webhooks"` settings. `text` (with `title` as its
 * first line) is what a chat tool's incoming webhook (Slack, Mattermost, Teams, Rocket.Chat)
 * shows as is; the other fields are there for programs. Fields an event does not have are
 * `null`.
 *
 * @example
 * const body: WebhookPayload = {
 *   event: "review.waiting", delivery_id: "review.waiting|t1|a1b2|9f86d081", occurred_at: "2026-01-01T12:00:00.000Z",
 *   title: "Review waiting: approve execute_sql on thread t1",
 *   text: "Review waiting: approve execute_sql on thread t1\nexecute_sql(query: \"drop table x\")\nAsked: approve needs permission dba\nhttps://reviews.example.com/reviews/a1b2",
 *   url: "https://reviews.example.com/reviews/a1b2", thread_id: "t1", graph_id: "ops", run_id: "r1",
 *   interrupt_id: "a1b2", kind: "tool_review", tool: "execute_sql", args: { query: "drop table x" },
 *   actions: [{ tool: "execute_sql", args: { query: "drop table x" } }], asked: "approve needs permission dba",
 *   reviewers: { approve: { permission: "dba" } }, review_group: null, deadline: null,
 *   decision: null, expiry: null, status: null, error: null,
 * };
 */
export interface WebhookPayload {
  event: WebhookEvent;
  /** The same for every attempt at this delivery (also the `stateweaver-delivery` header). */
  delivery_id: string;
  occurred_at: string;
  title: string;
  text: string;
  /** The review (or, for a run, the thread) in the inbox, when `inboxUrl` is set. */
  url: string | null;
  thread_id: string;
  graph_id: string;
  run_id: string | null;
  interrupt_id: string | null;
  /** What waits: a tool review, a plain `interrupt()` (a question), or a breakpoint. */
  kind: "tool_review" | "interrupt" | "breakpoint" | null;
  /** The first tool call under review, and its args (all of them in `actions`). */
  tool: string | null;
  args: Record<string, unknown> | null;
  actions: Array<{ tool: string; args: Record<string, unknown> }>;
  /** Who is asked, in words (from the review policy's `reviewers`). */
  asked: string | null;
  /** The review policy's `reviewers` rules of the first call that has any. */
  reviewers: ReviewerRules | null;
  /** The group the review was handed to by a deadline (`review_group`), if any. */
  review_group: string | null;
  deadline: ReviewDeadline | null;
  /** `review.decided`: who decided what. */
  decision: {
    reviewer: string;
    authenticated_by: string | null;
    decided_at: string;
    types: DecisionType[];
    answer: unknown;
  } | null;
  /** `review.expired`: what the deadline did (`rejected`, `handed_off`, `overdue`). */
  expiry: DeadlineOutcome | null;
  /** `run.ended`: the run's final status and error. */
  status: BackgroundRun["status"] | null;
  error: { name: string; message: string } | null;
}

/** What a review interrupt shows: kind, tool calls, rules and deadline. */
interface ReviewFacts {
  kind: "tool_review" | "interrupt" | "breakpoint";
  actions: Array<{ tool: string; args: Record<string, unknown> }>;
  reviewers: ReviewerRules | null;
  deadline: ReviewDeadline | null;
  question: string | null;
  node: string;
  timing: string;
}

/** The facts of a pending interrupt, read from its value as the inbox reads it. */
export function reviewFactsOf(interrupt: InterruptRecord): ReviewFacts {
  const value = interrupt.value as {
    actionRequests?: Array<{ name: string; args: Record<string, unknown> }>;
    reviewConfigs?: Array<{ reviewers?: ReviewerRules }>;
    question?: unknown;
  } | null;
  const isReview =
    interrupt.timing === "during" &&
    Array.isArray(value?.actionRequests) &&
    Array.isArray(value?.reviewConfigs);
  const kind =
    interrupt.timing !== "during" ? "breakpoint" : isReview ? "tool_review" : "interrupt";
  return {
    kind,
    actions: isReview
      ? value!.actionRequests!.map((a) => ({ tool: a.name, args: a.args ?? {} }))
      : [],
    reviewers: isReview
      ? (value!.reviewConfigs!.find((c) => c.reviewers !== undefined)?.reviewers ?? null)
      : null,
    deadline: deadlineOf(interrupt) ?? null,
    question: typeof value?.question === "string" ? value.question : null,
    node: interrupt.node,
    timing: interrupt.timing,
  };
}

const clip = (text: string, max: number) =>
  text.length > max ? `${text.slice(0, max - 1)}…` : text;

/** `execute_sql(query: "drop table x")`, each arg clipped. */
function callText(action: { tool: string; args: Record<string, unknown> }): string {
  const args = Object.entries(action.args).map(
    ([k, v]) => `${k}: ${clip(JSON.stringify(v) ?? "null", 80)}`,
  );
  return `${action.tool}(${args.join(", ")})`;
}

/** "approve needs permission dba; reject: anyone who can open the inbox". */
export function askedText(reviewers: ReviewerRules | null, group: string | null): string {
  const rules = Object.entries(reviewers ?? {}).map(
    ([type, rule]) =>
      `${type} needs ${"permission" in rule ? `permission ${rule.permission}` : `one of ${rule.anyOf.join(", ")}`}`,
  );
  const who = rules.length > 0 ? rules.join("; ") : "anyone who can open the inbox";
  return group ? `group ${group} (${who})` : who;
}

/** The parts every event shares, filled with nulls. */
function base(
  event: WebhookEvent,
  at: { deliveryId: string; occurredAt: string; threadId: string; graphId: string },
): WebhookPayload {
  return {
    event,
    delivery_id: at.deliveryId,
    occurred_at: at.occurredAt,
    title: "",
    text: "",
    url: null,
    thread_id: at.threadId,
    graph_id: at.graphId,
    run_id: null,
    interrupt_id: null,
    kind: null,
    tool: null,
    args: null,
    actions: [],
    asked: null,
    reviewers: null,
    review_group: null,
    deadline: null,
    decision: null,
    expiry: null,
    status: null,
    error: null,
  };
}

/** The fields of a review, and the first line of its text ("approve execute_sql"). */
function reviewFields(
  payload: WebhookPayload,
  interrupt: InterruptRecord,
  group: string | null,
  inboxUrl: string | undefined,
): { what: string; details: string[] } {
  const facts = reviewFactsOf(interrupt);
  payload.interrupt_id = interrupt.id;
  payload.kind = facts.kind;
  payload.actions = facts.actions;
  payload.tool = facts.actions[0]?.tool ?? null;
  payload.args = facts.actions[0]?.args ?? null;
  payload.reviewers = facts.reviewers;
  payload.review_group = group;
  payload.deadline = facts.deadline;
  payload.asked = askedText(facts.reviewers, group);
  payload.url = inboxUrl
    ? facts.kind === "breakpoint"
      ? `${inboxUrl}/threads/${encodeURIComponent(payload.thread_id)}`
      : `${inboxUrl}/reviews/${encodeURIComponent(interrupt.id)}`
    : null;
  if (facts.kind === "tool_review") {
    return {
      what: facts.actions.map((a) => a.tool).join(", "),
      details: facts.actions.map(callText),
    };
  }
  if (facts.kind === "breakpoint")
    return { what: `the breakpoint ${facts.timing} ${facts.node}`, details: [] };
  return {
    what: `the question from ${facts.node}`,
    details: [clip(facts.question ?? JSON.stringify(interrupt.value) ?? "", 300)],
  };
}

const lines = (...parts: Array<string | null | undefined | false>) =>
  parts.filter((p): p is string => typeof p === "string" && p !== "").join("\n");

/** Facts every event payload is built from. */
export interface EventContext {
  deliveryId: string;
  occurredAt: string;
  threadId: string;
  graphId: string;
  inboxUrl: string | undefined;
}

/** `review.waiting`: what waits, who is asked, the link. */
export function reviewWaitingPayload(
  at: EventContext,
  interrupt: InterruptRecord,
  runId: string | null,
  group: string | null,
): WebhookPayload {
  const payload = base("review.waiting", at);
  payload.run_id = runId;
  const { what, details } = reviewFields(payload, interrupt, group, at.inboxUrl);
  const verb = payload.kind === "tool_review" ? "approve " : "";
  payload.title = `Review waiting: ${verb}${what} on thread ${at.threadId}`;
  payload.text = lines(
    payload.title,
    ...details,
    `Asked: ${payload.asked}`,
    payload.deadline && `Deadline: ${payload.deadline.at}`,
    payload.url,
  );
  return payload;
}

const PAST: Record<DecisionType, string> = {
  approve: "approved",
  edit: "edited",
  reject: "rejected",
  respond: "answered",
};

/** `review.decided`: who decided what. */
export function reviewDecidedPayload(
  at: EventContext,
  interrupt: InterruptRecord,
  decision: {
    reviewer: string;
    authenticatedBy?: string | undefined;
    decidedAt: string;
    answer: unknown;
    runId: string;
  },
): WebhookPayload {
  const payload = base("review.decided", at);
  payload.run_id = decision.runId;
  const { what, details } = reviewFields(payload, interrupt, null, at.inboxUrl);
  const answers = (decision.answer as { decisions?: Array<{ type?: unknown }> } | null)?.decisions;
  const types = Array.isArray(answers)
    ? answers
        .map((d) => d?.type)
        .filter((t): t is DecisionType => typeof t === "string" && t in PAST)
    : [];
  payload.decision = {
    reviewer: decision.reviewer,
    authenticated_by: decision.authenticatedBy ?? null,
    decided_at: decision.decidedAt,
    types,
    answer: decision.answer,
  };
  const verb = types.length > 0 ? [...new Set(types.map((t) => PAST[t]))].join("/") : "answered";
  payload.title = `Review decided: ${decision.reviewer} ${verb} ${what} on thread ${at.threadId}`;
  payload.text = lines(payload.title, ...details, payload.url);
  return payload;
}

/** `review.expired`: what the deadline did. */
export function reviewExpiredPayload(
  at: EventContext,
  interrupt: InterruptRecord | undefined,
  outcome: DeadlineOutcome,
): WebhookPayload {
  const payload = base("review.expired", at);
  payload.interrupt_id = outcome.interruptId;
  payload.expiry = outcome;
  payload.run_id = outcome.runId ?? null;
  const group = outcome.action === "handed_off" ? (outcome.group ?? null) : null;
  const { what, details } = interrupt
    ? reviewFields(payload, interrupt, group, at.inboxUrl)
    : { what: `review ${outcome.interruptId}`, details: [] };
  const did =
    outcome.action === "rejected"
      ? "was rejected"
      : outcome.action === "handed_off"
        ? `was handed to ${outcome.group}`
        : "is overdue";
  payload.title = `Review expired: ${what} on thread ${at.threadId} ${did}`;
  payload.text = lines(
    payload.title,
    ...details,
    outcome.message,
    outcome.reason && `(${outcome.reason})`,
    outcome.action !== "rejected" && payload.asked && `Asked: ${payload.asked}`,
    payload.url,
  );
  return payload;
}

/** `run.ended`: the run's final status. */
export function runEndedPayload(at: EventContext, run: BackgroundRun): WebhookPayload {
  const payload = base("run.ended", at);
  payload.run_id = run.runId;
  payload.status = run.status;
  payload.error = run.error ?? null;
  payload.url = at.inboxUrl ? `${at.inboxUrl}/threads/${encodeURIComponent(at.threadId)}` : null;
  payload.title = `Run ${run.runId} on thread ${at.threadId} ended: ${run.status}`;
  payload.text = lines(
    payload.title,
    run.error && `${run.error.name}: ${clip(run.error.message, 300)}`,
    payload.url,
  );
  return payload;
}
