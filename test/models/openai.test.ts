import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { AbortError, ModelError } from "../../src/errors/index.js";
import {
  type ChatModelChunk,
  type Message,
  message,
  OpenAIChatModel,
  tool,
} from "../../src/models/index.js";
import {
  chatChunk,
  chatCompletionObject,
  chatDone,
  responseEvents,
  responseObject,
} from "./openai-wire.js";
import { type ProviderServer, startProviderServer } from "./provider-server.js";

const readFile = tool({
  name: "read_file",
  description: "Read a text file.",
  schema: z.object({
    path: z.string().describe("Path in the workspace"),
    maxBytes: z.number().int().default(4096),
  }),
  run: ({ path }) => `contents of ${path}`,
});

const conversation: Message[] = [
  message.system("You manage files."),
  message.user("Show me a.txt and b.txt"),
  message.assistant("Reading both.", {
    toolCalls: [
      { id: "call_a", name: "read_file", args: { path: "a.txt" } },
      { id: "call_b", name: "read_file", args: { path: "b.txt" } },
    ],
  }),
  message.tool({ toolCallId: "call_a", name: "read_file", content: "alpha" }),
  message.tool({
    toolCallId: "call_b",
    name: "read_file",
    content: "no such file",
    status: "error",
  }),
];

let server: ProviderServer;
beforeAll(async () => {
  server = await startProviderServer();
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
});

function model(
  options: { api?: "responses" | "chat"; temperature?: number; maxTokens?: number } = {},
) {
  return new OpenAIChatModel({
    model: "gpt-test",
    apiKey: "sk-test",
    baseURL: `${server.url}/v1`,
    maxRetries: 0,
    ...options,
  });
}

async function collect(chunks: AsyncIterable<ChatModelChunk>): Promise<ChatModelChunk[]> {
  const all: ChatModelChunk[] = [];
  for await (const chunk of chunks) all.push(chunk);
  return all;
}

describe("OpenAI Responses API (the default)", () => {
  it("sends the conversation as input items and tools as non-strict functions", async () => {
    server.reply({ json: responseObject({ text: "Done." }) });
    await model({ temperature: 0.2, maxTokens: 300 }).invoke(conversation, { tools: [readFile] });

    const request = server.requests[0]!;
    expect(request.path).toBe("/v1/responses");
    expect(request.headers.authorization).toBe("Bearer sk-test");
    expect(request.body).toEqual({
      model: "gpt-test",
      temperature: 0.2,
      max_output_tokens: 300,
      input: [
        { role: "system", content: "You manage files." },
        { role: "user", content: "Show me a.txt and b.txt" },
        { role: "assistant", content: "Reading both." },
        {
          type: "function_call",
          call_id: "call_a",
          name: "read_file",
          arguments: '{"path":"a.txt"}',
        },
        {
          type: "function_call",
          call_id: "call_b",
          name: "read_file",
          arguments: '{"path":"b.txt"}',
        },
        { type: "function_call_output", call_id: "call_a", output: "alpha" },
        { type: "function_call_output", call_id: "call_b", output: "no such file" },
      ],
      tools: [
        {
          type: "function",
          name: "read_file",
          description: "Read a text file.",
          strict: false,
          parameters: {
            type: "object",
            properties: {
              path: { type: "string", description: "Path in the workspace" },
              maxBytes: {
                type: "integer",
                default: 4096,
                minimum: Number.MIN_SAFE_INTEGER,
                maximum: Number.MAX_SAFE_INTEGER,
              },
            },
            required: ["path"],
          },
        },
      ],
    });
  });

  it("reads text, function calls and usage from the response", async () => {
    server.reply({
      json: responseObject({
        id: "resp_42",
        text: "Let me look.",
        functionCalls: [{ callId: "call_9", name: "read_file", arguments: '{"path":"c.txt"}' }],
        usage: { input: 30, output: 8 },
      }),
    });
    const reply = await model().invoke([message.user("c.txt?")], { tools: [readFile] });
    expect(reply).toEqual({
      role: "assistant",
      content: "Let me look.",
      toolCalls: [{ id: "call_9", name: "read_file", args: { path: "c.txt" } }],
      usage: { inputTokens: 30, outputTokens: 8, totalTokens: 38 },
      id: "resp_42",
    });
  });

  it("streams text deltas, then the complete message from response.completed", async () => {
    const response = responseObject({
      text: "Hello there",
      functionCalls: [{ callId: "call_s", name: "read_file", arguments: '{"path":"s.txt"}' }],
    });
    server.reply({ sse: responseEvents(response, ["Hel", "lo ", "there"]) });
    const chunks = await collect(model().stream([message.user("hi")], { tools: [readFile] }));

    expect(server.requests[0]!.body.stream).toBe(true);
    expect(chunks).toEqual([
      { type: "text-delta", text: "Hel" },
      { type: "text-delta", text: "lo " },
      { type: "text-delta", text: "there" },
      {
        type: "message",
        message: {
          role: "assistant",
          content: "Hello there",
          toolCalls: [{ id: "call_s", name: "read_file", args: { path: "s.txt" } }],
          usage: { inputTokens: 12, outputTokens: 5, totalTokens: 17 },
          id: "resp_1",
        },
      },
    ]);
  });

  it("turns a response.failed event into a ModelError with the provider's message", async () => {
    const failed = {
      ...responseObject(),
      status: "failed",
      error: { code: "server_error", message: "The model crashed" },
    };
    server.reply({
      sse: [
        {
          event: "response.created",
          data: { type: "response.created", sequence_number: 0, response: failed },
        },
        {
          event: "response.failed",
          data: { type: "response.failed", sequence_number: 1, response: failed },
        },
      ],
    });
    const error = await collect(model().stream([message.user("hi")])).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).providerMessage).toBe("The model crashed");
  });

  it("rejects function-call arguments that are not JSON with a ModelError", async () => {
    server.reply({
      json: responseObject({
        functionCalls: [{ callId: "call_bad", name: "read_file", arguments: '{"path": "a.txt"' }],
      }),
    });
    const error = await model()
      .invoke([message.user("a.txt")], { tools: [readFile] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).provider).toBe("openai");
    expect((error as ModelError).message).toMatch(/read_file.*call_bad.*not a JSON object/);
  });
});

describe("OpenAI Chat Completions (api: 'chat')", () => {
  it("maps tool calls and tool results onto chat messages", async () => {
    server.reply({ json: chatCompletionObject({ content: "ok" }) });
    await model({ api: "chat", maxTokens: 64 }).invoke(conversation, { tools: [readFile] });

    const request = server.requests[0]!;
    expect(request.path).toBe("/v1/chat/completions");
    expect(request.body.max_tokens).toBe(64);
    expect(request.body.messages).toEqual([
      { role: "system", content: "You manage files." },
      { role: "user", content: "Show me a.txt and b.txt" },
      {
        role: "assistant",
        content: "Reading both.",
        tool_calls: [
          {
            id: "call_a",
            type: "function",
            function: { name: "read_file", arguments: '{"path":"a.txt"}' },
          },
          {
            id: "call_b",
            type: "function",
            function: { name: "read_file", arguments: '{"path":"b.txt"}' },
          },
        ],
      },
      { role: "tool", tool_call_id: "call_a", content: "alpha" },
      { role: "tool", tool_call_id: "call_b", content: "no such file" },
    ]);
    expect(request.body.tools).toEqual([
      {
        type: "function",
        function: {
          name: "read_file",
          description: "Read a text file.",
          parameters: readFile.parameters,
        },
      },
    ]);
  });

  it("reads content, tool calls and usage from the first choice", async () => {
    server.reply({
      json: chatCompletionObject({
        id: "chatcmpl_7",
        content: null,
        toolCalls: [{ id: "call_c", name: "read_file", arguments: '{"path":"d.txt"}' }],
      }),
    });
    const reply = await model({ api: "chat" }).invoke([message.user("d.txt")], {
      tools: [readFile],
    });
    expect(reply).toEqual({
      role: "assistant",
      content: "",
      toolCalls: [{ id: "call_c", name: "read_file", args: { path: "d.txt" } }],
      usage: { inputTokens: 9, outputTokens: 4, totalTokens: 13 },
      id: "chatcmpl_7",
    });
  });

  it("assembles streamed tool calls from argument fragments, keyed by index", async () => {
    server.reply({
      sse: [
        chatChunk({ role: "assistant", content: "" }),
        chatChunk({ content: "Opening " }),
        chatChunk({ content: "files" }),
        chatChunk({
          tool_calls: [
            {
              index: 0,
              id: "call_x",
              type: "function",
              function: { name: "read_file", arguments: "" },
            },
          ],
        }),
        chatChunk({ tool_calls: [{ index: 0, function: { arguments: '{"pa' } }] }),
        chatChunk({
          tool_calls: [
            {
              index: 1,
              id: "call_y",
              type: "function",
              function: { name: "read_file", arguments: '{"path":' },
            },
          ],
        }),
        chatChunk({ tool_calls: [{ index: 0, function: { arguments: 'th":"x.txt"}' } }] }),
        chatChunk({ tool_calls: [{ index: 1, function: { arguments: '"y.txt"}' } }] }),
        chatChunk({}, { choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] }),
        chatChunk(null, { usage: { prompt_tokens: 5, completion_tokens: 6, total_tokens: 11 } }),
        chatDone,
      ],
    });
    const chunks = await collect(model({ api: "chat" }).stream([message.user("x and y")]));

    expect(server.requests[0]!.body).toMatchObject({
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(chunks).toEqual([
      { type: "text-delta", text: "Opening " },
      { type: "text-delta", text: "files" },
      {
        type: "message",
        message: {
          role: "assistant",
          content: "Opening files",
          toolCalls: [
            { id: "call_x", name: "read_file", args: { path: "x.txt" } },
            { id: "call_y", name: "read_file", args: { path: "y.txt" } },
          ],
          usage: { inputTokens: 5, outputTokens: 6, totalTokens: 11 },
          id: "chatcmpl_2",
        },
      },
    ]);
  });

  it("rejects streamed tool-call arguments that never become JSON", async () => {
    server.reply({
      sse: [
        chatChunk({
          tool_calls: [
            {
              index: 0,
              id: "call_z",
              type: "function",
              function: { name: "read_file", arguments: "{path: z" },
            },
          ],
        }),
        chatDone,
      ],
    });
    await expect(collect(model({ api: "chat" }).stream([message.user("z")]))).rejects.toThrow(
      ModelError,
    );
  });
});

describe("OpenAI errors", () => {
  it.each([
    [401, "Incorrect API key provided: sk-test.", /OPENAI_API_KEY/],
    [429, "Rate limit reached for gpt-test.", /rate limiting/],
    [500, "The server had an error while processing your request.", /server error/],
  ])(
    "turns HTTP %i into a ModelError with status and the provider's message",
    async (status, text, hint) => {
      server.reply({
        status,
        json: { error: { message: text, type: "api_error", param: null, code: null } },
      });
      const error = await model()
        .invoke([message.user("hi")])
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ModelError);
      const modelError = error as ModelError;
      expect(modelError.status).toBe(status);
      expect(modelError.provider).toBe("openai");
      expect(modelError.model).toBe("gpt-test");
      expect(modelError.providerMessage).toBe(text);
      expect(modelError.message).toContain(text);
      expect(modelError.message).toMatch(hint);
    },
  );

  it("reports a stream that fails before it starts as a ModelError too", async () => {
    server.reply({ status: 429, json: { error: { message: "Slow down." } } });
    const error = await collect(model().stream([message.user("hi")])).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).status).toBe(429);
  });

  it("raises AbortError, not ModelError, when the caller aborts", async () => {
    const controller = new AbortController();
    controller.abort(new Error("user left"));
    const error = await model()
      .invoke([message.user("hi")], { signal: controller.signal })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AbortError);
  });
});
