import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createAgent } from "../../src/agent/index.js";
import { ModelConfigError, StructuredOutputError } from "../../src/errors/index.js";
import {
  AnthropicChatModel,
  FakeChatModel,
  message,
  OpenAIChatModel,
  tool,
  withStructuredOutput,
} from "../../src/models/index.js";
import { anthropicMessage } from "./anthropic-wire.js";
import { chatCompletionObject, responseObject } from "./openai-wire.js";
import { type ProviderServer, startProviderServer } from "./provider-server.js";

const City = z.object({
  city: z.string().describe("The city's name"),
  population: z.number().int(),
});

let server: ProviderServer;
beforeAll(async () => {
  server = await startProviderServer();
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
});

const openai = (api: "responses" | "chat" = "responses") =>
  new OpenAIChatModel({
    model: "gpt-test",
    apiKey: "sk-test",
    baseURL: `${server.url}/v1`,
    api,
    maxRetries: 0,
  });
const anthropic = () =>
  new AnthropicChatModel({
    model: "claude-test",
    apiKey: "sk-ant-test",
    baseURL: server.url,
    maxRetries: 0,
  });
const ask = [message.user("Tell me about Lyon.")];

describe("withStructuredOutput", () => {
  it("asks OpenAI's Responses API for its json_schema format and returns the parsed answer", async () => {
    server.reply({ json: responseObject({ text: '{"city":"Lyon","population":522000}' }) });
    const answer = await openai().withStructuredOutput(City, { name: "City" }).invoke(ask);
    expect(answer).toEqual({ city: "Lyon", population: 522000 });
    expect(server.requests[0]!.body.text).toEqual({
      format: {
        type: "json_schema",
        name: "City",
        strict: false,
        schema: expect.objectContaining({
          type: "object",
          properties: {
            city: { type: "string", description: "The city's name" },
            population: expect.objectContaining({ type: "integer" }),
          },
          required: ["city", "population"],
        }),
      },
    });
  });

  it("asks Chat Completions for response_format json_schema", async () => {
    server.reply({ json: chatCompletionObject({ content: '{"city":"Lyon","population":1}' }) });
    const answer = await openai("chat").withStructuredOutput(City).invoke(ask);
    expect(answer).toEqual({ city: "Lyon", population: 1 });
    expect(server.requests[0]!.body.response_format).toMatchObject({
      type: "json_schema",
      json_schema: { name: "response", schema: { type: "object" } },
    });
  });

  it("makes Anthropic call a forced tool whose input is the answer", async () => {
    server.reply({
      json: anthropicMessage({
        content: [
          { type: "tool_use", id: "toolu_1", name: "City", input: { city: "Lyon", population: 2 } },
        ],
      }),
    });
    const answer = await anthropic().withStructuredOutput(City, { name: "City" }).invoke(ask);
    expect(answer).toEqual({ city: "Lyon", population: 2 });
    const body = server.requests[0]!.body;
    expect(body.tool_choice).toEqual({ type: "tool", name: "City" });
    expect(body.tools).toEqual([
      expect.objectContaining({
        name: "City",
        input_schema: expect.objectContaining({ type: "object" }),
      }),
    ]);
  });

  it("falls back to a forced tool call for servers without json_schema (method: tool)", async () => {
    server.reply({
      json: chatCompletionObject({
        toolCalls: [{ id: "call_1", name: "City", arguments: '{"city":"Lyon","population":3}' }],
      }),
    });
    const answer = await openai("chat")
      .withStructuredOutput(City, { name: "City", method: "tool" })
      .invoke(ask);
    expect(answer).toEqual({ city: "Lyon", population: 3 });
    const body = server.requests[0]!.body;
    expect(body.response_format).toBeUndefined();
    expect(body.tool_choice).toEqual({ type: "function", function: { name: "City" } });
    expect(body.tools[0].function.name).toBe("City");
  });

  it("sends an answer that fails the schema back with what was wrong, and returns the corrected one", async () => {
    server.reply(
      { json: responseObject({ text: '{"city":"Lyon","population":"big"}' }) },
      { json: responseObject({ text: '{"city":"Lyon","population":522000}' }) },
    );
    const answer = await openai().withStructuredOutput(City).invoke(ask);
    expect(answer).toEqual({ city: "Lyon", population: 522000 });
    const retry = server.requests[1]!.body.input as Array<{ role?: string; content?: string }>;
    expect(retry.at(-2)).toMatchObject({
      role: "assistant",
      content: '{"city":"Lyon","population":"big"}',
    });
    expect(retry.at(-1)!.role).toBe("user");
    expect(retry.at(-1)!.content).toMatch(/population: .*number/);
  });

  it("answers a wrong forced-tool answer with an error tool result before asking again", async () => {
    server.reply(
      {
        json: anthropicMessage({
          content: [{ type: "tool_use", id: "toolu_1", name: "City", input: { city: "Lyon" } }],
        }),
      },
      {
        json: anthropicMessage({
          content: [
            {
              type: "tool_use",
              id: "toolu_2",
              name: "City",
              input: { city: "Lyon", population: 4 },
            },
          ],
        }),
      },
    );
    const answer = await anthropic().withStructuredOutput(City, { name: "City" }).invoke(ask);
    expect(answer).toEqual({ city: "Lyon", population: 4 });
    const turns = server.requests[1]!.body.messages;
    expect(turns.at(-1)).toMatchObject({
      role: "user",
      content: [{ type: "tool_result", tool_use_id: "toolu_1", is_error: true }],
    });
  });

  it("gives up after maxRetries corrections with a StructuredOutputError that lists the issues", async () => {
    const model = new FakeChatModel({ responses: ["not json", '{"city": 5}'] });
    const error = await withStructuredOutput(model, City, { maxRetries: 1 })
      .invoke(ask)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StructuredOutputError);
    expect((error as StructuredOutputError).attempts).toBe(2);
    expect((error as StructuredOutputError).issues.join("\n")).toMatch(/city/);
    expect(model.calls).toHaveLength(2);
  });

  it("refuses a schema that is not an object", () => {
    expect(() =>
      withStructuredOutput(new FakeChatModel({ responses: [] }), z.string() as never),
    ).toThrow(ModelConfigError);
  });
});

describe("an agent's responseFormat", () => {
  it("puts the validated answer in state.structuredResponse once the model is done", async () => {
    const population = tool({
      name: "population",
      description: "Look up a city's population.",
      schema: z.object({ city: z.string() }),
      run: () => "522000",
    });
    server.reply(
      {
        json: responseObject({
          functionCalls: [{ callId: "call_p", name: "population", arguments: '{"city":"Lyon"}' }],
        }),
      },
      { json: responseObject({ text: "Lyon has 522,000 people." }) },
      { json: responseObject({ text: '{"city":"Lyon","population":522000}' }) },
    );
    const agent = createAgent({
      model: openai(),
      tools: [population],
      systemPrompt: "Be exact.",
      responseFormat: { schema: City, name: "City" },
    });
    const r = await agent.invoke({ messages: [message.user("How many people live in Lyon?")] });
    expect(r.state.structuredResponse).toEqual({ city: "Lyon", population: 522000 });
    const last = server.requests[2]!.body;
    expect(last.text.format.name).toBe("City");
    expect(last.input[0]).toEqual({ role: "system", content: "Be exact." });
    expect(last.tools).toBeUndefined();
  });
});
