import type {
  FunctionTool,
  Response,
  ResponseCreateParamsNonStreaming,
  ResponseInputItem,
  ResponseStreamEvent,
} from "openai/resources/responses/responses";
import type { ChatModelChunk } from "./chat-model.js";
import type { AssistantMessage, Message, ToolCall } from "./message.js";
import { message } from "./message.js";
import { type ProviderIdentity, reportedError } from "./provider-error.js";
import type { ProviderOptions } from "./provider-options.js";
import { answerTool, type ResponseFormat } from "./response-format.js";
import type { ToolDefinition } from "./tool.js";
import { parseToolCallArguments } from "./tool-call-arguments.js";

/**
 * The body of a `responses.create` call. We send the whole conversation as input items
 * every time, so a thread resumed from a checkpoint needs no server-side state.
 *
 * @example
 * const body = responsesRequest("gpt-5.4", { temperature: 0 }, messages, [readFile]);
 */
export function responsesRequest(
  model: string,
  sampling: Pick<ProviderOptions, "temperature" | "maxTokens">,
  messages: readonly Message[],
  tools: readonly ToolDefinition[],
  format?: ResponseFormat,
): ResponseCreateParamsNonStreaming {
  const body: ResponseCreateParamsNonStreaming = { model, input: messages.flatMap(toInputItems) };
  if (tools.length > 0) body.tools = tools.map(toFunctionTool);
  if (format?.method === "native") {
    body.text = {
      format: {
        type: "json_schema",
        name: format.name,
        schema: format.schema,
        strict: false,
        ...(format.description && { description: format.description }),
      },
    };
  } else if (format) {
    // The tool method: the model must call the answer's tool; its arguments are the answer.
    body.tools = [...(body.tools ?? []), toFunctionTool(answerTool(format))];
    body.tool_choice = { type: "function", name: format.name };
  }
  if (sampling.temperature !== undefined) body.temperature = sampling.temperature;
  if (sampling.maxTokens !== undefined) body.max_output_tokens = sampling.maxTokens;
  return body;
}

function toInputItems(entry: Message): ResponseInputItem[] {
  switch (entry.role) {
    case "system":
    case "user":
      return [{ role: entry.role, content: entry.content }];
    case "assistant": {
      const items: ResponseInputItem[] = [];
      if (entry.content) items.push({ role: "assistant", content: entry.content });
      for (const call of entry.toolCalls) {
        items.push({
          type: "function_call",
          call_id: call.id,
          name: call.name,
          arguments: JSON.stringify(call.args),
        });
      }
      return items;
    }
    case "tool":
      return [{ type: "function_call_output", call_id: entry.toolCallId, output: entry.content }];
  }
}

function toFunctionTool(definition: ToolDefinition): FunctionTool {
  // Not strict: strict mode rejects optional fields, which ordinary zod schemas have.
  return {
    type: "function",
    name: definition.name,
    description: definition.description,
    parameters: definition.parameters,
    strict: false,
  };
}

/**
 * Reads a finished Responses API response into an assistant message.
 *
 * @example
 * const reply = parseResponse(identity, await client.responses.create(body));
 */
export function parseResponse(identity: ProviderIdentity, response: Response): AssistantMessage {
  if (response.error) throw reportedError(identity, response.error.message);
  let content = "";
  const toolCalls: ToolCall[] = [];
  for (const item of response.output ?? []) {
    if (item.type === "message") {
      for (const part of item.content) {
        // A refusal is the model's answer too; dropping it would leave an empty reply.
        content += part.type === "output_text" ? part.text : part.refusal;
      }
    } else if (item.type === "function_call") {
      const call = { id: item.call_id, name: item.name };
      toolCalls.push({ ...call, args: parseToolCallArguments(identity, call, item.arguments) });
    }
  }
  const usage = response.usage;
  return message.assistant(content, {
    toolCalls,
    id: response.id,
    ...(usage && {
      usage: {
        inputTokens: usage.input_tokens,
        outputTokens: usage.output_tokens,
        totalTokens: usage.total_tokens,
      },
    }),
  });
}

/**
 * Turns Responses API stream events into chunks: text deltas as they come, then the
 * message read from the final `response.completed` (or `response.incomplete`) event.
 *
 * @example
 * const events = await client.responses.create({ ...body, stream: true });
 * for await (const chunk of responseChunks(identity, events)) console.log(chunk);
 */
export async function* responseChunks(
  identity: ProviderIdentity,
  events: AsyncIterable<ResponseStreamEvent>,
  detailed = false,
): AsyncGenerator<ChatModelChunk> {
  let final: AssistantMessage | undefined;
  let messageId: string | undefined;
  // Function-call items by item id: their order among the reply's tool calls, id and name.
  const calls = new Map<string, { index: number; id?: string; name?: string; started: boolean }>();
  const callOf = (itemId: string) => {
    let call = calls.get(itemId);
    if (!call) {
      call = { index: calls.size, started: false };
      calls.set(itemId, call);
    }
    return call;
  };
  for await (const event of events) {
    switch (event.type) {
      case "response.created":
        messageId = event.response.id;
        break;
      case "response.output_text.delta":
        if (event.delta) {
          yield detailed
            ? { type: "text-delta", text: event.delta, messageId }
            : { type: "text-delta", text: event.delta };
        }
        break;
      case "response.output_item.added":
        if (event.item.type === "function_call" && event.item.id) {
          const call = callOf(event.item.id);
          call.id = event.item.call_id;
          call.name = event.item.name;
        }
        break;
      case "response.function_call_arguments.delta":
        if (detailed) {
          const call = callOf(event.item_id);
          // The call's id and name go with its first piece only.
          const first = call.started ? {} : { id: call.id, name: call.name };
          call.started = true;
          yield {
            type: "tool-call-delta",
            index: call.index,
            ...first,
            args: event.delta,
            messageId,
          };
        }
        break;
      case "response.completed":
      case "response.incomplete":
        final = parseResponse(identity, event.response);
        break;
      case "response.failed":
        throw reportedError(identity, event.response.error?.message ?? "the response failed");
      case "error":
        throw reportedError(identity, event.message);
    }
  }
  if (!final) {
    throw reportedError(identity, "the stream ended before the response completed");
  }
  yield { type: "message", message: final };
}
