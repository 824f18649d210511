import type { SseEvent } from "./provider-server.js";

/**
 * Builders for what OpenAI's servers send: Responses API objects and SSE events, and Chat
 * Completions objects and chunks. Shapes follow the API reference, trimmed to the fields
 * a client reads.
 */

export interface FunctionCallWire {
  callId: string;
  name: string;
  arguments: string;
}

export function responseObject(
  options: {
    id?: string;
    text?: string;
    functionCalls?: FunctionCallWire[];
    usage?: { input: number; output: number };
  } = {},
) {
  const output: unknown[] = [];
  if (options.text !== undefined) {
    output.push({
      type: "message",
      id: "msg_1",
      status: "completed",
      role: "assistant",
      content: [{ type: "output_text", text: options.text, annotations: [] }],
    });
  }
  for (const [i, call] of (options.functionCalls ?? []).entries()) {
    output.push({
      type: "function_call",
      id: `fc_${i + 1}`,
      call_id: call.callId,
      name: call.name,
      arguments: call.arguments,
      status: "completed",
    });
  }
  const usage = options.usage ?? { input: 12, output: 5 };
  return {
    id: options.id ?? "resp_1",
    object: "response",
    created_at: 1_700_000_000,
    status: "completed",
    model: "gpt-test",
    error: null,
    incomplete_details: null,
    instructions: null,
    metadata: {},
    parallel_tool_calls: true,
    temperature: null,
    tool_choice: "auto",
    tools: [],
    top_p: null,
    output,
    usage: {
      input_tokens: usage.input,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: usage.output,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: usage.input + usage.output,
    },
  };
}

/** The event sequence of a streamed response that ends in `response.completed`. */
export function responseEvents(
  response: ReturnType<typeof responseObject>,
  textDeltas: string[],
): SseEvent[] {
  let sequence = 0;
  const event = (type: string, fields: object): SseEvent => ({
    event: type,
    data: { type, sequence_number: sequence++, ...fields },
  });
  const events: SseEvent[] = [
    event("response.created", { response: { ...response, status: "in_progress", output: [] } }),
  ];
  for (const delta of textDeltas) {
    events.push(
      event("response.output_text.delta", {
        item_id: "msg_1",
        output_index: 0,
        content_index: 0,
        delta,
        logprobs: [],
      }),
    );
  }
  for (const item of response.output as Array<{ type: string; id: string; arguments?: string }>) {
    if (item.type !== "function_call") continue;
    // Argument text arrives in two pieces, as real streams split it.
    const args = item.arguments ?? "";
    const half = Math.floor(args.length / 2);
    for (const delta of [args.slice(0, half), args.slice(half)]) {
      events.push(
        event("response.function_call_arguments.delta", {
          item_id: item.id,
          output_index: 1,
          delta,
        }),
      );
    }
  }
  events.push(event("response.completed", { response }));
  return events;
}

export function chatCompletionObject(
  options: {
    id?: string;
    content?: string | null;
    toolCalls?: Array<{ id: string; name: string; arguments: string }>;
    usage?: { prompt: number; completion: number };
  } = {},
) {
  const usage = options.usage ?? { prompt: 9, completion: 4 };
  const toolCalls = options.toolCalls ?? [];
  return {
    id: options.id ?? "chatcmpl_1",
    object: "chat.completion",
    created: 1_700_000_000,
    model: "gpt-test",
    choices: [
      {
        index: 0,
        finish_reason: toolCalls.length > 0 ? "tool_calls" : "stop",
        logprobs: null,
        message: {
          role: "assistant",
          content: options.content ?? null,
          refusal: null,
          ...(toolCalls.length > 0 && {
            tool_calls: toolCalls.map((call) => ({
              id: call.id,
              type: "function",
              function: { name: call.name, arguments: call.arguments },
            })),
          }),
        },
      },
    ],
    usage: {
      prompt_tokens: usage.prompt,
      completion_tokens: usage.completion,
      total_tokens: usage.prompt + usage.completion,
    },
  };
}

/** One `chat.completion.chunk`; pass `delta: null` for the usage-only final chunk. */
export function chatChunk(delta: object | null, extra: object = {}): SseEvent {
  return {
    data: {
      id: "chatcmpl_2",
      object: "chat.completion.chunk",
      created: 1_700_000_000,
      model: "gpt-test",
      choices: delta ? [{ index: 0, delta, finish_reason: null, logprobs: null }] : [],
      ...extra,
    },
  };
}

export const chatDone: SseEvent = { data: "[DONE]" };

/** What `POST /v1/embeddings` answers: one embedding per input, each with its index. */
export function embeddingsObject(vectors: number[][], model = "text-embedding-test") {
  return {
    object: "list",
    data: vectors.map((embedding, index) => ({ object: "embedding", index, embedding })),
    model,
    usage: { prompt_tokens: vectors.length, total_tokens: vectors.length },
  };
}
