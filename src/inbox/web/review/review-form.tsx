/**
 * A tool review: every action request of the interrupt, each with its decision, sent
 * together in the order the model made the calls. Keyboard: j/k move between actions,
 * a/e/r/s choose for the selected one, Ctrl+Enter submits.
 */
import { useEffect, useState } from "preact/hooks";
import { useKeys, useSubmitKey } from "../keyboard.js";
import type { ActionRequest, InboxItem, ReviewConfig, ReviewDecision } from "../wire.js";
import { ActionCard } from "./action-card.js";
import { type ActionDraft, decisionOf, newDraft, unopened } from "./action-draft.js";
import { fieldKeyOf } from "./schema-fields.js";
import { StaleNotice } from "./stale-notice.js";
import { useDecision } from "./use-decision.js";

export function ReviewForm(props: {
  item: InboxItem;
  review: { actionRequests: ActionRequest[]; reviewConfigs: ReviewConfig[] };
  onSent: (runId: string) => void;
  onReload: () => void;
}) {
  const { actionRequests: actions, reviewConfigs: configs } = props.review;
  const [drafts, setDrafts] = useState<ActionDraft[]>(() =>
    actions.map((a, i) => newDraft(a, configs[i])),
  );
  const [selected, setSelected] = useState(0);
  const { state, submit } = useDecision(props.item, props.onSent);
  const busy = state.status === "sending" || state.status === "sent" || state.status === "approved";
  const refused = props.item.refused ?? [];
  // Read-only when this person may take none of the decisions any action allows.
  const readOnly = actions.every((_, i) => {
    const allowed = configs[i]?.allowedDecisions ?? ["approve", "reject"];
    return allowed.every((type) => refused[i]?.[type] !== undefined);
  });
  const approvals = props.item.approvals ?? null;

  const update = (i: number, change: Partial<ActionDraft>) =>
    setDrafts((all) => all.map((d, j) => (j === i ? { ...d, ...change } : d)));

  // The server's 400 `fields` land at the field they name.
  useEffect(() => {
    if (state.status !== "invalid") return;
    for (const f of state.error.fields) {
      const { index, key } = fieldKeyOf(f.path);
      const i = index ?? drafts.findIndex((d) => d.type === "edit");
      if (i < 0) continue;
      update(i, { errors: { ...drafts[i]!.errors, [key ?? "decision"]: f.message } });
    }
  }, [state]);

  const send = () => {
    if (busy || readOnly) return;
    const results = actions.map((a, i) => decisionOf(a, drafts[i]!));
    setDrafts((all) => all.map((d, i) => ({ ...d, errors: results[i]!.errors })));
    const firstBad = results.findIndex((r) => !r.decision);
    if (firstBad >= 0) {
      setSelected(firstBad);
      return;
    }
    const override = actions.some(
      (a, i) => drafts[i]!.type === "approve" && unopened(a, drafts[i]!).length > 0,
    );
    const decisions = results.map((r) => r.decision as ReviewDecision);
    void submit({ decisions }, override ? { unexpandedApproveOverride: true } : {});
  };

  const choose = (type: "approve" | "edit" | "reject" | "respond") => {
    if (busy || !(configs[selected]?.allowedDecisions ?? ["approve", "reject"]).includes(type))
      return;
    if (refused[selected]?.[type] !== undefined) return;
    update(selected, { type, errors: {} });
  };
  useKeys({
    j: () => setSelected((i) => Math.min(actions.length - 1, i + 1)),
    k: () => setSelected((i) => Math.max(0, i - 1)),
    a: () => choose("approve"),
    e: () => choose("edit"),
    r: () => choose("reject"),
    s: () => choose("respond"),
  });
  useSubmitKey(() => {
    if (state.status !== "stale") send();
  });

  if (state.status === "stale")
    return (
      <StaleNotice
        seen={props.item}
        pending={state.pending}
        running={state.running}
        onReload={props.onReload}
      />
    );

  const chosen = drafts.filter((d) => d.type).length;
  return (
    <form
      class="review"
      onSubmit={(e) => {
        e.preventDefault();
        send();
      }}
    >
      {readOnly && (
        <div class="notice warn" role="note" data-review-read-only>
          <p>You may look at this review but not decide it:</p>
          <ul>
            {[...new Set(refused.flatMap((r) => Object.values(r)))].map((why) => (
              <li key={why}>{why}</li>
            ))}
          </ul>
        </div>
      )}
      {approvals && (
        <div class="notice" role="status" data-approvals>
          <p>
            Needs {approvals.required} different people to approve the same arguments.{" "}
            {approvals.approvedBy.length === 0
              ? "Nobody has approved yet."
              : `Approved by ${approvals.approvedBy.map((a) => a.displayName).join(", ")}; ${approvals.required - approvals.approvedBy.length} more needed. An edit starts the count again.`}
          </p>
        </div>
      )}
      {actions.map((action, i) => (
        <ActionCard
          refused={refused[i] ?? {}}
          key={action.id}
          index={i}
          count={actions.length}
          action={action}
          config={configs[i]}
          draft={drafts[i]!}
          selected={i === selected}
          disabled={busy}
          onDraft={(change) => {
            setSelected(i);
            update(i, change);
          }}
        />
      ))}
      <div class="submit-bar">
        <span class="muted">
          {chosen} of {actions.length} decided
        </span>
        {state.status === "invalid" && state.error.fields.length === 0 && (
          <span class="field-error" role="alert">
            {state.error.message}
          </span>
        )}
        {state.status === "invalid" && state.error.fields.length > 0 && (
          <span class="field-error" role="alert">
            The server refused the edit: see the marked fields. The thread is unchanged.
          </span>
        )}
        {state.status === "failed" && (
          <span class="field-error" role="alert">
            {state.message}
          </span>
        )}
        {state.status === "approved" && (
          <span class="muted" role="status">
            Your approval is recorded ({state.approvedBy} of {state.required}); the call runs once
            enough people approved.
          </span>
        )}
        <button type="submit" class="btn primary" disabled={busy || readOnly}>
          {state.status === "sending"
            ? "Sending…"
            : state.status === "approved"
              ? "Approved"
              : state.status === "sent"
                ? "Sent"
                : actions.length > 1
                  ? `Submit ${actions.length} decisions`
                  : "Submit decision"}
        </button>
      </div>
    </form>
  );
}
