import { InvalidResumeError, NotAReviewError } from "../errors/index.js";
import type { JsonSchema } from "../models/index.js";

/**
 * What a reviewer may do with a tool call: run it (`approve`), run a corrected version
 * (`edit`), skip it and tell the model why (`reject`), or skip it and answer in the
 * tool's place (`respond`).
 *
 * @example
 * const readOnly: DecisionType[] = ["approve", "reject"];
 */
export type DecisionType = "approve" | "edit" | "reject" | "respond";

/**
 * Every decision type, in the order `true` in `interruptOn` allows them.
 *
 * @example
 * DECISION_TYPES.includes(input as DecisionType); // validate a type from a form
 */
export const DECISION_TYPES: readonly DecisionType[] = ["approve", "edit", "reject", "respond"];

/**
 * One tool call waiting for review. `id` is the tool call's id.
 *
 * @example
 * const request: ActionRequest = { id: "call_1", name: "remove_file", args: { path: "temp.txt" }, description: "…" };
 */
export interface ActionRequest {
  id: string;
  name: string;
  args: Record<string, unknown>;
  description: string;
}

/**
 * Who may take a decision: holders of a `permission`, or `anyOf` the listed identities and
 * groups. A review config carries rules in this form (plain JSON, checkpointed with the
 * pause), so whoever takes decisions can check them without the agent's code.
 *
 * @example
 * const dbaOnly: ReviewerRule = { permission: "dba" };
 */
export type ReviewerRule = { permission: string } | { anyOf: string[] };

/**
 * Rules by decision type; a type left out may be taken by anyone who can open the review.
 *
 * @example
 * const rules: ReviewerRules = { approve: { permission: "dba" }, edit: { permission: "dba" } };
 */
export type ReviewerRules = Partial<Record<DecisionType, ReviewerRule>>;

/**
 * How the action request at the same index may be decided. `argsSchema` (JSON Schema) is
 * present when the tool's review policy set one; `reviewers` when it limits who may take
 * which decision; `approvals` when more than one person must approve before the call runs.
 *
 * @example
 * const config: ReviewConfig = { actionName: "send_email", allowedDecisions: ["approve", "reject"] };
 */
export interface ReviewConfig {
  actionName: string;
  allowedDecisions: DecisionType[];
  argsSchema?: JsonSchema;
  reviewers?: ReviewerRules;
  approvals?: number;
}

/**
 * What happens when a review's deadline passes unanswered: every call of the review is
 * rejected with `message`, the review is handed to another `group` (the thread's
 * `review_group` metadata; it stays pending), or it keeps waiting, marked overdue.
 *
 * @example
 * const onExpiry: DeadlineExpiry = { handOff: { group: "oncall", message: "No answer in 2h" } };
 */
export type DeadlineExpiry =
  | { reject: { message?: string } }
  | { handOff: { group: string; message?: string } }
  | "wait";

/**
 * A review's deadline as its interrupt value carries it: when (`at`, ISO time, fixed when
 * the review is first raised) and what happens then.
 *
 * @example
 * const d: ReviewDeadline = { at: "2026-01-01T12:00:00.000Z", onExpiry: "wait" };
 */
export interface ReviewDeadline {
  at: string;
  onExpiry: DeadlineExpiry;
}

/**
 * The interrupt value of a tool review: action requests and review configs, index by
 * index, and the `deadline` when a policy of its calls set one. Plain JSON, so it is
 * checkpointed with the paused thread.
 *
 * @example
 * if (r.status === "interrupted") (r.interrupt.value as ReviewRequest).actionRequests;
 */
export interface ReviewRequest {
  actionRequests: ActionRequest[];
  reviewConfigs: ReviewConfig[];
  deadline?: ReviewDeadline;
}

/**
 * Run the tool call as the model proposed it.
 *
 * @example
 * const ok: ApproveDecision = { type: "approve" };
 */
export interface ApproveDecision {
  type: "approve";
}
/**
 * Run `editedAction` instead (same call id); its args are validated before anything runs.
 *
 * @example
 * const fix: EditDecision = { type: "edit", editedAction: { name: "remove_file", args: { path: "tmp.txt" } } };
 */
export interface EditDecision {
  type: "edit";
  editedAction: { name: string; args: Record<string, unknown> };
}
/**
 * Do not run the call; the model gets an error tool message with `message`.
 *
 * @example
 * const no: RejectDecision = { type: "reject", message: "Ask for a date range first." };
 */
export interface RejectDecision {
  type: "reject";
  message?: string;
}
/**
 * Do not run the call; the model gets `message` as the tool's successful result.
 *
 * @example
 * const answer: RespondDecision = { type: "respond", message: "Blue." };
 */
export interface RespondDecision {
  type: "respond";
  message: string;
}

/**
 * A reviewer's decision on one action request.
 *
 * @example
 * const decisions: ReviewDecision[] = [{ type: "approve" }, { type: "reject", message: "Not today." }];
 */
export type ReviewDecision = ApproveDecision | EditDecision | RejectDecision | RespondDecision;

/**
 * The resume value a tool review expects: one decision per action request, in order.
 *
 * @example
 * await agent.resume({ decisions: [{ type: "approve" }] } satisfies ReviewResume, { config });
 */
export interface ReviewResume {
  decisions: ReviewDecision[];
}

/**
 * A tool review ready to render: the raw request plus `actions`, each action request
 * joined with its review config.
 *
 * @example
 * const review = HITL.fromInterrupt(r.interrupt);
 * for (const action of review.actions) console.log(action.description, action.allowedDecisions);
 */
export interface ToolReview extends ReviewRequest {
  /** The interrupt's id (resume by id when several interrupts are pending). */
  interruptId: string;
  actions: Array<
    ActionRequest & {
      allowedDecisions: DecisionType[];
      argsSchema?: JsonSchema;
      reviewers?: ReviewerRules;
      approvals?: number;
    }
  >;
}

/**
 * The part of an interrupt record review needs (every `InterruptRecord` is one).
 *
 * @example
 * HITL.isReview({ id: "x", value: { question: "Proceed?" } }); // false
 */
export interface InterruptLike {
  id: string;
  value: unknown;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** Why `value` is not a review request, or undefined when it is one. */
function reviewProblem(value: unknown): string | undefined {
  if (!isObject(value)) return `its value is ${value === null ? "null" : typeof value}`;
  const { actionRequests, reviewConfigs } = value;
  if (!Array.isArray(actionRequests) || !Array.isArray(reviewConfigs))
    return "its value has no actionRequests and reviewConfigs arrays";
  if (actionRequests.length !== reviewConfigs.length)
    return `it has ${actionRequests.length} action requests but ${reviewConfigs.length} review configs`;
  for (const [i, a] of actionRequests.entries()) {
    if (!isObject(a) || typeof a.id !== "string" || typeof a.name !== "string" || !isObject(a.args))
      return `action request ${i + 1} is not { id, name, args, description }`;
  }
  for (const [i, c] of reviewConfigs.entries()) {
    if (!isObject(c) || typeof c.actionName !== "string" || !Array.isArray(c.allowedDecisions))
      return `review config ${i + 1} is not { actionName, allowedDecisions }`;
  }
  return undefined;
}

function decision(type: "approve"): ApproveDecision;
function decision(
  type: "edit",
  options: { editedAction: { name: string; args: Record<string, unknown> } },
): EditDecision;
function decision(type: "reject", options?: { message?: string }): RejectDecision;
function decision(type: "respond", options: { message: string }): RespondDecision;
function decision(
  type: DecisionType,
  options: { message?: string; editedAction?: EditDecision["editedAction"] } = {},
): ReviewDecision {
  switch (type) {
    case "approve":
      return { type };
    case "reject":
      return options.message === undefined ? { type } : { type, message: options.message };
    case "respond":
      if (typeof options.message !== "string") {
        throw new InvalidResumeError(
          'HITL.decision("respond") needs the answer to give the model: HITL.decision("respond", { message: "…" }).',
        );
      }
      return { type, message: options.message };
    case "edit":
      if (!isObject(options.editedAction)) {
        throw new InvalidResumeError(
          'HITL.decision("edit") needs the call to run instead: HITL.decision("edit", { editedAction: { name, args } }).',
        );
      }
      return { type, editedAction: options.editedAction };
    default:
      throw new InvalidResumeError(
        `HITL.decision(${JSON.stringify(type)}): unknown decision type; use one of ${DECISION_TYPES.join(", ")}.`,
      );
  }
}

/**
 * Helpers for the code that shows tool reviews to people and sends their decisions back.
 *
 * @example
 * const r = await agent.invoke({ messages: [message.user("Delete temp.txt")] }, { config });
 * if (r.status === "interrupted" && HITL.isReview(r.interrupt)) {
 *   const review = HITL.fromInterrupt(r.interrupt);
 *   await agent.resumeReview(review.actions.map(() => HITL.decision("approve")), { config });
 * }
 */
export const HITL = {
  /** True when the interrupt is a tool review (its value has action requests and review configs). */
  isReview(interrupt: InterruptLike): boolean {
    return reviewProblem(interrupt?.value) === undefined;
  },

  /**
   * The typed review of an interrupt. Throws `NotAReviewError` for any other interrupt, such
   * as a static breakpoint or a node's own `interrupt(value)`.
   */
  fromInterrupt(interrupt: InterruptLike): ToolReview {
    const problem = reviewProblem(interrupt?.value);
    if (problem !== undefined) {
      throw new NotAReviewError(
        `Interrupt ${JSON.stringify(interrupt?.id)} is not a tool review: ${problem}. Tool reviews come from humanInTheLoop (or an agent's interruptOn); handle other interrupts with resume(value). HITL.isReview(interrupt) tells them apart.`,
      );
    }
    const request = interrupt.value as ReviewRequest;
    return {
      interruptId: interrupt.id,
      actionRequests: request.actionRequests,
      reviewConfigs: request.reviewConfigs,
      ...(request.deadline !== undefined && { deadline: request.deadline }),
      actions: request.actionRequests.map((action, i) => {
        const config = request.reviewConfigs[i]!;
        return {
          ...action,
          allowedDecisions: config.allowedDecisions,
          ...(config.argsSchema !== undefined && { argsSchema: config.argsSchema }),
          ...(config.reviewers !== undefined && { reviewers: config.reviewers }),
          ...(config.approvals !== undefined && { approvals: config.approvals }),
        };
      }),
    };
  },

  /**
   * Builds a decision: `decision("approve")`, `decision("edit", { editedAction })`,
   * `decision("reject", { message? })`, `decision("respond", { message })`.
   */
  decision,
};
