/** The thread's messages. Model and tool text is shown as text, never as HTML. */
import { oneLine, pretty } from "../format.js";
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

export function Message({ m }: { m: WireMessage }) {
  const role = roleOf(m);
  const text = textOf(m.content);
  const failed = role === "tool" && m.status === "error";
  return (
    <li class={`msg ${role}${failed ? " error" : ""}`}>
      <div class="msg-role">
        {role === "tool" ? `tool · ${m.name ?? ""}` : role}
        {failed && <span class="badge danger">error</span>}
      </div>
      {text && <pre class="msg-text">{text}</pre>}
      {m.tool_calls?.map((call) => (
        <div class="tool-call" key={call.id ?? call.name}>
          <span class="muted">calls</span> <code>{call.name}</code>{" "}
          <span class="muted">{oneLine(call.args, 160)}</span>
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
