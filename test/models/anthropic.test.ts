import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { ModelConfigError, ModelError } from "../../src/errors/index.js";
import {
  AnthropicChatModel,
  type ChatModelChunk,
  initChatModel,
  message,
  tool,
} from "../../src/models/index.js";
import { anthropicEvents, anthropicMessage } from "./anthropic-wire.js";
import { type ProviderServer, startProviderServer } from "./provider-server.js";

const removeFile = tool({
  name: "remove_file",
  description: "Delete a file.",
  schema: z.object({ path: z.string() }),
  run: ({ path }) => `removed ${path}`,
});

let server: ProviderServer;
beforeAll(async () => {
  server = await startProviderServer();
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
});

function model(options: { maxTokens?: number } = {}) {
  return new AnthropicChatModel({
    model: "claude-test",
    apiKey: "sk-ant-test",
    baseURL: server.url,
    maxRetries: 0,
    ...options,
  });
}

async function collect(chunks: AsyncIterable<ChatModelChunk>): Promise<ChatModelChunk[]> {
  const all: ChatModelChunk[] = [];
  for await (const chunk of chunks) all.push(chunk);
  return all;
}

describe("Anthropic Messages API", () => {
  it("sends system messages as the system prompt and tool results in one user turn", async () => {
    server.reply({ json: anthropicMessage({ content: [{ type: "text", text: "Both gone." }] }) });
    await model().invoke(
      [
        message.system("You manage files."),
        message.system("Never delete /etc."),
        message.user("Delete a.txt and b.txt"),
        message.assistant("Deleting.", {
          toolCalls: [
            { id: "toolu_a", name: "remove_file", args: { path: "a.txt" } },
            { id: "toolu_b", name: "remove_file", args: { path: "b.txt" } },
          ],
        }),
        message.tool({ toolCallId: "toolu_a", name: "remove_file", content: "removed a.txt" }),
        message.tool({
          toolCallId: "toolu_b",
          name: "remove_file",
          content: "permission denied",
          status: "error",
        }),
        message.assistant("a.txt is gone; b.txt is protected."),
        message.user("Thanks"),
      ],
      { tools: [removeFile] },
    );

    const request = server.requests[0]!;
    expect(request.path).toBe("/v1/messages");
    expect(request.body).toEqual({
      model: "claude-test",
      max_tokens: 4096,
      system: "You manage files.\n\nNever delete /etc.",
      messages: [
        { role: "user", content: "Delete a.txt and b.txt" },
        {
          role: "assistant",
          content: [
            { type: "text", text: "Deleting." },
            { type: "tool_use", id: "toolu_a", name: "remove_file", input: { path: "a.txt" } },
            { type: "tool_use", id: "toolu_b", name: "remove_file", input: { path: "b.txt" } },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "toolu_a", content: "removed a.txt" },
            {
              type: "tool_result",
              tool_use_id: "toolu_b",
              content: "permission denied",
              is_error: true,
            },
          ],
        },
        { role: "assistant", content: "a.txt is gone; b.txt is protected." },
        { role: "user", content: "Thanks" },
      ],
      tools: [
        {
          name: "remove_file",
          description: "Delete a file.",
          input_schema: {
            type: "object",
            properties: { path: { type: "string" } },
            required: ["path"],
          },
        },
      ],
    });
  });

  it("sends the caller's maxTokens instead of the default", async () => {
    server.reply({ json: anthropicMessage({ content: [{ type: "text", text: "ok" }] }) });
    await model({ maxTokens: 256 }).invoke([message.user("hi")]);
    expect(server.requests[0]!.body.max_tokens).toBe(256);
    expect(server.requests[0]!.body).not.toHaveProperty("system");
  });

  it("reads text and tool_use blocks, counting cached input tokens as input", async () => {
    server.reply({
      json: anthropicMessage({
        id: "msg_abc",
        content: [
          { type: "text", text: "Removing it." },
          { type: "tool_use", id: "toolu_1", name: "remove_file", input: { path: "t.txt" } },
        ],
        usage: { input: 40, output: 9 },
      }),
    });
    const reply = await model().invoke([message.user("remove t.txt")], { tools: [removeFile] });
    expect(reply).toEqual({
      role: "assistant",
      content: "Removing it.",
      toolCalls: [{ id: "toolu_1", name: "remove_file", args: { path: "t.txt" } }],
      // 40 uncached + 3 read from the cache.
      usage: { inputTokens: 43, outputTokens: 9, totalTokens: 52 },
      id: "msg_abc",
    });
  });

  it("streams text deltas and assembles tool input from input_json_delta pieces", async () => {
    server.reply({
      sse: anthropicEvents(
        [
          { type: "text", pieces: ["I'll ", "remove ", "it."] },
          { type: "tool_use", id: "toolu_s", name: "remove_file", json: '{"path":"s.txt"}' },
          { type: "tool_use", id: "toolu_e", name: "remove_file", json: "" },
        ],
        { id: "msg_stream", input: 20, output: 15 },
      ),
    });
    const chunks = await collect(
      model().stream([message.user("remove s.txt")], { tools: [removeFile] }),
    );

    expect(server.requests[0]!.body.stream).toBe(true);
    expect(chunks).toEqual([
      { type: "text-delta", text: "I'll " },
      { type: "text-delta", text: "remove " },
      { type: "text-delta", text: "it." },
      {
        type: "message",
        message: {
          role: "assistant",
          content: "I'll remove it.",
          toolCalls: [
            { id: "toolu_s", name: "remove_file", args: { path: "s.txt" } },
            // A tool called without input streams no JSON at all.
            { id: "toolu_e", name: "remove_file", args: {} },
          ],
          usage: { inputTokens: 23, outputTokens: 15, totalTokens: 38 },
          id: "msg_stream",
        },
      },
    ]);
  });

  it("rejects streamed tool input that is not JSON with a ModelError", async () => {
    server.reply({
      sse: anthropicEvents([
        { type: "tool_use", id: "toolu_bad", name: "remove_file", json: '{"path": "x' },
      ]),
    });
    const error = await collect(model().stream([message.user("x")])).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).provider).toBe("anthropic");
    expect((error as ModelError).message).toMatch(/remove_file.*toolu_bad/);
  });

  it("turns an error event inside the stream into a ModelError", async () => {
    server.reply({
      sse: [
        ...anthropicEvents([{ type: "text", pieces: ["Hi"] }]).slice(0, 3),
        {
          event: "error",
          data: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
        },
      ],
    });
    const error = await collect(model().stream([message.user("hi")])).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).providerMessage).toBe("Overloaded");
  });

  it.each([
    [401, "authentication_error", "invalid x-api-key", /ANTHROPIC_API_KEY/],
    [
      429,
      "rate_limit_error",
      "Number of request tokens has exceeded your per-minute rate limit",
      /rate limiting/,
    ],
    [500, "api_error", "Internal server error", /server error/],
  ])(
    "turns HTTP %i into a ModelError with status and the provider's message",
    async (status, type, text, hint) => {
      server.reply({ status, json: { type: "error", error: { type, message: text } } });
      const error = await model()
        .invoke([message.user("hi")])
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ModelError);
      const modelError = error as ModelError;
      expect(modelError.status).toBe(status);
      expect(modelError.provider).toBe("anthropic");
      expect(modelError.providerMessage).toBe(text);
      expect(modelError.message).toMatch(hint);
    },
  );

  it("refuses temperature, which the current Messages API rejects", () => {
    expect(() =>
      initChatModel("anthropic:claude-test" as string, { apiKey: "k", temperature: 0.5 }),
    ).toThrow(ModelConfigError);
  });
});
