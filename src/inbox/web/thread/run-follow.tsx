/**
 * After a decision: follows the run's join stream and shows it as it happens (model tokens,
 * node updates, tool results) until the server closes it, then hands back so the page reloads the thread.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { streams } from "../api.js";
import { oneLine } from "../format.js";
import { nodeName } from "../node-names.js";
import { VisibleText } from "../visible-text.js";
import type { WireMessage } from "../wire.js";
import { Message, textOf } from "./conversation.js";

interface Live {
  updates: string[];
  tokens: Map<string, string>;
  toolResults: WireMessage[];
}

const asMessage = (x: unknown): WireMessage | undefined =>
  x && typeof x === "object" && "content" in x ? (x as WireMessage) : undefined;

export function RunFollow(props: { threadId: string; runId: string; onEnd: () => void }) {
  const [live, setLive] = useState<Live>({ updates: [], tokens: new Map(), toolResults: [] });
  const ended = useRef(false);
  useEffect(() => {
    const source = new EventSource(streams.run(props.threadId, props.runId));
    const finish = () => {
      if (ended.current) return;
      ended.current = true;
      source.close();
      props.onEnd();
    };
    const on = (name: string, handle: (data: unknown) => void) =>
      source.addEventListener(name, (e) => {
        try {
          handle(JSON.parse((e as MessageEvent).data));
        } catch {
          // A frame that is not JSON carries nothing to show.
        }
      });
    const token = (m: WireMessage | undefined, replace: boolean) => {
      if (!m || (m.type !== "ai" && m.type !== "AIMessageChunk")) return;
      setLive((l) => {
        const tokens = new Map(l.tokens);
        const id = m.id ?? "current";
        tokens.set(id, replace ? textOf(m.content) : (tokens.get(id) ?? "") + textOf(m.content));
        return { ...l, tokens };
      });
    };
    on("messages/partial", (data) => {
      for (const m of Array.isArray(data) ? data : []) token(asMessage(m), true);
    });
    on("messages", (data) => token(asMessage(Array.isArray(data) ? data[0] : data), false));
    on("messages-tuple", (data) => token(asMessage(Array.isArray(data) ? data[0] : data), false));
    on("updates", (data) => {
      if (!data || typeof data !== "object") return;
      for (const [node, writes] of Object.entries(data)) {
        const msgs = (writes as { messages?: unknown })?.messages;
        const tools = (Array.isArray(msgs) ? msgs : [])
          .map(asMessage)
          .filter((m): m is WireMessage => m?.type === "tool");
        setLive((l) => ({
          ...l,
          updates: [...l.updates, `${nodeName(node)}: ${oneLine(writes, 100)}`],
          toolResults: [...l.toolResults, ...tools],
        }));
      }
    });
    // The server closes the stream when the run is over (as LangGraph does, with no closing
    // event); EventSource reports that as an error and would reconnect.
    source.addEventListener("error", finish);
    return () => {
      ended.current = true;
      source.close();
    };
  }, [props.threadId, props.runId]);

  return (
    <section class="panel run-live" aria-live="polite" data-testid="run-live">
      <h3>
        <span class="spinner" aria-hidden="true" /> Running <code>{props.runId}</code>
      </h3>
      {live.updates.length === 0 && live.tokens.size === 0 && (
        <p class="muted">Decision recorded; waiting for the run to report…</p>
      )}
      <ol class="conversation">
        {live.toolResults.map((m, i) => (
          <Message key={m.id ?? `t${i}`} m={m} />
        ))}
        {[...live.tokens.entries()].map(([id, text]) => (
          <Message key={id} m={{ type: "ai", id, content: text }} />
        ))}
      </ol>
      {live.updates.length > 0 && (
        <ul class="updates">
          {live.updates.map((u, i) => (
            <li key={i}>
              <VisibleText text={u} />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
