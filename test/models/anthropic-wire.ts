import type { SseEvent } from "./provider-server.js";

/**
 * Builders for what Anthropic's Messages API sends: message objects and the SSE event
 * sequence of a streamed message.
 */

export type ContentBlockWire =
  | { type: "text"; text: string }
  | { type: "tool_use"; id: string; name: string; input: unknown };

function usage(input: number, output: number) {
  return {
    input_tokens: input,
    output_tokens: output,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 3,
    cache_creation: null,
    inference_geo: null,
    server_tool_use: null,
    service_tier: "standard",
  };
}

export function anthropicMessage(
  options: {
    id?: string;
    content: ContentBlockWire[];
    usage?: { input: number; output: number };
  } = {
    content: [],
  },
) {
  const counts = options.usage ?? { input: 20, output: 7 };
  return {
    id: options.id ?? "msg_01",
    type: "message",
    role: "assistant",
    model: "claude-test",
    container: null,
    content: options.content.map((block) =>
      block.type === "text"
        ? { ...block, citations: null }
        : { ...block, caller: { type: "direct" } },
    ),
    stop_reason: options.content.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn",
    stop_sequence: null,
    stop_details: null,
    usage: usage(counts.input, counts.output),
  };
}

/**
 * The event sequence of a streamed message. Text blocks stream as the given pieces; a
 * tool_use block streams its input JSON text (`json`, which may be malformed on purpose)
 * as two input_json_delta pieces.
 */
export function anthropicEvents(
  blocks: Array<
    | { type: "text"; pieces: string[] }
    | { type: "tool_use"; id: string; name: string; json: string }
  >,
  options: { id?: string; input?: number; output?: number } = {},
): SseEvent[] {
  const event = (type: string, fields: object = {}): SseEvent => ({
    event: type,
    data: { type, ...fields },
  });
  const start = anthropicMessage({ id: options.id ?? "msg_02", content: [] });
  const events: SseEvent[] = [
    event("message_start", {
      message: { ...start, stop_reason: null, usage: usage(options.input ?? 20, 1) },
    }),
    event("ping"),
  ];
  for (const [index, block] of blocks.entries()) {
    if (block.type === "text") {
      events.push(
        event("content_block_start", {
          index,
          content_block: { type: "text", text: "", citations: null },
        }),
      );
      for (const text of block.pieces) {
        events.push(event("content_block_delta", { index, delta: { type: "text_delta", text } }));
      }
    } else {
      events.push(
        event("content_block_start", {
          index,
          content_block: {
            type: "tool_use",
            id: block.id,
            name: block.name,
            input: {},
            caller: { type: "direct" },
          },
        }),
      );
      const half = Math.floor(block.json.length / 2);
      for (const partial_json of [block.json.slice(0, half), block.json.slice(half)]) {
        events.push(
          event("content_block_delta", {
            index,
            delta: { type: "input_json_delta", partial_json },
          }),
        );
      }
    }
    events.push(event("content_block_stop", { index }));
  }
  events.push(
    event("message_delta", {
      delta: { stop_reason: "end_turn", stop_sequence: null, stop_details: null, container: null },
      usage: {
        input_tokens: null,
        output_tokens: options.output ?? 11,
        cache_creation_input_tokens: null,
        cache_read_input_tokens: null,
      },
    }),
    event("message_stop"),
  );
  return events;
}
