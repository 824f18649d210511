import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { ModelConfigError } from "../../src/errors/index.js";
import {
  AnthropicChatModel,
  initChatModel,
  message,
  OpenAIChatModel,
} from "../../src/models/index.js";
import { anthropicMessage } from "./anthropic-wire.js";
import { responseObject } from "./openai-wire.js";
import { type ProviderServer, startProviderServer } from "./provider-server.js";

let server: ProviderServer;
beforeAll(async () => {
  server = await startProviderServer();
});
afterAll(() => server.close());
afterEach(() => {
  vi.unstubAllEnvs();
});

describe("initChatModel", () => {
  it("creates an OpenAI model on the Responses API from 'openai:<model>'", () => {
    const model = initChatModel("openai:gpt-5.4", { apiKey: "sk-test" });
    expect(model).toBeInstanceOf(OpenAIChatModel);
    expect(model.provider).toBe("openai");
    expect(model.model).toBe("gpt-5.4");
    expect(model.api).toBe("responses");
  });

  it("creates an Anthropic model from 'anthropic:<model>'", () => {
    const model = initChatModel("anthropic:claude-sonnet-4-5", { apiKey: "sk-ant" });
    expect(model).toBeInstanceOf(AnthropicChatModel);
    expect(model.model).toBe("claude-sonnet-4-5");
  });

  it("splits at the first colon, so model names may contain colons", () => {
    const model = initChatModel("openai:llama3.1:8b", { apiKey: "none", api: "chat" });
    expect(model.model).toBe("llama3.1:8b");
  });

  it("passes connection options to the SDK client", () => {
    const model = initChatModel("openai:gpt-test", {
      apiKey: "sk-test",
      baseURL: "http://127.0.0.1:1/v1",
      timeout: 1234,
      maxRetries: 7,
    });
    expect(model.client.apiKey).toBe("sk-test");
    expect(model.client.baseURL).toBe("http://127.0.0.1:1/v1");
    expect(model.client.timeout).toBe(1234);
    expect(model.client.maxRetries).toBe(7);
  });

  it("reads the API key from the provider's environment variable", async () => {
    vi.stubEnv("OPENAI_API_KEY", "sk-from-env");
    vi.stubEnv("ANTHROPIC_API_KEY", "sk-ant-from-env");
    server.reply({ json: responseObject({ text: "hi" }) });
    server.reply({ json: anthropicMessage({ content: [{ type: "text", text: "hi" }] }) });

    await initChatModel("openai:gpt-test", { baseURL: `${server.url}/v1` }).invoke([
      message.user("a"),
    ]);
    await initChatModel("anthropic:claude-test", { baseURL: server.url }).invoke([
      message.user("b"),
    ]);
    expect(server.requests.at(-2)!.headers.authorization).toBe("Bearer sk-from-env");
    // @anthropic-ai/sdk 1.x sends the key as a bearer token too.
    expect(server.requests.at(-1)!.headers.authorization).toBe("Bearer sk-ant-from-env");
  });

  it.each([
    ["openai:gpt-test", "OPENAI_API_KEY"],
    ["anthropic:claude-test", "ANTHROPIC_API_KEY"],
  ])("without an API key, %s fails at creation naming %s", (id, envVar) => {
    vi.stubEnv(envVar, "");
    expect(() => initChatModel(id)).toThrow(ModelConfigError);
    expect(() => initChatModel(id)).toThrow(
      new RegExp(`set the ${envVar} environment variable, or pass \\{ apiKey \\}`),
    );
  });

  it("uses a client you pass as it is, and needs no API key then", async () => {
    vi.stubEnv("OPENAI_API_KEY", "");
    vi.stubEnv("ANTHROPIC_API_KEY", "");
    const openai = new OpenAI({ apiKey: "sk-own", baseURL: `${server.url}/v1`, maxRetries: 0 });
    const anthropic = new Anthropic({ apiKey: "sk-ant-own", baseURL: server.url, maxRetries: 0 });
    const gpt = initChatModel("openai:gpt-test", { client: openai });
    const claude = initChatModel("anthropic:claude-test", { client: anthropic });
    expect(gpt.client).toBe(openai);
    expect(claude.client).toBe(anthropic);

    server.reply({ json: responseObject({ text: "own client" }) });
    expect((await gpt.invoke([message.user("x")])).content).toBe("own client");
    expect(server.requests.at(-1)!.headers.authorization).toBe("Bearer sk-own");
  });

  it("names the known providers when the prefix is unknown", () => {
    expect(() => initChatModel("mistral:large", { apiKey: "k" })).toThrow(ModelConfigError);
    expect(() => initChatModel("mistral:large", { apiKey: "k" })).toThrow(
      /Unknown model provider "mistral".*Known providers: "openai", "anthropic"/,
    );
  });

  it("shows the expected form when the provider prefix is missing", () => {
    expect(() => initChatModel("gpt-5.4")).toThrow(ModelConfigError);
    expect(() => initChatModel("gpt-5.4")).toThrow(
      /no provider prefix.*"<provider>:<model>", e\.g\. "openai:gpt-5\.4"/,
    );
  });

  it("suggests the colon form when provider and model are separated by a slash", () => {
    expect(() => initChatModel("openai/gpt-4o")).toThrow(ModelConfigError);
    expect(() => initChatModel("openai/gpt-4o")).toThrow(/Did you mean "openai:gpt-4o"\?/);
    expect(() => initChatModel("anthropic/claude-sonnet-4-5")).toThrow(
      /Did you mean "anthropic:claude-sonnet-4-5"\?/,
    );
    // A slash after an unknown prefix is no provider: the general hint stays.
    expect(() => initChatModel("meta-llama/Llama-3")).toThrow(/no provider prefix/);
  });

  it("rejects an id with a provider but no model", () => {
    expect(() => initChatModel("openai:", { apiKey: "k" })).toThrow(/names no model/);
  });
});
