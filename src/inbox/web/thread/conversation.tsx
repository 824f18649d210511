/** The thread's messages. Model and tool text is shown as text, never as HTML. */
import { useState } from "preact/hooks";
import { byteSize, formatBytes, oneLine, pretty } from "../format.js";
import { VisibleText } from "../visible-text.js";
import type { WireMessage } from "../wire.js";

const ROLE: Record<string, string> = {
  human: "user",
  user: "user",
  ai: "assistant",
  assistant: "assistant",
  AIMessageChunk: "assistant",
  tool: "tool",
  system: "system",
};

export function roleOf(m: WireMessage): string {
  return ROLE[m.type ?? m.role ?? ""] ?? m.type ?? m.role ?? "message";
}

export function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content))
    return content
      .map((part) =>
        typeof part === "string"
          ? part
          : part && typeof part === "object" && "text" in part
            ? String((part as { text: unknown }).text)
            : "",
      )
      .join("");
  return pretty(content);
}

/** A message longer than this many characters, or lines, is collapsed until opened. */
export const LONG_MESSAGE = { chars: 3000, lines: 40 };
/** How much of a collapsed message shows. */
const PREVIEW = { chars: 1200, lines: 16 };

/** The head of a long text, cut at whichever comes first: `chars` or `lines`. */
export function previewOf(text: string, limit = PREVIEW): string {
  const head = text.split("\n", limit.lines).join("\n");
  return head.length > limit.chars ? head.slice(0, limit.chars) : head;
}

const isLong = (text: string) =>
  text.length > LONG_MESSAGE.chars ||
  text.split("\n", LONG_MESSAGE.lines + 1).length > LONG_MESSAGE.lines;

/**
 * A message's text; a long one (a pasted log, a tool's whole file) shows its head and its
 * size with a button to open it, so one message does not bury the rest of the thread.
 */
function MessageText({ text }: { text: string }) {
  const [open, setOpen] = useState(false);
  if (!isLong(text))
    return (
      <pre class="msg-text">
        <VisibleText text={text} />
      </pre>
    );
  return (
    <div class="msg-long" data-testid="long-message">
      <pre class={open ? "msg-text" : "msg-text clipped"}>
        <VisibleText text={open ? text : `${previewOf(text)}…`} />
      </pre>
      <button type="button" class="btn small" aria-expanded={open} onClick={() => setOpen(!open)}>
        {open ? "Show less" : `Show all (${formatBytes(byteSize(text))})`}
      </button>
    </div>
  );
}

export function Message({ m }: { m: WireMessage }) {
  const role = roleOf(m);
  const text = textOf(m.content);
  const failed = role === "tool" && m.status === "error";
  return (
    <li class={`msg ${role}${failed ? " error" : ""}`}>
      <div class="msg-role">
        <VisibleText text={role === "tool" ? `tool · ${m.name ?? ""}` : role} />
        {failed && <span class="badge danger">error</span>}
      </div>
      {text && <MessageText text={text} />}
      {m.tool_calls?.map((call) => (
        <div class="tool-call" key={call.id ?? call.name}>
          <span class="muted">calls</span>{" "}
          <code>
            <VisibleText text={call.name} />
          </code>{" "}
          <span class="muted">
            <VisibleText text={oneLine(call.args, 160)} />
          </span>
        </div>
      ))}
    </li>
  );
}

export function Conversation({ messages }: { messages: WireMessage[] }) {
  if (messages.length === 0) return <p class="muted">No messages on this thread.</p>;
  return (
    <ol class="conversation">
      {messages.map((m, i) => (
        <Message key={m.id ?? i} m={m} />
      ))}
    </ol>
  );
}
