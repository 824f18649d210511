import { AgentConfigError } from "../errors/index.js";
import {
  DECISION_TYPES,
  type DecisionType,
  type ReviewerRule,
  type ReviewerRules,
} from "./review.js";

/**
 * How a review policy names who may decide: one rule for every decision, or rules per
 * decision type. A rule is `{ permission }` or a list of identities and group names.
 *
 * @example
 * const reviewers: ReviewersOption = { approve: ["dba", "ana@example.com"] }; // anyone may reject
 */
export type ReviewersOption =
  | ReviewerRuleOption
  | Partial<Record<DecisionType, ReviewerRuleOption>>;

/**
 * One rule as a policy writes it: `{ permission }` or a list of identities and groups.
 *
 * @example
 * const rule: ReviewerRuleOption = { permission: "ops:approve" };
 */
export type ReviewerRuleOption = { permission: string } | readonly string[];

/**
 * The person deciding, as the layer that authenticated them describes them. `verified` is
 * false for a name nobody checked (the shared token with a typed name): such a name holds
 * no rights and does not count as a second approver.
 *
 * @example
 * const who: Reviewer = { identity: "ana", permissions: ["dba"], verified: true };
 */
export interface Reviewer {
  identity: string;
  permissions?: readonly string[];
  groups?: readonly string[];
  verified: boolean;
}

const describeRule = (rule: ReviewerRule) =>
  "permission" in rule
    ? `holders of the "${rule.permission}" permission`
    : `${rule.anyOf.map((n) => `"${n}"`).join(", ")}`;

/**
 * Why `who` may not take a decision of `type` under `rules`, or undefined when they may.
 * A list matches the reviewer's identity, one of their groups or one of their permissions
 * (auth handlers often give roles as permissions).
 *
 * @example
 * reviewRefusal({ approve: { permission: "dba" } }, "approve", { identity: "bo", verified: true });
 * // 'Only holders of the "dba" permission may approve this call; bo may not.'
 */
export function reviewRefusal(
  rules: ReviewerRules | undefined,
  type: DecisionType,
  who: Reviewer,
): string | undefined {
  const rule = rules?.[type];
  if (rule === undefined) return undefined;
  if (!who.verified) {
    return `Only ${describeRule(rule)} may ${type} this call, and "${who.identity}" is a name nobody verified (the shared token). Sign in through the server's auth handler to use your rights.`;
  }
  if ("permission" in rule) {
    if (who.permissions?.includes(rule.permission)) return undefined;
  } else {
    const names = new Set([who.identity, ...(who.groups ?? []), ...(who.permissions ?? [])]);
    if (rule.anyOf.some((n) => names.has(n))) return undefined;
  }
  return `Only ${describeRule(rule)} may ${type} this call; ${who.identity} may not.`;
}

function resolveRule(where: string, rule: unknown): ReviewerRule {
  if (Array.isArray(rule)) {
    if (rule.length === 0 || !rule.every((n) => typeof n === "string" && n.length > 0)) {
      throw new AgentConfigError(
        `${where} must list at least one identity or group name, e.g. ["dba"].`,
      );
    }
    return { anyOf: [...new Set(rule as string[])] };
  }
  if (typeof rule === "object" && rule !== null && "permission" in rule) {
    const { permission } = rule as { permission: unknown };
    if (typeof permission === "string" && permission.length > 0) return { permission };
  }
  throw new AgentConfigError(
    `${where} is ${JSON.stringify(rule)}; use { permission: "ops:approve" } or a list of identities and groups, e.g. ["dba"].`,
  );
}

/**
 * Checks a policy's `reviewers` and gives the rules per decision type; only types the
 * policy allows may have rules.
 *
 * @example
 * resolveReviewers("interruptOn.execute_sql", { permission: "dba" }, ["approve", "reject"]);
 * // { approve: { permission: "dba" }, reject: { permission: "dba" } }
 */
export function resolveReviewers(
  where: string,
  option: unknown,
  allowed: readonly DecisionType[],
): ReviewerRules {
  if (typeof option !== "object" || option === null) {
    throw new AgentConfigError(
      `${where} is ${JSON.stringify(option)}; use { permission }, a list of identities and groups, or rules per decision, e.g. { approve: { permission: "dba" } }.`,
    );
  }
  if (Array.isArray(option) || "permission" in option) {
    const rule = resolveRule(where, option);
    return Object.fromEntries(allowed.map((type) => [type, rule]));
  }
  const rules: ReviewerRules = {};
  for (const [type, rule] of Object.entries(option)) {
    if (!DECISION_TYPES.includes(type as DecisionType)) {
      throw new AgentConfigError(
        `${where} has a rule for ${JSON.stringify(type)}; rules are keyed by decision type (${DECISION_TYPES.join(", ")}), or give one rule as { permission } or a list.`,
      );
    }
    if (!allowed.includes(type as DecisionType)) {
      throw new AgentConfigError(
        `${where}.${type} names who may ${type}, but allowedDecisions has no "${type}"; add it or remove the rule.`,
      );
    }
    if (rule === undefined) continue;
    rules[type as DecisionType] = resolveRule(`${where}.${type}`, rule);
  }
  return rules;
}

/**
 * Checks a policy's `approvals`: a whole number from 1 to 5 of different people who must
 * approve the same calls before they run; it needs a decision that runs the tool.
 *
 * @example
 * resolveApprovals("interruptOn.remove_file", 2, ["approve", "reject"]); // 2
 */
export function resolveApprovals(
  where: string,
  option: unknown,
  allowed: readonly DecisionType[],
): number {
  if (typeof option !== "number" || !Number.isInteger(option) || option < 1 || option > 5) {
    throw new AgentConfigError(
      `${where} is ${JSON.stringify(option)}; give how many different people must approve, a whole number from 1 to 5 (2 for two-person approval).`,
    );
  }
  if (option > 1 && !allowed.includes("approve") && !allowed.includes("edit")) {
    throw new AgentConfigError(
      `${where} asks for ${option} approvals, but allowedDecisions has neither "approve" nor "edit", so the tool never runs; remove approvals or allow "approve".`,
    );
  }
  return option;
}
