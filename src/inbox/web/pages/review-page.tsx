/**
 * The permanent link of one review: who decided, when, after how long, the answer, the
 * proposed vs edited args, and what the tool returned. A pending one links to its thread.
 */
import { useEffect, useState } from "preact/hooks";
import { ApiError, api } from "../api.js";
import { formatDuration, formatTime, pretty } from "../format.js";
import { DiffView } from "../review/diff-view.js";
import { href, linkTo } from "../router.js";
import { decisionSummary } from "../thread/history-timeline.js";
import { HiddenCharactersWarning, VisibleText } from "../visible-text.js";
import type { InboxItem, ReviewReceipt } from "../wire.js";

/** The per-action decisions of a tool review's answer (empty for other answers). */
function decisionsIn(answer: unknown): Array<{
  type: string;
  message?: string;
  editedAction?: { name: string; args: Record<string, unknown> };
}> {
  const list = (answer as { decisions?: unknown } | null)?.decisions;
  return Array.isArray(list) ? list : [];
}

export function ReviewPage({ interruptId }: { interruptId: string }) {
  const [receipt, setReceipt] = useState<ReviewReceipt | null>(null);
  const [pending, setPending] = useState<InboxItem | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    api.review(interruptId).then(setReceipt, async (e) => {
      if (e instanceof ApiError && e.status === 404) {
        const list = await api.items().catch(() => null);
        const item = list?.items.find((i) => i.interruptId === interruptId);
        if (item) return setPending(item);
      }
      if (!(e instanceof ApiError && e.status === 401)) setError((e as Error).message);
    });
  }, [interruptId]);

  if (pending)
    return (
      <main class="page">
        <h1>Review pending</h1>
        <p>
          This review has not been decided yet.{" "}
          <a {...linkTo(href.thread(pending.threadId))}>Review it on its thread</a>.
        </p>
      </main>
    );
  if (error)
    return (
      <main class="page">
        <p class="notice danger" role="alert">
          No review “{interruptId}”: {error}
        </p>
      </main>
    );
  if (!receipt) return <main class="page muted">Loading…</main>;
  const d = receipt.decision;
  return (
    <main class="page receipt">
      <div class="page-head">
        <a {...linkTo(href.thread(receipt.threadId))} class="back">
          ← Thread <code>{receipt.threadId}</code>
        </a>
        <h1>Review receipt</h1>
      </div>
      <section class="panel">
        <dl class="facts">
          <dt>Decision</dt>
          <dd>
            <span class="badge decided" data-testid="receipt-decision">
              <VisibleText text={decisionSummary(d)} />
            </span>
            {d.unexpandedApproveOverride && (
              <span class="badge warn">approved without viewing</span>
            )}
          </dd>
          <dt>Reviewer</dt>
          <dd>
            <span data-testid="receipt-reviewer">
              <VisibleText text={d.reviewer} />
            </span>
            {d.authenticatedBy === "shared_token" && (
              <span class="badge warn" title="Typed by whoever held the shared token">
                name not verified
              </span>
            )}
          </dd>
          <dt>Decided</dt>
          <dd>{formatTime(d.decidedAt)}</dd>
          <dt>Waited</dt>
          <dd>{formatDuration(d.waitedMs)}</dd>
          <dt>Interrupt</dt>
          <dd>
            <code>{d.interruptId}</code> at checkpoint <code>{d.checkpointId}</code>
          </dd>
          <dt>Run</dt>
          <dd>
            <code>{d.runId}</code>
          </dd>
        </dl>
      </section>
      {d.proposed && d.proposed.length > 0 && (
        <section class="panel">
          <h2>Each action</h2>
          {d.proposed.map((a, i) => {
            const chosen = decisionsIn(d.answer)[i];
            return (
              <div key={a.id} class="proposed" data-testid="receipt-action">
                <div class="proposed-head">
                  <span class="badge tool">
                    <VisibleText text={a.name} />
                  </span>
                  {chosen && <span class={`badge verdict ${chosen.type}`}>{chosen.type}</span>}
                  {chosen?.message && (
                    <span class="verdict-message">
                      “<VisibleText text={chosen.message} />”
                    </span>
                  )}
                </div>
                <HiddenCharactersWarning value={a} what="this action" />
                {chosen?.type === "edit" && chosen.editedAction ? (
                  <>
                    <div class="value-label">Proposed</div>
                    <pre class="value" data-testid="receipt-proposed-args">
                      <VisibleText text={pretty(a.args)} />
                    </pre>
                    <div class="value-label">Ran with (edited)</div>
                    <HiddenCharactersWarning value={chosen.editedAction} what="the edit" />
                    <pre class="value" data-testid="receipt-edited-args">
                      <VisibleText text={pretty(chosen.editedAction.args)} />
                    </pre>
                  </>
                ) : (
                  <pre class="value">
                    <VisibleText text={pretty(a.args)} />
                  </pre>
                )}
              </div>
            );
          })}
        </section>
      )}
      <section class="panel">
        <h2>Proposed → decided</h2>
        <DiffView changes={receipt.diff} />
      </section>
      <section class="panel">
        <h2>What the tool returned</h2>
        {receipt.toolResults.length === 0 ? (
          <p class="muted">No tool result yet.</p>
        ) : (
          <ol class="conversation">
            {receipt.toolResults.map((t) => (
              <li key={t.toolCallId} class="msg tool">
                <div class="msg-role">
                  tool · <VisibleText text={t.name} />
                </div>
                <pre class="msg-text">
                  <VisibleText text={pretty(t.content)} />
                </pre>
              </li>
            ))}
          </ol>
        )}
      </section>
      <section class="panel">
        <details class="writes">
          <summary>The answer as sent (JSON)</summary>
          <pre>
            <VisibleText text={pretty(d.answer)} />
          </pre>
        </details>
      </section>
    </main>
  );
}
