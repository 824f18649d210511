/**
 * A chat model called with `model.invoke(...)` inside any node streams its tokens into the
 * graph's `messages` stream mode, as LangGraph.js users expect; under `invoke` it is one
 * plain call.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { messagesGraph } from "../../src/agent/index.js";
import { START, type StreamPart } from "../../src/index.js";
import {
  AnthropicChatModel,
  FakeChatModel,
  message,
  OpenAIChatModel,
  withStructuredOutput,
} from "../../src/models/index.js";
import { anthropicEvents } from "./anthropic-wire.js";
import {
  chatChunk,
  chatCompletionObject,
  chatDone,
  responseEvents,
  responseObject,
} from "./openai-wire.js";
import { type ProviderServer, startProviderServer } from "./provider-server.js";

async function collect(gen: AsyncGenerator<StreamPart, unknown>) {
  const parts: StreamPart[] = [];
  let next = await gen.next();
  while (!next.done) {
    parts.push(next.value);
    next = await gen.next();
  }
  return { parts, result: next.value };
}

const messagesOf = (parts: StreamPart[]) =>
  parts.flatMap((p) => (p.mode === "messages" ? [{ data: p.data, metadata: p.metadata }] : []));

describe("model.invoke inside a node, while the graph is streamed", () => {
  it("emits the reply's text pieces with the node, the step and the id the stored reply has", async () => {
    const model = new FakeChatModel({ responses: ["Hello there friend"] });
    const graph = messagesGraph({ name: "chat" })
      .addNode("answer", async (s) => ({ messages: [await model.invoke(s.messages)] }))
      .addEdge(START, "answer")
      .compile();
    const { parts, result } = await collect(
      graph.stream({ messages: [message.user("hi")] }, { streamMode: ["messages"] }),
    );
    const reply = (result as { state: { messages: Array<{ id?: string }> } }).state.messages.at(
      -1,
    )!;
    expect(reply.id).toMatch(/^answer:/);
    expect(messagesOf(parts)).toEqual(
      ["Hello ", "there ", "friend"].map((text) => ({
        data: { type: "text", messageId: reply.id, text },
        metadata: { node: "answer", step: 1 },
      })),
    );
  });

  it("gives each of several calls in one node its own message id", async () => {
    const model = new FakeChatModel({ responses: ["first", "second"] });
    const graph = messagesGraph({ name: "twice" })
      .addNode("answer", async (s) => ({
        messages: [await model.invoke(s.messages), await model.invoke(s.messages)],
      }))
      .addEdge(START, "answer")
      .compile();
    const { parts } = await collect(
      graph.stream({ messages: [message.user("hi")] }, { streamMode: "messages" }),
    );
    const ids = messagesOf(parts).map((p) => p.data.messageId);
    expect(ids).toHaveLength(2);
    expect(ids[1]).toBe(`${ids[0]}:2`);
  });

  it("streams a tool call's pieces and keeps a provider's id", async () => {
    const model = new FakeChatModel({
      responses: [{ id: "msg_7", toolCalls: [{ id: "c1", name: "look", args: { q: "x" } }] }],
    });
    const graph = messagesGraph({ name: "tools" })
      .addNode("answer", async (s) => ({ messages: [await model.invoke(s.messages)] }))
      .addEdge(START, "answer")
      .compile();
    const { parts, result } = await collect(
      graph.stream({ messages: [message.user("hi")] }, { streamMode: "messages" }),
    );
    expect(messagesOf(parts).map((p) => p.data)).toEqual([
      {
        type: "tool-call",
        messageId: "msg_7",
        index: 0,
        id: "c1",
        name: "look",
        args: '{"q":"x"}',
      },
    ]);
    expect((result as { state: { messages: unknown[] } }).state.messages.at(-1)).toMatchObject({
      id: "msg_7",
    });
  });

  it("under invoke it is one plain call and the reply is left as the model gave it", async () => {
    const model = new FakeChatModel({ responses: ["plain"] });
    const graph = messagesGraph({ name: "plain" })
      .addNode("answer", async (s) => ({ messages: [await model.invoke(s.messages)] }))
      .addEdge(START, "answer")
      .compile();
    const r = await graph.invoke({ messages: [message.user("hi")] });
    expect(r.state.messages.at(-1)).toEqual(message.assistant("plain"));
  });

  it("streams nothing for a model called outside a graph", async () => {
    const model = new FakeChatModel({ responses: ["alone"] });
    expect(await model.invoke([message.user("hi")])).toEqual(message.assistant("alone"));
  });
});

describe("model.invoke inside a node with the real openai SDK", () => {
  let server: ProviderServer;
  beforeAll(async () => {
    server = await startProviderServer();
  });
  afterAll(() => server.close());
  beforeEach(() => {
    server.requests.length = 0;
  });
  const openai = (api: "responses" | "chat") =>
    new OpenAIChatModel({
      model: "gpt-test",
      apiKey: "sk-test",
      baseURL: `${server.url}/v1`,
      maxRetries: 0,
      api,
    });
  const graphOf = (model: OpenAIChatModel) =>
    messagesGraph({ name: "openai" })
      .addNode("answer", async (s) => ({ messages: [await model.invoke(s.messages)] }))
      .addEdge(START, "answer")
      .compile();

  it("asks the Responses API for a stream and yields its deltas under the response's id", async () => {
    server.reply({ sse: responseEvents(responseObject({ text: "Hi there" }), ["Hi ", "there"]) });
    const { parts, result } = await collect(
      graphOf(openai("responses")).stream(
        { messages: [message.user("hi")] },
        { streamMode: "messages" },
      ),
    );
    expect(server.requests[0]!.body.stream).toBe(true);
    const stored = (result as { state: { messages: Array<{ id?: string }> } }).state.messages.at(
      -1,
    )!;
    expect(messagesOf(parts)).toEqual(
      ["Hi ", "there"].map((text) => ({
        data: { type: "text", messageId: stored.id, text },
        metadata: { node: "answer", step: 1 },
      })),
    );
  });

  it("streams Chat Completions deltas too; under invoke the same node sends a plain request", async () => {
    server.reply({
      sse: [
        chatChunk({ role: "assistant", content: "Bon" }),
        chatChunk({ content: "jour" }),
        chatChunk({}, { choices: [{ index: 0, delta: {}, finish_reason: "stop" }] }),
        chatDone,
      ],
    });
    const graph = graphOf(openai("chat"));
    const { parts } = await collect(
      graph.stream({ messages: [message.user("hi")] }, { streamMode: "messages" }),
    );
    expect(
      messagesOf(parts).map((p) => [p.data.messageId, (p.data as { text: string }).text]),
    ).toEqual([
      ["chatcmpl_2", "Bon"],
      ["chatcmpl_2", "jour"],
    ]);
    expect(server.requests[0]!.body.stream).toBe(true);
    server.reply({ json: chatCompletionObject({ content: "Salut" }) });
    const r = await graph.invoke({ messages: [message.user("hi")] });
    expect(server.requests[1]!.body.stream).toBeUndefined();
    expect(r.state.messages.at(-1)).toMatchObject({ content: "Salut" });
  });

  it("streams the JSON of a structured answer asked for inside a node", async () => {
    const model = openai("responses");
    const City = z.object({ city: z.string() });
    server.reply({
      sse: responseEvents(responseObject({ text: '{"city":"Lyon"}' }), ['{"city":', '"Lyon"}']),
    });
    const graph = messagesGraph<{ city?: string }>({ name: "extract" })
      .addNode("extract", async (s) => withStructuredOutput(model, City).invoke(s.messages))
      .addEdge(START, "extract")
      .compile();
    const { parts, result } = await collect(
      graph.stream({ messages: [message.user("I live in Lyon")] }, { streamMode: "messages" }),
    );
    expect(
      messagesOf(parts)
        .map((p) => (p.data as { text: string }).text)
        .join(""),
    ).toBe('{"city":"Lyon"}');
    expect((result as { state: { city?: string } }).state.city).toBe("Lyon");
  });
});

describe("model.invoke inside a node with the real Anthropic SDK", () => {
  let server: ProviderServer;
  beforeAll(async () => {
    server = await startProviderServer();
  });
  afterAll(() => server.close());

  it("streams text and tool_use input as pieces of the message with Anthropic's id", async () => {
    server.reply({
      sse: anthropicEvents(
        [
          { type: "text", pieces: ["Let me ", "look."] },
          { type: "tool_use", id: "toolu_1", name: "look", json: '{"q":"x"}' },
        ],
        { id: "msg_a1" },
      ),
    });
    const model = new AnthropicChatModel({
      model: "claude-test",
      apiKey: "sk-ant-test",
      baseURL: server.url,
      maxRetries: 0,
    });
    const graph = messagesGraph({ name: "anthropic" })
      .addNode("answer", async (s) => ({ messages: [await model.invoke(s.messages)] }))
      .addEdge(START, "answer")
      .compile();
    const { parts, result } = await collect(
      graph.stream({ messages: [message.user("look x up")] }, { streamMode: "messages" }),
    );
    const data = messagesOf(parts).map((p) => p.data);
    expect(new Set(data.map((d) => d.messageId))).toEqual(new Set(["msg_a1"]));
    expect(data.flatMap((d) => (d.type === "text" ? [d.text] : []))).toEqual(["Let me ", "look."]);
    expect(data.flatMap((d) => (d.type === "tool-call" ? [d.args] : [])).join("")).toBe(
      '{"q":"x"}',
    );
    expect((result as { state: { messages: unknown[] } }).state.messages.at(-1)).toMatchObject({
      id: "msg_a1",
      toolCalls: [{ id: "toolu_1", name: "look", args: { q: "x" } }],
    });
  });
});
