/**
 * One thread: what waits on it (review forms), the conversation, the graph with the
 * waiting node highlighted, and the history. After a decision the run streams in here.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { ApiError, api, streams } from "../api.js";
import { useEventStream } from "../event-stream.js";
import { formatTime, oneLine } from "../format.js";
import { useKeys } from "../keyboard.js";
import { nodeName } from "../node-names.js";
import { InterruptAnswer } from "../review/interrupt-answer.js";
import { ReviewForm } from "../review/review-form.js";
import { sentFromThisTab } from "../review/use-decision.js";
import { href, linkTo, navigate } from "../router.js";
import { Conversation, roleOf, textOf } from "../thread/conversation.js";
import { GraphPicture } from "../thread/graph-picture.js";
import { HistoryTimeline } from "../thread/history-timeline.js";
import { ParentLink } from "../thread/parent-link.js";
import { RunFollow } from "../thread/run-follow.js";
import { VisibleText } from "../visible-text.js";
import { type InboxItem, reviewOf, type ThreadView } from "../wire.js";

const pendingIds = (v: ThreadView | null) => (v?.pending ?? []).map((p) => p.interruptId);

/**
 * Whether `next` would change what the reviewer sees under them: a pause they had open left
 * the thread and was not answered from this tab. Pauses this tab answered leaving, and what
 * follows from them, are the reviewer's own doing.
 */
function changedUnderReviewer(seen: ThreadView | null, next: ThreadView): boolean {
  const before = pendingIds(seen);
  const now = pendingIds(next);
  const gone = before.filter((id) => !now.includes(id));
  if (gone.length > 0) return !gone.every(sentFromThisTab);
  return now.some((id) => !before.includes(id));
}

function PendingItem(props: {
  item: InboxItem;
  onSent: (runId: string) => void;
  onReload: () => void;
}) {
  const review = reviewOf(props.item);
  return (
    <section class="panel pending" data-interrupt={props.item.interruptId}>
      <div class="panel-head">
        <h2>
          {review ? "Tool review" : props.item.kind === "breakpoint" ? "Breakpoint" : "Question"}
        </h2>
        <span class="muted">
          {!review && (
            <>
              at <span class="node-name">{nodeName(props.item.node)}</span>{" "}
            </>
          )}
          since {formatTime(props.item.waitingSince)}
        </span>
      </div>
      {review ? (
        <ReviewForm
          item={props.item}
          review={review}
          onSent={props.onSent}
          onReload={props.onReload}
        />
      ) : (
        <InterruptAnswer item={props.item} onSent={props.onSent} onReload={props.onReload} />
      )}
    </section>
  );
}

export function ThreadPage({ threadId }: { threadId: string }) {
  const [view, setView] = useState<ThreadView | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [running, setRunning] = useState<string | null>(null);
  const [changed, setChanged] = useState(false);
  const [generation, setGeneration] = useState(0);

  // The view as shown now (a load that was waiting on the server compares with this).
  const shown = useRef<ThreadView | null>(null);
  shown.current = view;
  const following = useRef<string | null>(null);
  following.current = running;

  const load = async (replace = true) => {
    try {
      const next = await api.thread(threadId);
      setError(null);
      // A run in progress reports again when it ends; until then there is nothing to show.
      if (!replace && (next.thread.status === "busy" || following.current !== null)) return;
      // Never swap a form out from under a reviewer: say the thread changed instead.
      if (!replace && changedUnderReviewer(shown.current, next)) setChanged(true);
      else {
        setView(next);
        setChanged(false);
      }
    } catch (e) {
      if (!(e instanceof ApiError && e.status === 401)) setError((e as Error).message);
    }
  };
  const reload = () => {
    setGeneration((g) => g + 1);
    void load();
  };
  useEffect(() => {
    setView(null);
    setRunning(null);
    void load();
  }, [threadId]);
  useEventStream(streams.inbox, {
    inbox: (data) => {
      const event = data as { threadId?: string } | null;
      if (event?.threadId === threadId && running === null) void load(false);
    },
  });
  useKeys({ Escape: () => navigate(href.inbox()) });

  if (error)
    return (
      <main class="page">
        <p class="notice danger" role="alert">
          Could not load thread “{threadId}”: {error}
        </p>
        <a {...linkTo(href.inbox())}>Back to the inbox</a>
      </main>
    );
  if (!view) return <main class="page muted">Loading…</main>;
  const firstAsk = view.messages.find((m) => roleOf(m) === "user");
  const title = firstAsk ? oneLine(textOf(firstAsk.content), 90) : undefined;

  return (
    <main class="page thread">
      <div class="page-head">
        <a {...linkTo(href.inbox())} class="back">
          ← Inbox
        </a>
        <div class="thread-title">
          <h1>
            <VisibleText text={title ?? view.thread.threadId} />
          </h1>
          {title && <code class="muted">{view.thread.threadId}</code>}
        </div>
        <span class="badge">{view.thread.graphId}</span>
        <span class={`badge status ${view.thread.status}`} data-testid="thread-status">
          {view.thread.status}
        </span>
      </div>
      <ParentLink metadata={view.thread.metadata} />
      {changed && (
        <div class="notice warn" role="status">
          This thread changed since you opened it.{" "}
          <button type="button" class="btn small" onClick={reload}>
            Show the latest
          </button>
        </div>
      )}
      <div class="columns">
        <div class="main-column">
          {running && (
            <RunFollow
              threadId={threadId}
              runId={running}
              onEnd={() => {
                setRunning(null);
                reload();
              }}
            />
          )}
          {!running &&
            view.pending.map((item) => (
              <PendingItem
                key={`${item.interruptId}:${generation}`}
                item={item}
                onSent={(runId) => setRunning(runId)}
                onReload={reload}
              />
            ))}
          {!running && view.pending.length === 0 && (
            <section class="panel done" data-testid="nothing-pending">
              <p>
                Nothing waits on this thread. It is <strong>{view.thread.status}</strong>.
              </p>
            </section>
          )}
          <section class="panel">
            <h2>Conversation</h2>
            <Conversation messages={view.messages} />
          </section>
        </div>
        <aside class="side-column">
          <section class="panel">
            <h2>Graph</h2>
            <div class="graph-frame">
              <GraphPicture graph={view.graph} waitingAt={view.waitingAt} />
            </div>
          </section>
          <section class="panel">
            <h2>History</h2>
            <HistoryTimeline history={view.history} />
          </section>
        </aside>
      </div>
    </main>
  );
}
