import { createRequire } from "node:module";
import type OpenAI from "openai";
import type { z } from "zod";
import { resolveApiKey } from "./api-key.js";
import type { ChatModel, ChatModelCallOptions, ChatModelChunk } from "./chat-model.js";
import type { AssistantMessage, Message } from "./message.js";
import {
  chatCompletionChunks,
  chatCompletionRequest,
  parseChatCompletion,
} from "./openai-chat-completions.js";
import { parseResponse, responseChunks, responsesRequest } from "./openai-responses.js";
import { type ProviderIdentity, toModelError } from "./provider-error.js";
import type { ProviderOptions } from "./provider-options.js";
import { streamedInRun } from "./streamed-call.js";
import {
  type StructuredModel,
  type StructuredOutputOptions,
  withStructuredOutput,
} from "./structured-output.js";

// The SDK loads on first use, so importing `stateweaver/models` (or a fake-model test)
// does not pay for every provider's client.
const require = createRequire(import.meta.url);
const loadOpenAI = (): typeof OpenAI => (require("openai") as { default: typeof OpenAI }).default;

/**
 * The `openai` client a chat model or embeddings of ours uses: `options.client` when given,
 * else one made from the connection options (the key from `OPENAI_API_KEY` when not set).
 * @internal
 */
export function openAIClient(
  options: Pick<ProviderOptions, "apiKey" | "baseURL" | "timeout" | "maxRetries"> & {
    client?: OpenAI;
  },
): OpenAI {
  return (
    options.client ??
    new (loadOpenAI())({
      apiKey: resolveApiKey("openai", options.apiKey, "OPENAI_API_KEY"),
      baseURL: options.baseURL,
      timeout: options.timeout,
      maxRetries: options.maxRetries,
    })
  );
}

/**
 * Options for `OpenAIChatModel`. `api` picks the endpoint: the Responses API (default)
 * or Chat Completions, which most OpenAI-compatible servers implement.
 *
 * @example
 * const options: OpenAIChatModelOptions = { model: "qwen3", baseURL: "http://localhost:8000/v1", api: "chat" };
 */
export interface OpenAIChatModelOptions extends ProviderOptions {
  model: string;
  api?: "responses" | "chat";
  /** A client you configured yourself (proxy, custom fetch…); connection options are then ignored. */
  client?: OpenAI;
}

/**
 * A `ChatModel` served through the official `openai` SDK. Usually created with
 * `initChatModel("openai:<model>")`.
 *
 * @example
 * const model = new OpenAIChatModel({ model: "gpt-5.4", temperature: 0 });
 * const reply = await model.invoke([message.user("Say hi")]);
 */
export class OpenAIChatModel implements ChatModel {
  readonly provider = "openai";
  readonly model: string;
  readonly api: "responses" | "chat";
  readonly client: OpenAI;
  readonly #options: OpenAIChatModelOptions;
  readonly #identity: ProviderIdentity;

  constructor(options: OpenAIChatModelOptions) {
    this.model = options.model;
    this.api = options.api ?? "responses";
    this.#options = options;
    this.#identity = { provider: "openai", model: options.model, apiKeyEnv: "OPENAI_API_KEY" };
    this.client = openAIClient(options);
  }

  /**
   * This model, answering as `schema` describes (see `withStructuredOutput`).
   *
   * @example
   * const { city } = await model.withStructuredOutput(z.object({ city: z.string() })).invoke(messages);
   */
  withStructuredOutput<T extends z.ZodObject>(
    schema: T,
    options?: StructuredOutputOptions,
  ): StructuredModel<z.output<T>> {
    return withStructuredOutput(this, schema, options);
  }

  /** One reply; inside a node of a graph being streamed, it streams (see `streamedInRun`). */
  async invoke(
    messages: readonly Message[],
    options: ChatModelCallOptions = {},
  ): Promise<AssistantMessage> {
    const streamed = streamedInRun(this, messages, options);
    if (streamed) return streamed;
    const { signal } = options;
    const tools = options.tools ?? [];
    try {
      if (this.api === "chat") {
        const body = chatCompletionRequest(
          this.model,
          this.#options,
          messages,
          tools,
          options.responseFormat,
        );
        const completion = await this.client.chat.completions.create(body, { signal });
        return parseChatCompletion(this.#identity, completion);
      }
      const body = responsesRequest(
        this.model,
        this.#options,
        messages,
        tools,
        options.responseFormat,
      );
      const response = await this.client.responses.create(body, { signal });
      return parseResponse(this.#identity, response);
    } catch (error) {
      throw toModelError(this.#identity, error, signal);
    }
  }

  async *stream(
    messages: readonly Message[],
    options: ChatModelCallOptions = {},
  ): AsyncGenerator<ChatModelChunk> {
    const { signal } = options;
    const tools = options.tools ?? [];
    try {
      if (this.api === "chat") {
        const body = chatCompletionRequest(
          this.model,
          this.#options,
          messages,
          tools,
          options.responseFormat,
        );
        const chunks = await this.client.chat.completions.create(
          // Without include_usage the stream carries no token counts.
          { ...body, stream: true, stream_options: { include_usage: true } },
          { signal },
        );
        yield* chatCompletionChunks(this.#identity, chunks, options.detailedChunks);
        return;
      }
      const body = responsesRequest(
        this.model,
        this.#options,
        messages,
        tools,
        options.responseFormat,
      );
      const events = await this.client.responses.create({ ...body, stream: true }, { signal });
      yield* responseChunks(this.#identity, events, options.detailedChunks);
    } catch (error) {
      throw toModelError(this.#identity, error, signal);
    }
  }
}
