/** The thread's steps, oldest first: which nodes ran, what they wrote, and who decided what. */
import {
  byteSize,
  formatBytes,
  formatClock,
  formatDuration,
  formatTime,
  oneLine,
  pretty,
} from "../format.js";
import { href, linkTo } from "../router.js";
import type { Decision, HistoryEntry } from "../wire.js";
import { nodeLabel } from "./graph-layout.js";

/** In the timeline the runtime's start node is the step that took the run's input. */
const stepLabel = (node: string) => (node === "__start__" ? "input" : nodeLabel(node));

export function decisionSummary(d: Decision): string {
  const answer = d.answer as { decisions?: Array<{ type: string }> } | null;
  if (answer && Array.isArray(answer.decisions))
    return answer.decisions.map((x) => x.type).join(", ");
  return answer === null ? "continued" : `answered ${oneLine(answer, 60)}`;
}

export function DecisionLine({ d }: { d: Decision }) {
  return (
    <div class="decision-line">
      <span class="badge decided">{decisionSummary(d)}</span> by <strong>{d.reviewer}</strong>{" "}
      <span class="muted">
        at {formatTime(d.decidedAt)}, after waiting {formatDuration(d.waitedMs)}
      </span>
      {d.unexpandedApproveOverride && <span class="badge warn">approved without viewing</span>}{" "}
      <a {...linkTo(href.review(d.interruptId))}>receipt</a>
    </div>
  );
}

export function HistoryTimeline({ history }: { history: HistoryEntry[] }) {
  if (history.length === 0) return <p class="muted">No steps yet.</p>;
  const ordered = [...history].sort(
    (a, b) => a.step - b.step || a.createdAt.localeCompare(b.createdAt),
  );
  return (
    <ol class="timeline">
      {ordered.map((h) => {
        const keys = h.writes ? Object.keys(h.writes) : [];
        return (
          <li key={h.checkpointId} class="step">
            <div class="step-head">
              <span class="step-no">step {h.step}</span>
              {h.nodes.length > 0 ? (
                <span class="step-nodes">{h.nodes.map(stepLabel).join(", ")}</span>
              ) : h.next?.length === 1 && h.next[0] === "__start__" ? (
                <span class="muted">run started</span>
              ) : h.next && h.next.length > 0 ? (
                <span class="step-next">
                  <span class="muted">next</span> {h.next.map(stepLabel).join(", ")}
                </span>
              ) : (
                <span class="muted">checkpoint</span>
              )}
              <span class="muted step-time" title={formatTime(h.createdAt)}>
                {formatClock(h.createdAt)}
              </span>
            </div>
            {keys.length > 0 && (
              <details class="writes">
                <summary>
                  wrote {keys.join(", ")}{" "}
                  <span class="muted">({formatBytes(byteSize(h.writes))})</span>
                </summary>
                <pre>{pretty(h.writes)}</pre>
              </details>
            )}
            {h.decision && <DecisionLine d={h.decision} />}
          </li>
        );
      })}
    </ol>
  );
}
