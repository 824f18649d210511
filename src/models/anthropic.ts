import { createRequire } from "node:module";
import type Anthropic from "@anthropic-ai/sdk";
import type { z } from "zod";
import { ModelConfigError } from "../errors/index.js";
import { anthropicChunks, anthropicRequest, parseAnthropicMessage } from "./anthropic-messages.js";
import { resolveApiKey } from "./api-key.js";
import type { ChatModel, ChatModelCallOptions, ChatModelChunk } from "./chat-model.js";
import type { AssistantMessage, Message } from "./message.js";
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
const loadAnthropic = (): typeof Anthropic =>
  (require("@anthropic-ai/sdk") as { default: typeof Anthropic }).default;

/**
 * Options for `AnthropicChatModel`. `maxTokens` defaults to 4096 because the Messages API
 * requires a limit on every request. There is no `temperature`: the API version this SDK
 * speaks (2026-10-21) rejects sampling parameters.
 *
 * @example
 * const options: AnthropicChatModelOptions = { model: "claude-sonnet-4-5", maxTokens: 2048 };
 */
export interface AnthropicChatModelOptions extends Omit<ProviderOptions, "temperature"> {
  model: string;
  /** A client you configured yourself; connection options are then ignored. */
  client?: Anthropic;
}

/**
 * A `ChatModel` served through the official `@anthropic-ai/sdk` Messages API. Usually
 * created with `initChatModel("anthropic:<model>")`.
 *
 * @example
 * const model = new AnthropicChatModel({ model: "claude-sonnet-4-5" });
 * const reply = await model.invoke([message.system("Be terse."), message.user("Say hi")]);
 */
export class AnthropicChatModel implements ChatModel {
  readonly provider = "anthropic";
  readonly model: string;
  readonly client: Anthropic;
  readonly #options: AnthropicChatModelOptions;
  readonly #identity: ProviderIdentity;

  constructor(options: AnthropicChatModelOptions) {
    // Typed callers cannot pass it; this catches JavaScript and initChatModel(string) callers.
    if ((options as ProviderOptions).temperature !== undefined) {
      throw new ModelConfigError(
        `Anthropic's Messages API (version 2026-10-21, used by @anthropic-ai/sdk 1.x) rejects temperature; remove the temperature option for "anthropic:${options.model}".`,
      );
    }
    this.model = options.model;
    this.#options = options;
    this.#identity = {
      provider: "anthropic",
      model: options.model,
      apiKeyEnv: "ANTHROPIC_API_KEY",
    };
    this.client =
      options.client ??
      new (loadAnthropic())({
        apiKey: resolveApiKey("anthropic", options.apiKey, "ANTHROPIC_API_KEY"),
        baseURL: options.baseURL,
        timeout: options.timeout,
        maxRetries: options.maxRetries,
      });
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
    const body = anthropicRequest(
      this.model,
      this.#options,
      messages,
      options.tools ?? [],
      options.responseFormat,
    );
    try {
      const response = await this.client.messages.create(body, { signal });
      return parseAnthropicMessage(this.#identity, response);
    } catch (error) {
      throw toModelError(this.#identity, error, signal);
    }
  }

  async *stream(
    messages: readonly Message[],
    options: ChatModelCallOptions = {},
  ): AsyncGenerator<ChatModelChunk> {
    const { signal } = options;
    const body = anthropicRequest(
      this.model,
      this.#options,
      messages,
      options.tools ?? [],
      options.responseFormat,
    );
    try {
      const events = await this.client.messages.create({ ...body, stream: true }, { signal });
      yield* anthropicChunks(this.#identity, events, options.detailedChunks);
    } catch (error) {
      throw toModelError(this.#identity, error, signal);
    }
  }
}
