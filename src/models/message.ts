/**
 * Messages are plain JSON objects discriminated by `role`. They live in graph state and
 * are written into checkpoints as they are, so they carry no methods and no classes.
 */

/**
 * Tokens a model call consumed, as the provider reported them.
 *
 * @example
 * const spent = replies.reduce((sum, r) => sum + (r.usage?.totalTokens ?? 0), 0);
 */
export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
}

/**
 * A tool call the model asked for. `id` pairs it with the `ToolMessage` that answers it.
 *
 * @example
 * const call: ToolCall = { id: "call_1", name: "read_file", args: { path: "a.txt" } };
 */
export interface ToolCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
}

/**
 * Instructions for the model. Providers that take a separate system prompt get it there.
 *
 * @example
 * const rules: SystemMessage = message.system("Answer in one sentence.");
 */
export interface SystemMessage {
  role: "system";
  content: string;
  /** Names the message, so a later write can replace or remove it (see `addMessages`). */
  id?: string;
}

/**
 * What the human (or the calling program) said.
 *
 * @example
 * const question: UserMessage = message.user("What changed since yesterday?");
 */
export interface UserMessage {
  role: "user";
  content: string;
  /** Names the message, so a later write can replace or remove it (see `addMessages`). */
  id?: string;
}

/**
 * A model's reply: its text, the tool calls it wants run, and what it cost.
 *
 * @example
 * const reply: AssistantMessage = await model.invoke(history, { tools });
 * if (reply.toolCalls.length === 0) console.log(reply.content);
 */
export interface AssistantMessage {
  role: "assistant";
  content: string;
  toolCalls: ToolCall[];
  usage?: TokenUsage;
  /** The provider's id for the response, when it gave one. */
  id?: string;
}

/**
 * The result of one tool call, sent back to the model. `status` says whether it failed.
 *
 * @example
 * const result: ToolMessage = message.tool({ toolCallId: "call_1", name: "read_file", content: "…" });
 */
export interface ToolMessage {
  role: "tool";
  content: string;
  toolCallId: string;
  name: string;
  status: "success" | "error";
  /** Names the message, so a later write can replace or remove it (see `addMessages`). */
  id?: string;
}

/**
 * Any message in a conversation.
 *
 * @example
 * const history: Message[] = [message.system("Be brief."), message.user("Hi")];
 */
export type Message = SystemMessage | UserMessage | AssistantMessage | ToolMessage;

/**
 * Builders for each message role. They return plain objects and leave out absent fields,
 * so a message compares equal to itself after a trip through a checkpoint.
 *
 * @example
 * const messages = [
 *   message.system("You manage files."),
 *   message.user("Delete temp.txt"),
 *   message.assistant("", { toolCalls: [{ id: "call_1", name: "remove_file", args: { path: "temp.txt" } }] }),
 *   message.tool({ toolCallId: "call_1", name: "remove_file", content: "removed" }),
 * ];
 */
export const message = {
  system(content: string, options: { id?: string } = {}): SystemMessage {
    return options.id === undefined
      ? { role: "system", content }
      : { role: "system", content, id: options.id };
  },

  user(content: string, options: { id?: string } = {}): UserMessage {
    return options.id === undefined
      ? { role: "user", content }
      : { role: "user", content, id: options.id };
  },

  assistant(
    content: string,
    options: { toolCalls?: ToolCall[]; usage?: TokenUsage; id?: string } = {},
  ): AssistantMessage {
    const reply: AssistantMessage = {
      role: "assistant",
      content,
      toolCalls: (options.toolCalls ?? []).map((call) => ({
        id: call.id,
        name: call.name,
        args: call.args,
      })),
    };
    if (options.usage) reply.usage = { ...options.usage };
    if (options.id !== undefined) reply.id = options.id;
    return reply;
  },

  tool(fields: {
    toolCallId: string;
    name: string;
    content: string;
    status?: "success" | "error";
    id?: string;
  }): ToolMessage {
    const reply: ToolMessage = {
      role: "tool",
      content: fields.content,
      toolCallId: fields.toolCallId,
      name: fields.name,
      status: fields.status ?? "success",
    };
    if (fields.id !== undefined) reply.id = fields.id;
    return reply;
  },
};

/**
 * True for a system message.
 *
 * @example
 * const instructions = messages.filter(isSystemMessage).map((m) => m.content);
 */
export function isSystemMessage(value: Message): value is SystemMessage {
  return value.role === "system";
}

/**
 * True for a user message.
 *
 * @example
 * const lastQuestion = messages.findLast(isUserMessage)?.content;
 */
export function isUserMessage(value: Message): value is UserMessage {
  return value.role === "user";
}

/**
 * True for a model reply.
 *
 * @example
 * const last = messages.at(-1);
 * if (last && isAssistantMessage(last) && last.toolCalls.length > 0) runTools(last.toolCalls);
 */
export function isAssistantMessage(value: Message): value is AssistantMessage {
  return value.role === "assistant";
}

/**
 * True for a tool result.
 *
 * @example
 * const failures = messages.filter(isToolMessage).filter((m) => m.status === "error");
 */
export function isToolMessage(value: Message): value is ToolMessage {
  return value.role === "tool";
}
