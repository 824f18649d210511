/**
 * The thread's steps, oldest first, one entry each: which nodes ran (in the reviewer's
 * words: "tool review", "model", "tools"), what they wrote, and under the step it let run,
 * who decided what. The server builds the entries (src/server/history-timeline.ts).
 */
import {
  byteSize,
  formatBytes,
  formatClock,
  formatDuration,
  formatTime,
  oneLine,
  pretty,
} from "../format.js";
import { nodeName } from "../node-names.js";
import { href, linkTo } from "../router.js";
import { VisibleText } from "../visible-text.js";
import type { Decision, HistoryEntry } from "../wire.js";

/** In the timeline the runtime's start node is the step that took the run's input. */
const stepLabel = (node: string) => (node === "__start__" ? "input" : nodeName(node));

export function decisionSummary(d: Decision): string {
  const answer = d.answer as { decisions?: Array<{ type: string }> } | null;
  if (answer && Array.isArray(answer.decisions))
    return answer.decisions.map((x) => x.type).join(", ");
  return answer === null ? "continued" : `answered ${oneLine(answer, 60)}`;
}

export function DecisionLine({ d }: { d: Decision }) {
  return (
    <div class="decision-line">
      <span class="badge decided">
        <VisibleText text={decisionSummary(d)} />
      </span>{" "}
      by{" "}
      <strong>
        <VisibleText text={d.reviewer} />
      </strong>{" "}
      {d.authenticatedBy === "shared_token" && <span class="badge warn">name not verified</span>}{" "}
      <span class="muted">
        at {formatTime(d.decidedAt)}, after waiting {formatDuration(d.waitedMs)}
      </span>
      {d.unexpandedApproveOverride && <span class="badge warn">approved without viewing</span>}{" "}
      <a {...linkTo(href.review(d.interruptId))}>receipt</a>
    </div>
  );
}

const STATUS: Record<HistoryEntry["status"], string | null> = {
  ran: null,
  waiting: "waiting for you",
  next: "runs next",
};

export function HistoryTimeline({ history }: { history: HistoryEntry[] }) {
  if (history.length === 0) return <p class="muted">No steps yet.</p>;
  return (
    <ol class="timeline">
      {history.map((h) => {
        const keys = h.writes ? Object.keys(h.writes) : [];
        const status = STATUS[h.status];
        return (
          <li key={`${h.step}:${h.checkpointId}`} class={`step ${h.status}`} data-step={h.step}>
            <div class="step-head">
              <span class="step-no">step {h.step}</span>
              <span class="step-nodes">{h.nodes.map(stepLabel).join(", ")}</span>
              {status && <span class={`badge step-status ${h.status}`}>{status}</span>}
              {h.finished && <span class="badge decided">finished</span>}
              <span class="muted step-time" title={formatTime(h.createdAt)}>
                {formatClock(h.createdAt)}
              </span>
            </div>
            {h.decisions.map((d) => (
              <DecisionLine key={d.interruptId} d={d} />
            ))}
            {keys.length > 0 ? (
              <details class="writes">
                <summary>
                  wrote <VisibleText text={keys.join(", ")} />{" "}
                  <span class="muted">({formatBytes(byteSize(h.writes))})</span>
                </summary>
                <pre>
                  <VisibleText text={pretty(h.writes)} />
                </pre>
              </details>
            ) : (
              h.status === "ran" &&
              h.decisions.length === 0 && <p class="muted step-quiet">changed nothing</p>
            )}
          </li>
        );
      })}
    </ol>
  );
}
