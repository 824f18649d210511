import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  createAgent,
  invokeModel,
  messagesGraph,
  toolNode,
  toolsCondition,
} from "../../src/agent/index.js";
import { MemoryCheckpointer } from "../../src/checkpoint/index.js";
import { END, type MessageChunk, START, type StreamPart } from "../../src/index.js";
import {
  AnthropicChatModel,
  FakeChatModel,
  message,
  OpenAIChatModel,
  tool,
} from "../../src/models/index.js";
import { anthropicEvents } from "../models/anthropic-wire.js";
import { chatChunk, chatDone, responseEvents, responseObject } from "../models/openai-wire.js";
import { type ProviderServer, startProviderServer } from "../models/provider-server.js";

const lookup = tool({
  name: "lookup",
  description: "Look a word up.",
  schema: z.object({ word: z.string() }),
  run: ({ word }) => {
    if (word === "xyzzy") throw new Error("no such word");
    return `${word}: a greeting`;
  },
});

let server: ProviderServer;
beforeAll(async () => {
  server = await startProviderServer();
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
});

async function parts(gen: AsyncGenerator<StreamPart, unknown>) {
  const all: StreamPart[] = [];
  for await (const part of gen) all.push(part);
  return all;
}

const chunksOf = (all: StreamPart[]) =>
  all.filter((p) => p.mode === "messages").map((p) => p.data as MessageChunk);

describe("an agent's messages stream", () => {
  it("gives text and tool-call pieces the id their message has in the state (OpenAI Chat Completions)", async () => {
    server.reply(
      {
        sse: [
          chatChunk({ role: "assistant", content: "Let me " }),
          chatChunk({ content: "check." }),
          chatChunk({
            tool_calls: [
              {
                index: 0,
                id: "call_1",
                type: "function",
                function: { name: "lookup", arguments: '{"wo' },
              },
            ],
          }),
          chatChunk({ tool_calls: [{ index: 0, function: { arguments: 'rd":"hello"}' } }] }),
          chatDone,
        ],
      },
      { sse: [chatChunk({ content: "It is a greeting." }), chatDone] },
    );
    const model = new OpenAIChatModel({
      model: "gpt-test",
      apiKey: "sk-test",
      baseURL: `${server.url}/v1`,
      api: "chat",
      maxRetries: 0,
    });
    const agent = createAgent({ model, tools: [lookup] });
    const gen = agent.stream(
      { messages: [message.user("what is hello?")] },
      { streamMode: ["messages", "values"] },
    );
    const all = await parts(gen);
    const chunks = chunksOf(all);
    expect(chunks.slice(0, 4)).toEqual([
      { type: "text", messageId: "chatcmpl_2", text: "Let me " },
      { type: "text", messageId: "chatcmpl_2", text: "check." },
      {
        type: "tool-call",
        messageId: "chatcmpl_2",
        index: 0,
        id: "call_1",
        name: "lookup",
        args: '{"wo',
      },
      { type: "tool-call", messageId: "chatcmpl_2", index: 0, args: 'rd":"hello"}' },
    ]);
    const state = all.filter((p) => p.mode === "values").at(-1)!.data as {
      messages: Array<{ id?: string }>;
    };
    expect(state.messages[1]!.id).toBe("chatcmpl_2");
    expect(all.find((p) => p.mode === "messages")!).toMatchObject({
      metadata: { node: "model", step: 1 },
    });
  });

  it("streams Anthropic tool_use input as tool-call pieces", async () => {
    server.reply(
      {
        sse: anthropicEvents(
          [
            { type: "text", pieces: ["Looking."] },
            { type: "tool_use", id: "toolu_1", name: "lookup", json: '{"word":"hi"}' },
          ],
          { id: "msg_a" },
        ),
      },
      { sse: anthropicEvents([{ type: "text", pieces: ["Done."] }], { id: "msg_b" }) },
    );
    const model = new AnthropicChatModel({
      model: "claude-test",
      apiKey: "sk-ant-test",
      baseURL: server.url,
      maxRetries: 0,
    });
    const all = await parts(
      createAgent({ model, tools: [lookup] }).stream(
        { messages: [message.user("hi?")] },
        { streamMode: "messages" },
      ),
    );
    const calls = chunksOf(all).filter((c) => c.type === "tool-call");
    expect(calls[0]).toEqual({
      type: "tool-call",
      messageId: "msg_a",
      index: 0,
      id: "toolu_1",
      name: "lookup",
      args: "",
    });
    expect(calls.map((c) => c.args).join("")).toBe('{"word":"hi"}');
    expect(chunksOf(all).at(-1)).toEqual({ type: "text", messageId: "msg_b", text: "Done." });
  });

  it("streams OpenAI Responses function-call arguments as tool-call pieces", async () => {
    const first = responseObject({
      id: "resp_7",
      functionCalls: [{ callId: "call_r", name: "lookup", arguments: '{"word":"yo"}' }],
    });
    const events = responseEvents(first, []);
    // The item is announced before its arguments, as real streams do.
    events.splice(1, 0, {
      event: "response.output_item.added",
      data: {
        type: "response.output_item.added",
        sequence_number: 99,
        output_index: 0,
        item: {
          type: "function_call",
          id: "fc_1",
          call_id: "call_r",
          name: "lookup",
          arguments: "",
          status: "in_progress",
        },
      },
    });
    server.reply(
      { sse: events },
      { sse: responseEvents(responseObject({ id: "resp_8", text: "ok" }), ["ok"]) },
    );
    const model = new OpenAIChatModel({
      model: "gpt-test",
      apiKey: "sk-test",
      baseURL: `${server.url}/v1`,
      maxRetries: 0,
    });
    const all = await parts(
      createAgent({ model, tools: [lookup] }).stream(
        { messages: [message.user("yo?")] },
        { streamMode: "messages" },
      ),
    );
    const calls = chunksOf(all).filter((c) => c.type === "tool-call");
    expect(calls[0]).toMatchObject({ messageId: "resp_7", index: 0, id: "call_r", name: "lookup" });
    expect(calls.map((c) => c.args).join("")).toBe('{"word":"yo"}');
    expect(chunksOf(all).at(-1)).toEqual({ type: "text", messageId: "resp_8", text: "ok" });
  });

  it("without a provider id, chunks carry the id the agent gives the message", async () => {
    const model = new FakeChatModel({ responses: ["Hello there"] });
    const all = await parts(
      createAgent({ model }).stream(
        { messages: [message.user("hi")] },
        { streamMode: ["messages", "values"] },
      ),
    );
    const ids = new Set(chunksOf(all).map((c) => c.messageId));
    const state = all.filter((p) => p.mode === "values").at(-1)!.data as {
      messages: Array<{ id?: string }>;
    };
    expect([...ids]).toEqual([state.messages[1]!.id]);
  });
});

describe("an agent's tool events", () => {
  it("reports each tool call's start, then its end or its error", async () => {
    const model = new FakeChatModel({
      responses: [
        {
          toolCalls: [
            { id: "c1", name: "lookup", args: { word: "hello" } },
            { id: "c2", name: "lookup", args: { word: "xyzzy" } },
          ],
        },
        "Done.",
      ],
    });
    const all = await parts(
      createAgent({ model, tools: [lookup] }).stream(
        { messages: [message.user("look up two words")] },
        { streamMode: "tools" },
      ),
    );
    expect(all.map((p) => p.data)).toEqual([
      {
        event: "start",
        node: "tools",
        toolCall: { id: "c1", name: "lookup", args: { word: "hello" } },
      },
      {
        event: "end",
        node: "tools",
        toolCall: { id: "c1", name: "lookup", args: { word: "hello" } },
        content: "hello: a greeting",
      },
      {
        event: "start",
        node: "tools",
        toolCall: { id: "c2", name: "lookup", args: { word: "xyzzy" } },
      },
      {
        event: "error",
        node: "tools",
        toolCall: { id: "c2", name: "lookup", args: { word: "xyzzy" } },
        error: 'Error: tool "lookup" failed: no such word',
      },
    ]);
  });

  it("streamEvents on an agent returns the review interrupt with the events before it", async () => {
    const model = new FakeChatModel({
      responses: [
        {
          content: "Checking first.",
          toolCalls: [{ id: "c1", name: "lookup", args: { word: "a" } }],
        },
      ],
    });
    const agent = createAgent({
      model,
      tools: [lookup],
      interruptOn: { lookup: true },
      checkpointer: new MemoryCheckpointer(),
    });
    const config = { configurable: { thread_id: "agent-stream-events" } };
    const r = await agent.streamEvents({ messages: [message.user("a?")] }, { config });
    expect(r.status).toBe("interrupted");
    if (r.status !== "interrupted") return;
    expect(r.interrupt.value).toMatchObject({ actionRequests: [{ name: "lookup" }] });
    const text = r.events
      .filter((e) => e.mode === "messages")
      .map((e) => (e.data as MessageChunk & { type: "text" }).text)
      .join("");
    expect(text).toBe("Checking first.");
    expect(r.events.some((e) => e.mode === "tools")).toBe(false);
  });
});

describe("invokeModel in a hand-built graph", () => {
  const build = (model: FakeChatModel) =>
    messagesGraph({ name: "chat" })
      .addNode("model", async (s, runtime) => ({
        messages: [
          await invokeModel(model, s.messages, { tools: [lookup], signal: runtime.signal }),
        ],
      }))
      .addNode("tools", toolNode([lookup]))
      .addEdge(START, "model")
      .addConditionalEdges("model", toolsCondition, ["tools", END])
      .addEdge("tools", "model")
      .compile();

  it("streams the model's pieces as messages parts and the tool calls as tools parts", async () => {
    const model = new FakeChatModel({
      responses: [
        { toolCalls: [{ id: "c1", name: "lookup", args: { word: "hi" } }] },
        "hi is a greeting",
      ],
    });
    const all = await parts(
      build(model).stream(
        { messages: [message.user("hi?")] },
        { streamMode: ["messages", "tools", "values"] },
      ),
    );
    const chunks = chunksOf(all);
    expect(chunks[0]).toMatchObject({
      type: "tool-call",
      id: "c1",
      name: "lookup",
      args: '{"word":"hi"}',
    });
    expect(
      chunks
        .filter((c) => c.type === "text")
        .map((c) => (c as { text: string }).text)
        .join(""),
    ).toBe("hi is a greeting");
    expect(
      all.filter((p) => p.mode === "tools").map((p) => (p.data as { event: string }).event),
    ).toEqual(["start", "end"]);
    const state = all.filter((p) => p.mode === "values").at(-1)!.data as {
      messages: Array<{ id?: string }>;
    };
    expect(state.messages.at(-1)!.id).toBe(chunks.at(-1)!.messageId);
  });

  it("under invoke it is one plain call, and the reply still gets an id", async () => {
    const model = new FakeChatModel({ responses: ["hello"] });
    const r = await build(model).invoke({ messages: [message.user("hi")] });
    expect(r.state.messages.at(-1)).toMatchObject({
      role: "assistant",
      content: "hello",
      id: "model:1:model:0",
    });
  });
});
