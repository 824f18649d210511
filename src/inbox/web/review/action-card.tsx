/**
 * One action request under review: what the model asked for (its description is set apart
 * as the agent's words), the args, and only the decisions its review config allows.
 */
import { useEffect, useLayoutEffect, useRef } from "preact/hooks";
import { markHidden } from "../../hidden-characters.js";
import { HiddenCharactersWarning, VisibleText } from "../visible-text.js";
import type { ActionRequest, DecisionType, ReviewConfig } from "../wire.js";
import { type ActionDraft, draftChanges, unopened } from "./action-draft.js";
import { ArgsView } from "./args-view.js";
import { DiffView } from "./diff-view.js";
import { EditForm } from "./edit-form.js";

const LABELS: Record<DecisionType, string> = {
  approve: "Approve",
  edit: "Edit",
  reject: "Reject",
  respond: "Respond",
};
const KEYS: Record<DecisionType, string> = { approve: "a", edit: "e", reject: "r", respond: "s" };

export function ActionCard(props: {
  index: number;
  count: number;
  action: ActionRequest;
  config: ReviewConfig | undefined;
  draft: ActionDraft;
  /** Decisions this person may not take, with why: shown disabled, the reasons below. */
  refused: Partial<Record<DecisionType, string>>;
  selected: boolean;
  disabled: boolean;
  onDraft: (change: Partial<ActionDraft>) => void;
}) {
  const { action, draft, index } = props;
  const allowed = props.config?.allowedDecisions ?? ["approve", "reject"];
  const waiting = unopened(action, draft);
  const message = useRef<HTMLTextAreaElement | null>(null);
  const card = useRef<HTMLElement | null>(null);
  // Focus before paint, so the first key typed after "r" or "s" lands in the message.
  useLayoutEffect(() => {
    if ((draft.type === "reject" || draft.type === "respond") && props.selected)
      message.current?.focus();
  }, [draft.type]);
  useEffect(() => {
    if (props.selected) card.current?.scrollIntoView({ block: "nearest" });
  }, [props.selected]);

  const choose = (type: DecisionType) => props.onDraft({ type, errors: {} });
  return (
    <section
      ref={card}
      class={props.selected ? "action selected" : "action"}
      data-action-index={index}
      aria-label={`Action ${index + 1}: ${markHidden(action.name)}`}
    >
      <header class="action-head">
        <span class="badge tool">
          <VisibleText text={action.name} />
        </span>
        {props.count > 1 && (
          <span class="muted">
            action {index + 1} of {props.count}
          </span>
        )}
        <code class="muted call-id">
          <VisibleText text={action.id} />
        </code>
      </header>
      <HiddenCharactersWarning
        value={{ name: action.name, description: action.description ?? "", args: action.args }}
        what="this action"
      />
      {action.description && (
        <blockquote class="model-text" aria-label="The agent's description">
          <span class="model-label">Agent's description</span>
          <pre>
            <VisibleText text={action.description} />
          </pre>
        </blockquote>
      )}
      <ArgsView
        args={action.args}
        expanded={draft.expanded}
        onExpand={(key) => props.onDraft({ expanded: new Set([...draft.expanded, key]) })}
      />
      <fieldset class="choices">
        <legend class="sr-only">Decision</legend>
        {allowed.map((type) => (
          <button
            type="button"
            key={type}
            aria-pressed={draft.type === type}
            class={`btn choice ${type}${draft.type === type ? " active" : ""}`}
            disabled={props.disabled || props.refused[type] !== undefined}
            title={props.refused[type]}
            data-decision={type}
            onClick={() => choose(type)}
          >
            {LABELS[type]} <kbd>{KEYS[type]}</kbd>
          </button>
        ))}
      </fieldset>
      {Object.keys(props.refused).length > 0 &&
        Object.keys(props.refused).length < allowed.length && (
          <p class="muted" data-refused>
            {[...new Set(Object.values(props.refused))].join(" ")}
          </p>
        )}
      {draft.type === "approve" && waiting.length > 0 && (
        <div class="notice warn">
          <p>
            Approve is held until you open {waiting.map((k) => `“${k}”`).join(", ")}: you would be
            approving content you have not seen.
          </p>
          <label class="check">
            <input
              type="checkbox"
              checked={draft.override}
              onChange={(e) =>
                props.onDraft({ override: (e.currentTarget as HTMLInputElement).checked })
              }
            />{" "}
            Approve without viewing (recorded in the audit)
          </label>
        </div>
      )}
      {draft.type === "edit" && (
        <>
          <EditForm
            idPrefix={`a${index}`}
            fields={draft.fields}
            texts={draft.texts}
            errors={draft.errors}
            focus={props.selected}
            onChange={(key, text) => {
              const errors = { ...draft.errors };
              delete errors[key];
              props.onDraft({ texts: { ...draft.texts, [key]: text }, errors });
            }}
          />
          <DiffView changes={draftChanges(action, draft)} title="Proposed → edited" />
        </>
      )}
      {(draft.type === "reject" || draft.type === "respond") && (
        <div class={draft.errors.message ? "field invalid" : "field"}>
          <label for={`a${index}-message`}>
            {draft.type === "reject"
              ? "Why not? (the model reads this as the tool's error)"
              : "Answer in the tool's place (the model reads it as the tool's result)"}
          </label>
          <textarea
            id={`a${index}-message`}
            ref={message}
            rows={3}
            value={draft.message}
            onInput={(e) =>
              props.onDraft({ message: (e.currentTarget as HTMLTextAreaElement).value, errors: {} })
            }
          />
          {draft.errors.message && (
            <p class="field-error" role="alert">
              {draft.errors.message}
            </p>
          )}
        </div>
      )}
      {draft.errors.decision && (
        <p class="field-error" role="alert">
          {draft.errors.decision}
        </p>
      )}
    </section>
  );
}
