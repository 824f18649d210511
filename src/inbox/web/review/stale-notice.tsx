/**
 * Shown when the server refused a decision as stale (409): the thread moved on. It says, in
 * the page's own words (not the API's message, which is written for API clients), what the
 * reviewer answered, what is pending now, and how the args differ.
 */

import { markHidden } from "../../hidden-characters.js";
import { oneLine } from "../format.js";
import { VisibleText } from "../visible-text.js";
import { type InboxItem, reviewOf } from "../wire.js";
import { argsDiff } from "./args-diff.js";
import { DiffView } from "./diff-view.js";

export function StaleNotice(props: {
  seen: InboxItem;
  pending: InboxItem[];
  running: boolean;
  onReload: () => void;
}) {
  const seen = reviewOf(props.seen)?.actionRequests ?? [];
  return (
    <div class="notice stale" role="alert" data-testid="stale">
      <h3>This review changed before your decision arrived</h3>
      <p>
        You answered{" "}
        <strong>
          <VisibleText text={props.seen.summary || props.seen.kind} />
        </strong>{" "}
        at checkpoint <code>{props.seen.checkpointId}</code>. Nothing was applied.
      </p>
      {props.running ? (
        <p>
          The thread is running now, most likely on someone else's decision. Wait for it to pause
          again.
        </p>
      ) : props.pending.length === 0 ? (
        <p>Nothing is pending on this thread now: someone else answered it, or it was cancelled.</p>
      ) : (
        <>
          <p>Pending now:</p>
          <ul class="stale-list">
            {props.pending.map((p) => {
              const now = reviewOf(p)?.actionRequests ?? [];
              return (
                <li key={p.interruptId}>
                  <span class="badge">{p.kind}</span>{" "}
                  <VisibleText text={p.summary || oneLine(p.value)} />{" "}
                  <span class="muted">(checkpoint {p.checkpointId})</span>
                  {now.map((action) => {
                    const before = seen.find((s) => s.id === action.id || s.name === action.name);
                    return before ? (
                      <DiffView
                        key={action.id}
                        title={`${markHidden(action.name)}: what you saw → what is pending now`}
                        changes={argsDiff(before.args, action.args)}
                      />
                    ) : null;
                  })}
                </li>
              );
            })}
          </ul>
        </>
      )}
      <button type="button" class="btn primary" onClick={props.onReload}>
        Review what is pending now
      </button>
    </div>
  );
}
