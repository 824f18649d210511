import { z } from "zod";
import { InvalidResumeError } from "../errors/index.js";
import { clauses, sentences } from "../errors/sentences.js";
import { message, type Tool, type ToolCall, type ToolMessage } from "../models/index.js";
import { DECISION_TYPES, type ReviewDecision } from "./review.js";
import type { ResolvedPolicy } from "./review-policy.js";

/** A tool call waiting for review, with the policy that asked for it. */
export interface PendingAction<C = unknown> {
  call: ToolCall;
  policy: ResolvedPolicy<C>;
}

/**
 * What review made of one call: run it (as proposed or edited, same call id), or answer it
 * with a tool message and never run it.
 */
export type ReviewOutcome =
  | { kind: "run"; call: ToolCall }
  | { kind: "answer"; answer: ToolMessage };

const STILL_PAUSED =
  "The thread is still paused and unchanged; resume it again with corrected decisions.";

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Checks a review's resume value against the actions it answers and turns each decision
 * into an outcome. Every decision is checked before any outcome is returned, so a bad
 * batch changes nothing: it throws `InvalidResumeError` naming the action and the problem.
 *
 * `tools` are where edited args are validated (the edited tool's zod schema), and
 * `policies` supply an `argsSchema` to check as well.
 *
 * @example
 * const outcomes = await decide(actions, { decisions: [{ type: "approve" }] }, tools, policies);
 */
export async function decide<C>(
  actions: readonly PendingAction<C>[],
  resume: unknown,
  tools: ReadonlyMap<string, Tool<any, any>>,
  policies: ReadonlyMap<string, ResolvedPolicy<C>>,
): Promise<ReviewOutcome[]> {
  const decisions = isObject(resume) ? resume.decisions : undefined;
  const names = actions.map((a) => `"${a.call.name}"`).join(", ");
  if (!Array.isArray(decisions)) {
    throw new InvalidResumeError(
      `This tool review (${actions.length} action${actions.length === 1 ? "" : "s"}: ${names}) is resumed with { decisions: [...] }, one decision per action in order; got ${describeValue(resume)}. ${STILL_PAUSED}`,
    );
  }
  if (decisions.length !== actions.length) {
    throw new InvalidResumeError(
      `This tool review has ${actions.length} action${actions.length === 1 ? "" : "s"} (${names}) but ${decisions.length} decision${decisions.length === 1 ? " was" : "s were"} given; give exactly one per action, in order. ${STILL_PAUSED}`,
    );
  }
  const outcomes: ReviewOutcome[] = [];
  for (const [i, action] of actions.entries()) {
    const label = `Decision ${i + 1} of ${actions.length} (tool call ${action.call.id}, "${action.call.name}")`;
    outcomes.push(await outcomeOf(action, decisions[i], label, tools, policies));
  }
  return outcomes;
}

async function outcomeOf<C>(
  { call, policy }: PendingAction<C>,
  decision: unknown,
  label: string,
  tools: ReadonlyMap<string, Tool<any, any>>,
  policies: ReadonlyMap<string, ResolvedPolicy<C>>,
): Promise<ReviewOutcome> {
  const fail = (why: string): never => {
    throw new InvalidResumeError(sentences(`${label}: ${why}`, STILL_PAUSED));
  };
  if (!isObject(decision) || typeof decision.type !== "string") {
    return fail(
      `expected { type: ${policy.allowedDecisions.map((t) => `"${t}"`).join(" | ")} }, got ${describeValue(decision)}.`,
    );
  }
  const d = decision as unknown as ReviewDecision;
  if (!DECISION_TYPES.includes(d.type)) {
    return fail(
      `unknown decision type ${JSON.stringify(d.type)}; allowed for this tool: ${policy.allowedDecisions.join(", ")}.`,
    );
  }
  if (!policy.allowedDecisions.includes(d.type)) {
    return fail(
      `"${d.type}" is not allowed for this tool; allowed: ${policy.allowedDecisions.join(", ")}.`,
    );
  }
  switch (d.type) {
    case "approve":
      return { kind: "run", call };
    case "reject": {
      if (d.message !== undefined && typeof d.message !== "string")
        return fail(`reject's message must be a string, got ${describeValue(d.message)}.`);
      const content =
        d.message ??
        `A human reviewer rejected the call to "${call.name}" (id ${call.id}); it did not run. Do not call it again; tell the user it was declined, or ask them how to proceed.`;
      return {
        kind: "answer",
        answer: message.tool({ toolCallId: call.id, name: call.name, content, status: "error" }),
      };
    }
    case "respond":
      if (typeof d.message !== "string")
        return fail(
          `respond needs message: the text the model gets as the tool's result, e.g. { type: "respond", message: "Blue." }.`,
        );
      return {
        kind: "answer",
        answer: message.tool({ toolCallId: call.id, name: call.name, content: d.message }),
      };
    case "edit": {
      const edited = (d as { editedAction?: unknown }).editedAction;
      if (!isObject(edited) || typeof edited.name !== "string" || !isObject(edited.args)) {
        return fail(
          `edit needs editedAction: { name: string, args: object }, got ${describeValue(edited)}.`,
        );
      }
      const tool = tools.get(edited.name);
      if (!tool) {
        return fail(
          `editedAction names tool "${edited.name}", which this agent does not have. Known tools: ${[...tools.keys()].join(", ") || "<none>"}.`,
        );
      }
      const schemas: z.ZodType[] = [tool.schema];
      const extra =
        edited.name === call.name ? policy.argsSchema : policies.get(edited.name)?.argsSchema;
      if (extra) schemas.push(extra.zod);
      for (const schema of schemas) {
        const parsed = await z.safeParseAsync(schema, edited.args);
        if (!parsed.success) {
          const issues = parsed.error.issues.map(
            (issue) => `${issue.path.length ? issue.path.join(".") : "(args)"}: ${issue.message}`,
          );
          return fail(`editedAction.args do not fit tool "${edited.name}": ${clauses(issues)}`);
        }
      }
      return { kind: "run", call: { id: call.id, name: edited.name, args: edited.args } };
    }
  }
}

function describeValue(value: unknown): string {
  if (value === undefined) return "nothing";
  try {
    const json = JSON.stringify(value);
    return json.length > 120 ? `${json.slice(0, 119)}…` : json;
  } catch {
    return typeof value;
  }
}
