/** What the reviewer has chosen and typed for one action request, before it is sent. */
import type { ActionRequest, DecisionType, ReviewConfig, ReviewDecision } from "../wire.js";
import { argsDiff } from "./args-diff.js";
import { collapsedKeys } from "./args-view.js";
import { type Field, fieldsFor, parseArgs, textOf } from "./schema-fields.js";

export interface ActionDraft {
  type?: DecisionType;
  fields: Field[];
  texts: Record<string, string>;
  message: string;
  expanded: ReadonlySet<string>;
  /** "Approve without viewing": sent as unexpandedApproveOverride and recorded. */
  override: boolean;
  /** Errors by arg key (edit) and under "message" (reject/respond). */
  errors: Record<string, string>;
}

export function newDraft(action: ActionRequest, config: ReviewConfig | undefined): ActionDraft {
  const fields = fieldsFor(config?.argsSchema, action.args);
  const texts = Object.fromEntries(fields.map((f) => [f.key, textOf(f, action.args[f.key])]));
  return { fields, texts, message: "", expanded: new Set(), override: false, errors: {} };
}

/** Long args of this action the reviewer has not opened yet. */
export function unopened(action: ActionRequest, draft: ActionDraft): string[] {
  return collapsedKeys(action.args).filter((k) => !draft.expanded.has(k));
}

/** The decision to send, or the errors to show (by field) when it is not ready. */
export function decisionOf(
  action: ActionRequest,
  draft: ActionDraft,
): { decision?: ReviewDecision; errors: Record<string, string> } {
  switch (draft.type) {
    case undefined:
      return { errors: { decision: "Choose a decision for this action." } };
    case "approve":
      return unopened(action, draft).length > 0 && !draft.override
        ? {
            errors: {
              decision: "Open the collapsed args first, or tick “approve without viewing”.",
            },
          }
        : { decision: { type: "approve" }, errors: {} };
    case "edit": {
      const { args, errors } = parseArgs(draft.fields, draft.texts);
      if (errors.length > 0)
        return { errors: Object.fromEntries(errors.map((e) => [e.path.slice(5), e.message])) };
      return { decision: { type: "edit", editedAction: { name: action.name, args } }, errors: {} };
    }
    case "reject":
      return {
        decision: draft.message.trim()
          ? { type: "reject", message: draft.message.trim() }
          : { type: "reject" },
        errors: {},
      };
    case "respond":
      return draft.message.trim()
        ? { decision: { type: "respond", message: draft.message.trim() }, errors: {} }
        : { errors: { message: "Write the answer the model gets in the tool's place." } };
  }
}

/** The edited args' changes against the proposal, for the diff shown before submit. */
export function draftChanges(action: ActionRequest, draft: ActionDraft) {
  const { args } = parseArgs(draft.fields, draft.texts);
  return argsDiff(action.args, args);
}
