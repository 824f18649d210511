import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionFunctionTool,
  ChatCompletionMessageParam,
} from "openai/resources/chat/completions";
import type { CompletionUsage } from "openai/resources/completions";
import type { ChatModelChunk } from "./chat-model.js";
import type { AssistantMessage, Message, TokenUsage, ToolCall } from "./message.js";
import { message } from "./message.js";
import { type ProviderIdentity, reportedError } from "./provider-error.js";
import type { ProviderOptions } from "./provider-options.js";
import { answerTool, type ResponseFormat } from "./response-format.js";
import type { ToolDefinition } from "./tool.js";
import { parseToolCallArguments } from "./tool-call-arguments.js";

/**
 * The body of a `chat.completions.create` call, for servers that speak the older Chat
 * Completions format (vLLM, Ollama, LM Studio, gateways…).
 *
 * @example
 * const body = chatCompletionRequest("llama3.1", {}, messages, [readFile]);
 */
export function chatCompletionRequest(
  model: string,
  sampling: Pick<ProviderOptions, "temperature" | "maxTokens">,
  messages: readonly Message[],
  tools: readonly ToolDefinition[],
  format?: ResponseFormat,
): ChatCompletionCreateParamsNonStreaming {
  const body: ChatCompletionCreateParamsNonStreaming = {
    model,
    messages: messages.map(toMessageParam),
  };
  if (tools.length > 0) body.tools = tools.map(toFunctionTool);
  if (format?.method === "native") {
    body.response_format = {
      type: "json_schema",
      json_schema: { name: format.name, schema: format.schema, strict: false },
    };
    if (format.description) body.response_format.json_schema.description = format.description;
  } else if (format) {
    // The tool method: the model must call the answer's tool; its arguments are the answer.
    body.tools = [...(body.tools ?? []), toFunctionTool(answerTool(format))];
    body.tool_choice = { type: "function", function: { name: format.name } };
  }
  if (sampling.temperature !== undefined) body.temperature = sampling.temperature;
  // `max_tokens` rather than `max_completion_tokens`: compatible servers know the older name.
  if (sampling.maxTokens !== undefined) body.max_tokens = sampling.maxTokens;
  return body;
}

function toMessageParam(entry: Message): ChatCompletionMessageParam {
  switch (entry.role) {
    case "system":
    case "user":
      return { role: entry.role, content: entry.content };
    case "assistant": {
      if (entry.toolCalls.length === 0) return { role: "assistant", content: entry.content };
      return {
        role: "assistant",
        content: entry.content || null,
        tool_calls: entry.toolCalls.map((call) => ({
          id: call.id,
          type: "function",
          function: { name: call.name, arguments: JSON.stringify(call.args) },
        })),
      };
    }
    case "tool":
      return { role: "tool", tool_call_id: entry.toolCallId, content: entry.content };
  }
}

function toFunctionTool(definition: ToolDefinition): ChatCompletionFunctionTool {
  return {
    type: "function",
    function: {
      name: definition.name,
      description: definition.description,
      parameters: definition.parameters,
    },
  };
}

/**
 * Reads a chat completion's first choice into an assistant message.
 *
 * @example
 * const reply = parseChatCompletion(identity, await client.chat.completions.create(body));
 */
export function parseChatCompletion(
  identity: ProviderIdentity,
  completion: ChatCompletion,
): AssistantMessage {
  const choice = completion.choices?.[0];
  if (!choice) throw reportedError(identity, "the completion has no choices");
  const toolCalls: ToolCall[] = [];
  for (const call of choice.message.tool_calls ?? []) {
    if (call.type !== "function") continue;
    const ids = { id: call.id, name: call.function.name };
    toolCalls.push({
      ...ids,
      args: parseToolCallArguments(identity, ids, call.function.arguments),
    });
  }
  const content = choice.message.content ?? choice.message.refusal ?? "";
  return message.assistant(content, {
    toolCalls,
    id: completion.id,
    ...(completion.usage && { usage: toTokenUsage(completion.usage) }),
  });
}

/**
 * Turns streamed chat completion chunks into our chunks. Tool calls arrive in pieces,
 * keyed by `index`: the first piece has the id and name, later ones append argument text.
 *
 * @example
 * const chunks = await client.chat.completions.create({ ...body, stream: true });
 * for await (const chunk of chatCompletionChunks(identity, chunks)) console.log(chunk);
 */
export async function* chatCompletionChunks(
  identity: ProviderIdentity,
  chunks: AsyncIterable<ChatCompletionChunk>,
  detailed = false,
): AsyncGenerator<ChatModelChunk> {
  let id: string | undefined;
  let content = "";
  let usage: TokenUsage | undefined;
  const calls = new Map<number, { id: string; name: string; arguments: string }>();
  for await (const chunk of chunks) {
    id ??= chunk.id;
    if (chunk.usage) usage = toTokenUsage(chunk.usage);
    const delta = chunk.choices?.[0]?.delta;
    if (!delta) continue;
    if (delta.content) {
      content += delta.content;
      yield detailed
        ? { type: "text-delta", text: delta.content, messageId: id }
        : { type: "text-delta", text: delta.content };
    }
    for (const [position, piece] of (delta.tool_calls ?? []).entries()) {
      const index = piece.index ?? position;
      const call = calls.get(index) ?? { id: "", name: "", arguments: "" };
      if (piece.id) call.id = piece.id;
      if (piece.function?.name) call.name += piece.function.name;
      if (piece.function?.arguments) call.arguments += piece.function.arguments;
      calls.set(index, call);
      if (detailed) {
        yield {
          type: "tool-call-delta",
          index,
          ...(piece.id && { id: piece.id }),
          ...(piece.function?.name && { name: piece.function.name }),
          args: piece.function?.arguments ?? "",
          messageId: id,
        };
      }
    }
  }
  const toolCalls = [...calls.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, call]) => ({
      id: call.id,
      name: call.name,
      args: parseToolCallArguments(identity, call, call.arguments),
    }));
  const reply = message.assistant(content, {
    toolCalls,
    ...(id !== undefined && { id }),
    ...(usage && { usage }),
  });
  yield { type: "message", message: reply };
}

function toTokenUsage(usage: CompletionUsage): TokenUsage {
  return {
    inputTokens: usage.prompt_tokens,
    outputTokens: usage.completion_tokens,
    totalTokens: usage.total_tokens,
  };
}
