/**
 * Everything that waits for a person, across threads: tool reviews, plain interrupts and
 * breakpoints, live over SSE. j/k move, Enter opens, the chips filter by graph.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { hasHiddenCharacters } from "../../hidden-characters.js";
import { ApiError, api, streams } from "../api.js";
import { useEventStream } from "../event-stream.js";
import { formatAge, formatTime } from "../format.js";
import { useKeys } from "../keyboard.js";
import { nodeName } from "../node-names.js";
import { href, linkTo, navigate } from "../router.js";
import { hiddenIn, VisibleText } from "../visible-text.js";
import type { InboxItem, InboxList } from "../wire.js";

const KIND_LABEL: Record<InboxItem["kind"], string> = {
  tool_review: "tool review",
  interrupt: "question",
  breakpoint: "breakpoint",
};

/** The row's title: a question's own words when it has them, else the server's summary. */
function titleOf(item: InboxItem): string {
  const v = item.value as Record<string, unknown> | string | null;
  if (item.kind === "interrupt") {
    if (typeof v === "string") return v;
    for (const key of ["question", "prompt", "message"]) {
      const text = v && typeof v === "object" ? v[key] : undefined;
      if (typeof text === "string") return text;
    }
  }
  return item.summary || item.node;
}

/** "2h left" or "overdue 5m" for a deadline; the list itself is sorted by the server. */
function timeLeft(at: string, now = Date.now()): { text: string; overdue: boolean } {
  const ms = Date.parse(at) - now;
  const span = (n: number) => {
    const m = Math.round(Math.abs(n) / 60_000);
    if (m < 1) return `${Math.max(0, Math.round(Math.abs(n) / 1000))}s`;
    if (m < 60) return `${m}m`;
    const h = Math.round(m / 60);
    return h < 48 ? `${h}h` : `${Math.round(h / 24)}d`;
  };
  return ms >= 0
    ? { text: `${span(ms)} left`, overdue: false }
    : { text: `overdue ${span(ms)}`, overdue: true };
}

function useInbox(graph: string | undefined) {
  const [list, setList] = useState<InboxList | null>(null);
  const [graphs, setGraphs] = useState<string[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [checkedAt, setCheckedAt] = useState<Date | null>(null);
  const pending = useRef<ReturnType<typeof setTimeout> | null>(null);

  const load = async () => {
    try {
      const next = await api.items(graph);
      setList(next);
      setError(null);
      setCheckedAt(new Date());
    } catch (e) {
      if (!(e instanceof ApiError && e.status === 401)) setError(String((e as Error).message));
    }
  };
  useEffect(() => {
    void load();
  }, [graph]);
  useEffect(() => {
    api.graphs().then(
      (all) => setGraphs(all.map((g) => g.graphId)),
      () => {},
    );
  }, []);
  // Several threads may change at once: one refetch for a burst of events.
  useEventStream(streams.inbox, {
    inbox: () => {
      if (pending.current) clearTimeout(pending.current);
      pending.current = setTimeout(() => void load(), 120);
    },
  });
  return { list, graphs, error, checkedAt, reload: load };
}

export function InboxPage({ graph }: { graph?: string }) {
  const { list, graphs, error, checkedAt } = useInbox(graph);
  const [selected, setSelected] = useState(0);
  const items = list?.items ?? [];
  const rows = useRef<HTMLOListElement | null>(null);

  useEffect(() => {
    if (selected >= items.length) setSelected(Math.max(0, items.length - 1));
  }, [items.length]);
  useEffect(() => {
    rows.current?.querySelector(".row.selected")?.scrollIntoView({ block: "nearest" });
  }, [selected]);
  useKeys({
    j: () => setSelected((i) => Math.min(items.length - 1, i + 1)),
    k: () => setSelected((i) => Math.max(0, i - 1)),
    Enter: () => {
      const item = items[selected];
      if (item) navigate(href.thread(item.threadId));
    },
  });

  const byGraph = list?.counts.byGraph ?? {};
  const chips = [...new Set([...graphs, ...Object.keys(byGraph)])].sort();
  return (
    <main class="page inbox">
      <div class="page-head">
        <h1>
          Waiting for review{" "}
          {list && (
            <span class="count" data-testid="total">
              {list.counts.total}
            </span>
          )}
        </h1>
        <span
          class="live muted"
          title={checkedAt ? `checked ${formatTime(checkedAt.toISOString())}` : ""}
        >
          <span class="dot" aria-hidden="true" /> live
        </span>
      </div>
      {chips.length > 0 && (
        <nav class="filters" aria-label="Filter by graph">
          <a {...linkTo(href.inbox())} class={graph ? "chip" : "chip active"}>
            All graphs
          </a>
          {chips.map((g) => (
            <a key={g} {...linkTo(href.inbox(g))} class={graph === g ? "chip active" : "chip"}>
              {g} <span class="chip-count">{byGraph[g] ?? 0}</span>
            </a>
          ))}
        </nav>
      )}
      {error && (
        <p class="notice danger" role="alert">
          Could not load the inbox: {error}
        </p>
      )}
      {list && items.length === 0 && (
        <div class="empty">
          <h2>Nothing waits for review</h2>
          <p class="muted">
            {graph ? `No thread of “${graph}” is paused.` : "No thread is paused."} This list
            updates by itself when a run pauses.
          </p>
        </div>
      )}
      {items.length > 0 && (
        <ol class="rows" ref={rows} aria-label="Pending items">
          {items.map((item, i) => (
            <li
              key={item.interruptId}
              class={i === selected ? "row selected" : "row"}
              data-thread={item.threadId}
            >
              <a
                {...linkTo(href.thread(item.threadId))}
                class={item.deadline ? "row-link with-deadline" : "row-link"}
              >
                <span class={`badge kind ${item.kind}`}>{KIND_LABEL[item.kind]}</span>
                <span class={item.kind === "interrupt" ? "row-title prose" : "row-title"}>
                  {hiddenIn(item.value).length > 0 && !hasHiddenCharacters(titleOf(item)) && (
                    <span class="hidden-char" title="Hidden characters in this item: open it">
                      ⟨hidden⟩
                    </span>
                  )}
                  <VisibleText text={titleOf(item)} />
                </span>
                <span class="row-meta">
                  <span class="graph-name">{item.graphId}</span>
                  <span class="muted">·</span>
                  <span class="muted">at {nodeName(item.node)}</span>
                  <span class="muted">·</span>
                  <code class="muted">{item.threadId}</code>
                  {item.reviewGroup && (
                    <span class="badge review-group" title="handed to this group">
                      {item.reviewGroup}
                    </span>
                  )}
                </span>
                {item.deadline && (
                  <span
                    class={
                      timeLeft(item.deadline.at).overdue ? "row-deadline overdue" : "row-deadline"
                    }
                    title={`deadline ${formatTime(item.deadline.at)}`}
                  >
                    {timeLeft(item.deadline.at).text}
                  </span>
                )}
                <span class="row-age muted" title={formatTime(item.waitingSince)}>
                  {formatAge(item.waitingSince)}
                </span>
              </a>
            </li>
          ))}
        </ol>
      )}
      {list === null && !error && <p class="muted">Loading…</p>}
      <p class="hint-bar muted">
        <kbd>j</kbd>/<kbd>k</kbd> move · <kbd>Enter</kbd> open · <kbd>?</kbd> all shortcuts
      </p>
    </main>
  );
}
