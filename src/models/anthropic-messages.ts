import type {
  Message as AnthropicMessage,
  Tool as AnthropicTool,
  ContentBlockParam,
  MessageCreateParamsNonStreaming,
  MessageParam,
  RawMessageStreamEvent,
  ToolResultBlockParam,
} from "@anthropic-ai/sdk/resources/messages";
import type { ChatModelChunk } from "./chat-model.js";
import type { AssistantMessage, Message, TokenUsage, ToolCall } from "./message.js";
import { message } from "./message.js";
import { type ProviderIdentity, reportedError } from "./provider-error.js";
import type { ProviderOptions } from "./provider-options.js";
import { answerTool, type ResponseFormat } from "./response-format.js";
import type { ToolDefinition } from "./tool.js";
import { parseToolCallArguments } from "./tool-call-arguments.js";

/** Anthropic requires `max_tokens` on every request; this is ours when none is given. */
export const DEFAULT_ANTHROPIC_MAX_TOKENS = 4096;

/**
 * The body of a `messages.create` call. System messages become the separate `system`
 * prompt; tool results travel in a user turn, one turn for a run of consecutive results.
 *
 * @example
 * const body = anthropicRequest("claude-sonnet-4-5", { maxTokens: 1024 }, messages, [readFile]);
 */
export function anthropicRequest(
  model: string,
  sampling: Pick<ProviderOptions, "maxTokens">,
  messages: readonly Message[],
  tools: readonly ToolDefinition[],
  format?: ResponseFormat,
): MessageCreateParamsNonStreaming {
  const system: string[] = [];
  const turns: MessageParam[] = [];
  // The tool-result turn being filled; any other message closes it.
  let results: ToolResultBlockParam[] | undefined;
  for (const entry of messages) {
    if (entry.role === "tool") {
      const block: ToolResultBlockParam = {
        type: "tool_result",
        tool_use_id: entry.toolCallId,
        content: entry.content,
      };
      if (entry.status === "error") block.is_error = true;
      if (results) results.push(block);
      else {
        results = [block];
        turns.push({ role: "user", content: results });
      }
      continue;
    }
    results = undefined;
    if (entry.role === "system") system.push(entry.content);
    else if (entry.role === "user") turns.push({ role: "user", content: entry.content });
    else turns.push({ role: "assistant", content: assistantContent(entry) });
  }

  const body: MessageCreateParamsNonStreaming = {
    model,
    max_tokens: sampling.maxTokens ?? DEFAULT_ANTHROPIC_MAX_TOKENS,
    messages: turns,
  };
  if (system.length > 0) body.system = system.join("\n\n");
  if (tools.length > 0) body.tools = tools.map(toAnthropicTool);
  if (format) {
    // Anthropic's structured output: a tool the model is made to call, whose input is the answer.
    body.tools = [...(body.tools ?? []), toAnthropicTool(answerTool(format))];
    body.tool_choice = { type: "tool", name: format.name };
  }
  return body;
}

function assistantContent(entry: AssistantMessage): string | ContentBlockParam[] {
  if (entry.toolCalls.length === 0) return entry.content;
  const blocks: ContentBlockParam[] = [];
  if (entry.content) blocks.push({ type: "text", text: entry.content });
  for (const call of entry.toolCalls) {
    blocks.push({ type: "tool_use", id: call.id, name: call.name, input: call.args });
  }
  return blocks;
}

function toAnthropicTool(definition: ToolDefinition): AnthropicTool {
  return {
    name: definition.name,
    description: definition.description,
    input_schema: definition.parameters as AnthropicTool.InputSchema,
  };
}

/**
 * Reads an Anthropic message into an assistant message: text blocks joined, `tool_use`
 * blocks as tool calls.
 *
 * @example
 * const reply = parseAnthropicMessage(identity, await client.messages.create(body));
 */
export function parseAnthropicMessage(
  identity: ProviderIdentity,
  response: AnthropicMessage,
): AssistantMessage {
  let content = "";
  const toolCalls: ToolCall[] = [];
  for (const block of response.content) {
    if (block.type === "text") content += block.text;
    else if (block.type === "tool_use") {
      const call = { id: block.id, name: block.name };
      toolCalls.push({ ...call, args: inputArgs(identity, call, block.input) });
    }
  }
  return message.assistant(content, {
    toolCalls,
    id: response.id,
    usage: toTokenUsage(response.usage, response.usage.output_tokens),
  });
}

/**
 * Turns Anthropic stream events into chunks. Text arrives as `text_delta`s; a tool call's
 * input arrives as `input_json_delta` pieces, parsed once its block is complete.
 *
 * @example
 * const events = await client.messages.create({ ...body, stream: true });
 * for await (const chunk of anthropicChunks(identity, events)) console.log(chunk);
 */
export async function* anthropicChunks(
  identity: ProviderIdentity,
  events: AsyncIterable<RawMessageStreamEvent>,
  detailed = false,
): AsyncGenerator<ChatModelChunk> {
  const text = (piece: string): ChatModelChunk =>
    detailed
      ? { type: "text-delta", text: piece, messageId: id }
      : { type: "text-delta", text: piece };
  // A tool_use block's order among the reply's tool calls, by block index.
  const toolIndex = new Map<number, number>();
  let id: string | undefined;
  let usage: TokenUsage | undefined;
  let stopped = false;
  const blocks = new Map<
    number,
    | { kind: "text"; text: string }
    | { kind: "tool"; id: string; name: string; json: string; start: unknown }
  >();
  for await (const event of events) {
    switch (event.type) {
      case "message_start":
        id = event.message.id;
        usage = toTokenUsage(event.message.usage, event.message.usage.output_tokens);
        break;
      case "content_block_start": {
        const block = event.content_block;
        if (block.type === "text") {
          blocks.set(event.index, { kind: "text", text: block.text });
          if (block.text) yield text(block.text);
        } else if (block.type === "tool_use") {
          blocks.set(event.index, {
            kind: "tool",
            id: block.id,
            name: block.name,
            json: "",
            start: block.input,
          });
          toolIndex.set(event.index, toolIndex.size);
          if (detailed) {
            const index = toolIndex.get(event.index)!;
            yield {
              type: "tool-call-delta",
              index,
              id: block.id,
              name: block.name,
              args: "",
              messageId: id,
            };
          }
        }
        break;
      }
      case "content_block_delta": {
        const block = blocks.get(event.index);
        if (event.delta.type === "text_delta" && block?.kind === "text") {
          block.text += event.delta.text;
          yield text(event.delta.text);
        } else if (event.delta.type === "input_json_delta" && block?.kind === "tool") {
          block.json += event.delta.partial_json;
          if (detailed) {
            const index = toolIndex.get(event.index)!;
            yield { type: "tool-call-delta", index, args: event.delta.partial_json, messageId: id };
          }
        }
        break;
      }
      case "message_delta":
        // message_delta counts are cumulative; input counts appear only on some servers.
        usage = {
          ...(usage ?? { inputTokens: 0, outputTokens: 0, totalTokens: 0 }),
          outputTokens: event.usage.output_tokens,
        };
        if (event.usage.input_tokens != null) {
          usage.inputTokens =
            event.usage.input_tokens +
            (event.usage.cache_creation_input_tokens ?? 0) +
            (event.usage.cache_read_input_tokens ?? 0);
        }
        usage.totalTokens = usage.inputTokens + usage.outputTokens;
        break;
      case "message_stop":
        stopped = true;
        break;
    }
  }
  if (!stopped) throw reportedError(identity, "the stream ended before message_stop");

  let content = "";
  const toolCalls: ToolCall[] = [];
  for (const [, block] of [...blocks.entries()].sort(([a], [b]) => a - b)) {
    if (block.kind === "text") content += block.text;
    else {
      const call = { id: block.id, name: block.name };
      // Input normally arrives only as deltas; a server may instead send it whole at start.
      const args = block.json
        ? parseToolCallArguments(identity, call, block.json)
        : inputArgs(identity, call, block.start ?? {});
      toolCalls.push({ ...call, args });
    }
  }
  const reply = message.assistant(content, {
    toolCalls,
    ...(id !== undefined && { id }),
    ...(usage && { usage }),
  });
  yield { type: "message", message: reply };
}

function inputArgs(
  identity: ProviderIdentity,
  call: { id: string; name: string },
  input: unknown,
): Record<string, unknown> {
  if (input !== null && typeof input === "object" && !Array.isArray(input)) {
    return input as Record<string, unknown>;
  }
  // Not an object: let the JSON parser's checks produce the usual ModelError.
  return parseToolCallArguments(identity, call, JSON.stringify(input) ?? "null");
}

// Anthropic's input_tokens leaves out cached tokens; the input the model saw includes them.
function toTokenUsage(
  counts: {
    input_tokens: number;
    cache_creation_input_tokens: number | null;
    cache_read_input_tokens: number | null;
  },
  outputTokens: number,
): TokenUsage {
  const inputTokens =
    counts.input_tokens +
    (counts.cache_creation_input_tokens ?? 0) +
    (counts.cache_read_input_tokens ?? 0);
  return { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens };
}
