import { addMessages } from "../../agent/index.js";
import type { Message, ToolCall } from "../../models/index.js";

/**
 * A message as LangChain serializes it on the wire (what `@langchain/langgraph-sdk`
 * returns and `useStream` renders).
 *
 * @example
 * const m: WireMessage = { type: "human", content: "Delete temp.txt", id: "m-0" };
 */
export interface WireMessage {
  type: "human" | "ai" | "tool" | "system";
  content: string;
  id: string;
  tool_calls?: Array<{
    id: string;
    name: string;
    args: Record<string, unknown>;
    type: "tool_call";
  }>;
  /** Tool calls whose arguments did not parse: always empty here, listed as LangChain lists them. */
  invalid_tool_calls?: unknown[];
  tool_call_id?: string;
  name?: string;
  status?: "success" | "error";
  additional_kwargs: Record<string, unknown>;
  response_metadata: Record<string, unknown>;
  usage_metadata?: { input_tokens: number; output_tokens: number; total_tokens: number };
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** Ours → LangChain's shape. A message without an id gets `m-<index>`, stable for its place. */
export function toWireMessage(m: Message, index: number): WireMessage {
  const id = (m as { id?: unknown }).id;
  const base = {
    content: m.content,
    id: typeof id === "string" ? id : `m-${index}`,
    additional_kwargs: {},
    response_metadata: {},
  };
  switch (m.role) {
    case "user":
      return { type: "human", ...base };
    case "system":
      return { type: "system", ...base };
    case "tool":
      return { type: "tool", ...base, tool_call_id: m.toolCallId, name: m.name, status: m.status };
    case "assistant":
      return {
        type: "ai",
        ...base,
        tool_calls: m.toolCalls.map((c) => ({ ...c, type: "tool_call" as const })),
        invalid_tool_calls: [],
        ...(m.usage && {
          usage_metadata: {
            input_tokens: m.usage.inputTokens,
            output_tokens: m.usage.outputTokens,
            total_tokens: m.usage.totalTokens,
          },
        }),
      };
  }
}

const ROLE_BY_TYPE: Record<string, Message["role"]> = {
  human: "user",
  user: "user",
  ai: "assistant",
  assistant: "assistant",
  tool: "tool",
  system: "system",
};

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  // LangChain content blocks: keep the text ones.
  if (Array.isArray(content))
    return content.map((b) => (isObject(b) && typeof b.text === "string" ? b.text : "")).join("");
  return "";
}

/**
 * LangChain's shape (`{ type: "human" }`, `{ role: "user" }`, or ours) → ours. Returns
 * `undefined` for something that is not a message, so the caller can name it.
 */
export function fromWireMessage(value: unknown): Message | undefined {
  if (!isObject(value)) return undefined;
  const role = ROLE_BY_TYPE[String(value.role ?? value.type)];
  if (!role) return undefined;
  const content = textOf(value.content);
  const id = typeof value.id === "string" ? { id: value.id } : {};
  switch (role) {
    case "user":
    case "system":
      return { role, content, ...id } as Message;
    case "tool":
      return {
        role,
        content,
        toolCallId: String(value.toolCallId ?? value.tool_call_id ?? ""),
        name: String(value.name ?? ""),
        status: value.status === "error" ? "error" : "success",
      };
    case "assistant": {
      const calls = (value.toolCalls ?? value.tool_calls ?? []) as unknown[];
      const toolCalls: ToolCall[] = calls.filter(isObject).map((c) => ({
        id: String(c.id ?? ""),
        name: String(c.name ?? ""),
        args: isObject(c.args) ? c.args : {},
      }));
      return { role, content, toolCalls, ...id };
    }
  }
}

const looksLikeOurs = (v: unknown): v is Message =>
  isObject(v) && typeof v.role === "string" && typeof v.content === "string";

/**
 * State values with `messages` (ours) in LangChain's shape; other keys as they are.
 * `offset` is the index of the first message in the thread (for an update's new messages).
 */
export function toWireValues(values: unknown, offset = 0): unknown {
  if (!isObject(values) || !Array.isArray(values.messages)) return values;
  return {
    ...values,
    messages: values.messages.map((m, i) => (looksLikeOurs(m) ? toWireMessage(m, offset + i) : m)),
  };
}

/**
 * Input or update values with `messages` in any accepted shape → ours. A single message
 * (not in a list) is accepted too, as LangChain's reducer does. For a graph whose `messages`
 * are not a conversation (`holdsMessages`), pass `{ messages: false }`: they go as sent.
 */
export function fromWireValues(
  values: unknown,
  options: { messages?: boolean } = {},
): { values: unknown; badIndex?: number } {
  if (!isObject(values) || values.messages === undefined || options.messages === false)
    return { values };
  const list = Array.isArray(values.messages) ? values.messages : [values.messages];
  const messages: Message[] = [];
  for (const [i, m] of list.entries()) {
    const ours = fromWireMessage(m);
    if (!ours) return { values, badIndex: i };
    messages.push(ours);
  }
  return { values: { ...values, messages } };
}

/**
 * Whether a graph's `messages` key is a conversation: merged by `addMessages`, or by no
 * reducer at all (as before reducers were looked at). A reducer of its own says the values
 * are the graph's business, as LangGraph's server leaves them.
 */
export function holdsMessages(graph: { reducerOf(key: string): unknown }): boolean {
  const reducer = graph.reducerOf("messages");
  return reducer === undefined || reducer === addMessages;
}
