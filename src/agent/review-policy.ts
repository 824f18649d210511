import { z } from "zod";
import { AgentConfigError } from "../errors/index.js";
import { sentences } from "../errors/sentences.js";
import type { JsonSchema, ToolCall } from "../models/index.js";
import type { AgentRuntime } from "./middleware.js";
import {
  DECISION_TYPES,
  type DeadlineExpiry,
  type DecisionType,
  type ReviewerRules,
} from "./review.js";
import { resolveDeadline } from "./review-deadline.js";
import { type ReviewersOption, resolveApprovals, resolveReviewers } from "./review-rights.js";
import type { AgentState } from "./state.js";

/**
 * Decides whether one tool call needs review. It is called as `(call, state, runtime)`;
 * declare only the parameters you use (`(call) => …`, `(call, state) => …`). Only `true`
 * (or a promise of `true`) asks for review: any other result, truthy or not, lets the call
 * run unreviewed. It runs again when the agent resumes, so it must give the same answer
 * for the same call and state.
 *
 * @example
 * const bigTransfers: ToolCallPredicate = (call) => Number(call.args.amount) > 1000;
 */
export type ToolCallPredicate<C = unknown> = (
  call: ToolCall,
  state: AgentState,
  runtime: AgentRuntime<C>,
) => boolean | Promise<boolean>;

/**
 * Writes the text a reviewer sees for one tool call; called as `(call, state, runtime)`
 * like a predicate, and like one it must be deterministic (it runs again on resume).
 *
 * @example
 * const describe: ToolCallDescription<{ userId: string }> = (call, _state, runtime) =>
 *   `SQL from ${runtime.context.userId}: ${call.args.query}`;
 */
export type ToolCallDescription<C = unknown> = (
  call: ToolCall,
  state: AgentState,
  runtime: AgentRuntime<C>,
) => string | Promise<string>;

/**
 * How calls to one tool are reviewed.
 *
 * - `allowedDecisions` (required): what the reviewer may do.
 * - `when` (or its alias `predicate`): review only calls for which it returns `true`.
 * - `description`: the text shown instead of the default, or a function that writes it.
 * - `argsSchema`: a zod schema or a JSON Schema that edited args must also satisfy (on
 *   top of the tool's own schema); it is sent to the reviewer as JSON Schema.
 * - `deadline`: how long the review may wait, and what happens when nobody answered by
 *   then (see `ReviewDeadlinePolicy`; it takes effect for runs executed by `createRuns`).
 * - `reviewers`: who may decide, `{ permission }` or a list of identities and groups, for
 *   every decision or per decision type (`{ approve: { permission: "dba" } }`: anyone may
 *   reject, only `dba` may approve). Checked where decisions come in through the server.
 * - `approvals`: how many different people must approve the same (possibly edited) args
 *   before the call runs (2 for two-person approval; through the server's inbox decisions).
 *
 * @example
 * const policy: ReviewPolicy = {
 *   allowedDecisions: ["approve", "reject"],
 *   when: (call) => String(call.args.query).toUpperCase().startsWith("DELETE"),
 * };
 */
export interface ReviewPolicy<C = unknown> {
  allowedDecisions: readonly DecisionType[];
  when?: ToolCallPredicate<C>;
  predicate?: ToolCallPredicate<C>;
  description?: string | ToolCallDescription<C>;
  argsSchema?: z.ZodType | JsonSchema;
  deadline?: ReviewDeadlinePolicy;
  reviewers?: ReviewersOption;
  approvals?: number;
}

/**
 * A review's deadline: `after` (milliseconds, or a duration such as `"30m"`, `"2h"`,
 * `"1d"`) counted from when the review is raised, and `onExpiry`: `{ reject: { message } }`
 * rejects the calls (the policy must allow `reject`), `{ handOff: { group } }` hands the
 * review to another group, `"wait"` keeps waiting, marked overdue.
 *
 * @example
 * const deadline: ReviewDeadlinePolicy = { after: "2h", onExpiry: { reject: { message: "Nobody approved in time." } } };
 */
export interface ReviewDeadlinePolicy {
  after: number | string;
  onExpiry: DeadlineExpiry;
}

/**
 * Review policies by tool name: `true` allows every decision, `false` (or leaving the tool
 * out) means no review, an object is a `ReviewPolicy`.
 *
 * @example
 * const interruptOn: InterruptOnConfig = {
 *   remove_file: true,
 *   fetch_file: false,
 *   notify_email: { allowedDecisions: ["approve", "reject"] },
 * };
 */
export type InterruptOnConfig<C = unknown> = Record<string, boolean | ReviewPolicy<C> | undefined>;

/** A policy after checking: decisions copied, `predicate` folded into `when`, schema in both forms. */
export interface ResolvedPolicy<C = unknown> {
  tool: string;
  allowedDecisions: DecisionType[];
  when: ToolCallPredicate<C> | undefined;
  description: string | ToolCallDescription<C> | undefined;
  argsSchema: { zod: z.ZodType; json: JsonSchema } | undefined;
  deadline: { afterMs: number; onExpiry: DeadlineExpiry } | undefined;
  reviewers: ReviewerRules | undefined;
  approvals: number;
}

const isZod = (v: unknown): v is z.ZodType =>
  typeof v === "object" &&
  v !== null &&
  "_zod" in v &&
  typeof (v as z.ZodType).safeParse === "function";

/**
 * Checks an `interruptOn` map and returns the policies that ask for review. Mistakes throw
 * `AgentConfigError` now rather than letting a misspelt policy silently skip review.
 *
 * @example
 * resolveInterruptOn({ remove_file: true }).get("remove_file")?.allowedDecisions; // all four
 */
export function resolveInterruptOn<C>(
  interruptOn: InterruptOnConfig<C>,
): Map<string, ResolvedPolicy<C>> {
  if (typeof interruptOn !== "object" || interruptOn === null || Array.isArray(interruptOn)) {
    throw new AgentConfigError(
      "interruptOn must map tool names to true, false or { allowedDecisions, … }, e.g. { remove_file: true }.",
    );
  }
  const policies = new Map<string, ResolvedPolicy<C>>();
  for (const [tool, entry] of Object.entries(interruptOn)) {
    if (entry === false || entry === undefined) continue;
    if (entry === true) {
      policies.set(tool, {
        tool,
        allowedDecisions: [...DECISION_TYPES],
        when: undefined,
        description: undefined,
        argsSchema: undefined,
        deadline: undefined,
        reviewers: undefined,
        approvals: 1,
      });
      continue;
    }
    policies.set(tool, resolvePolicy(tool, entry));
  }
  return policies;
}

function resolvePolicy<C>(tool: string, entry: unknown): ResolvedPolicy<C> {
  const where = `interruptOn.${tool}`;
  if (typeof entry !== "object" || entry === null || Array.isArray(entry)) {
    throw new AgentConfigError(
      `${where} is ${JSON.stringify(entry)}; use true (all decisions), false (no review) or { allowedDecisions: [...] }.`,
    );
  }
  const policy = entry as Partial<ReviewPolicy<C>>;
  const allowed = policy.allowedDecisions;
  if (!Array.isArray(allowed) || allowed.length === 0) {
    throw new AgentConfigError(
      `${where} has no allowedDecisions, so it is unclear what the reviewer may do. Give it allowedDecisions, e.g. ["approve", "reject"], use true for all of ${DECISION_TYPES.join(", ")}, or false for no review.`,
    );
  }
  for (const type of allowed) {
    if (!DECISION_TYPES.includes(type)) {
      throw new AgentConfigError(
        `${where}.allowedDecisions has ${JSON.stringify(type)}; decisions are ${DECISION_TYPES.join(", ")}.`,
      );
    }
  }
  if (policy.when !== undefined && policy.predicate !== undefined) {
    throw new AgentConfigError(
      `${where} sets both when and predicate; they are the same option, keep one.`,
    );
  }
  const when = policy.when ?? policy.predicate;
  if (when !== undefined && typeof when !== "function") {
    throw new AgentConfigError(
      `${where}.${policy.when !== undefined ? "when" : "predicate"} must be a function (call, state?, runtime?) => boolean.`,
    );
  }
  const description = policy.description;
  if (
    description !== undefined &&
    typeof description !== "string" &&
    typeof description !== "function"
  ) {
    throw new AgentConfigError(
      `${where}.description must be a string or a function (call, state?, runtime?) => string.`,
    );
  }
  const deadline =
    policy.deadline === undefined
      ? undefined
      : resolveDeadline(`${where}.deadline`, policy.deadline);
  if (deadline && typeof deadline.onExpiry === "object" && "reject" in deadline.onExpiry) {
    if (!allowed.includes("reject")) {
      throw new AgentConfigError(
        `${where}.deadline rejects the call when it passes, but allowedDecisions has no "reject"; add "reject" or choose onExpiry handOff or "wait".`,
      );
    }
  }
  const allowedDecisions = [...new Set(allowed)];
  return {
    tool,
    allowedDecisions,
    when,
    description,
    argsSchema:
      policy.argsSchema === undefined ? undefined : resolveSchema(where, policy.argsSchema),
    deadline,
    reviewers:
      policy.reviewers === undefined
        ? undefined
        : resolveReviewers(`${where}.reviewers`, policy.reviewers, allowedDecisions),
    approvals:
      policy.approvals === undefined
        ? 1
        : resolveApprovals(`${where}.approvals`, policy.approvals, allowedDecisions),
  };
}

function resolveSchema(where: string, schema: unknown): { zod: z.ZodType; json: JsonSchema } {
  try {
    if (isZod(schema)) {
      const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { io: "input" }) as JsonSchema;
      return { zod: schema, json };
    }
    if (typeof schema === "object" && schema !== null && !Array.isArray(schema)) {
      return { zod: z.fromJSONSchema(schema as never), json: schema as JsonSchema };
    }
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new AgentConfigError(sentences(`${where}.argsSchema cannot be used: ${reason}`));
  }
  throw new AgentConfigError(
    `${where}.argsSchema must be a zod schema or a JSON Schema object, got ${typeof schema}.`,
  );
}
