import { z } from "zod";
import { type ActionRequest, HITL } from "../agent/index.js";
import type { InterruptRecord } from "../checkpoint/index.js";
import type { FieldProblem } from "./errors.js";

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** What kind of pause an interrupt is, for the inbox. */
export type PauseKind = "tool_review" | "interrupt" | "breakpoint";

export function pauseKind(i: InterruptRecord): PauseKind {
  if (i.timing !== "during") return "breakpoint";
  return HITL.isReview(i) ? "tool_review" : "interrupt";
}

// JSON Schemas are converted once each; review configs repeat the same schema object.
const schemaCache = new WeakMap<object, z.ZodType>();

function zodOf(schema: object): z.ZodType | undefined {
  let zod = schemaCache.get(schema);
  if (!zod) {
    try {
      zod = z.fromJSONSchema(schema as never);
    } catch {
      // A schema zod cannot read is left to the agent, which checks edits again on resume.
      return undefined;
    }
    schemaCache.set(schema, zod);
  }
  return zod;
}

/**
 * Why `answer` cannot resume the interrupt, as problems at fields (empty: it can). A tool
 * review needs `{ decisions }`, one per action in order, each of a type its review config
 * allows, edits with args that fit the tool's schema (`toolSchema`, for an agent's tools)
 * and the config's `argsSchema`. Other interrupts take any
 * JSON; a breakpoint takes `null`. The agent checks again when it resumes; this check
 * runs first so a refused answer never starts a run.
 */
export async function reviewAnswerProblems(
  interrupt: InterruptRecord,
  answer: unknown,
  toolSchema: (toolName: string) => z.ZodType | undefined = () => undefined,
): Promise<FieldProblem[]> {
  const kind = pauseKind(interrupt);
  if (kind === "breakpoint") {
    return answer === null || answer === undefined
      ? []
      : [{ path: "answer", message: "A breakpoint is continued with null." }];
  }
  if (kind === "interrupt") return [];
  const review = HITL.fromInterrupt(interrupt);
  if (!isObject(answer) || !Array.isArray(answer.decisions)) {
    return [
      {
        path: "answer.decisions",
        message: `A tool review is answered with { decisions: [...] }, one per action (${review.actions.length}).`,
      },
    ];
  }
  const decisions = answer.decisions;
  if (decisions.length !== review.actions.length) {
    return [
      {
        path: "answer.decisions",
        message: `Give exactly ${review.actions.length} decision${review.actions.length === 1 ? "" : "s"}, one per action in order; got ${decisions.length}.`,
      },
    ];
  }
  const problems: FieldProblem[] = [];
  for (const [i, action] of review.actions.entries()) {
    problems.push(
      ...(await decisionProblems(action, decisions[i], `answer.decisions.${i}`, toolSchema)),
    );
  }
  return problems;
}

async function decisionProblems(
  action: ActionRequest & { allowedDecisions: string[]; argsSchema?: object },
  d: unknown,
  at: string,
  toolSchema: (toolName: string) => z.ZodType | undefined,
): Promise<FieldProblem[]> {
  if (!isObject(d) || typeof d.type !== "string")
    return [{ path: `${at}.type`, message: "Each decision is { type: ... }." }];
  if (!action.allowedDecisions.includes(d.type)) {
    return [
      {
        path: `${at}.type`,
        message: `"${d.type}" is not allowed for ${action.name}; allowed: ${action.allowedDecisions.join(", ")}.`,
      },
    ];
  }
  if (d.type === "respond" && typeof d.message !== "string")
    return [{ path: `${at}.message`, message: "respond needs the message the model gets." }];
  if (d.type === "reject" && d.message !== undefined && typeof d.message !== "string")
    return [{ path: `${at}.message`, message: "A reject message is text." }];
  if (d.type !== "edit") return [];
  const edited = d.editedAction;
  if (!isObject(edited) || typeof edited.name !== "string" || !isObject(edited.args)) {
    return [{ path: `${at}.editedAction`, message: "An edit needs editedAction: { name, args }." }];
  }
  // The tool's own schema (when the graph is an agent), then the review config's.
  const schemas = [
    toolSchema(edited.name),
    action.argsSchema && edited.name === action.name ? zodOf(action.argsSchema) : undefined,
  ];
  for (const schema of schemas) {
    if (!schema) continue;
    const parsed = await z.safeParseAsync(schema, edited.args);
    if (parsed.success) continue;
    return parsed.error.issues.map((issue) => ({
      path: [`${at}.editedAction.args`, ...issue.path.map(String)].join("."),
      message: issue.message,
    }));
  }
  return [];
}
