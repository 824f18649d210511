import { ModelConfigError } from "../errors/index.js";
import { AnthropicChatModel, type AnthropicChatModelOptions } from "./anthropic.js";
import type { ChatModel } from "./chat-model.js";
import { OpenAIChatModel, type OpenAIChatModelOptions } from "./openai.js";
import type { ProviderOptions } from "./provider-options.js";

/**
 * The providers `initChatModel` knows, i.e. the prefixes a model id may start with.
 *
 * @example
 * chatModelProviders.includes(id.split(":")[0] as ChatModelProvider);
 */
export const chatModelProviders = ["openai", "anthropic"] as const;

/**
 * One of `chatModelProviders`.
 *
 * @example
 * const provider: ChatModelProvider = "anthropic";
 */
export type ChatModelProvider = (typeof chatModelProviders)[number];

/**
 * Creates a chat model from a `"<provider>:<model>"` id. The API key comes from the
 * `apiKey` option or the provider's environment variable and is checked here, so a
 * missing key fails when the model is created.
 *
 * @example
 * const gpt = initChatModel("openai:gpt-5.4", { temperature: 0 });
 * const claude = initChatModel("anthropic:claude-sonnet-4-5", { maxTokens: 2048 });
 * const local = initChatModel("openai:qwen3", { baseURL: "http://localhost:8000/v1", api: "chat", apiKey: "none" });
 */
export function initChatModel(
  id: `openai:${string}`,
  options?: Omit<OpenAIChatModelOptions, "model">,
): OpenAIChatModel;
export function initChatModel(
  id: `anthropic:${string}`,
  options?: Omit<AnthropicChatModelOptions, "model">,
): AnthropicChatModel;
export function initChatModel(id: string, options?: ProviderOptions): ChatModel;
export function initChatModel(
  id: string,
  options: Omit<OpenAIChatModelOptions, "model"> | Omit<AnthropicChatModelOptions, "model"> = {},
): ChatModel {
  const colon = id.indexOf(":");
  if (colon === -1) {
    // "openai/gpt-4o" is how routers such as OpenRouter and LiteLLM write ids: point at our separator.
    const slash = id.indexOf("/");
    const prefix = id.slice(0, slash);
    if (slash > 0 && (chatModelProviders as readonly string[]).includes(prefix)) {
      throw new ModelConfigError(
        `Model id ${JSON.stringify(id)} separates provider and model with "/". Did you mean ${JSON.stringify(`${prefix}:${id.slice(slash + 1)}`)}? Ids are written "<provider>:<model>".`,
      );
    }
    throw new ModelConfigError(
      `Model id ${JSON.stringify(id)} has no provider prefix. Write it as "<provider>:<model>", e.g. "openai:gpt-5.4" or "anthropic:claude-sonnet-4-5".`,
    );
  }
  // Split at the first colon only: model names such as "llama3.1:8b" contain colons.
  const provider = id.slice(0, colon);
  const model = id.slice(colon + 1);
  if (!model) {
    throw new ModelConfigError(
      `Model id ${JSON.stringify(id)} names no model after "${provider}:", e.g. "openai:gpt-5.4".`,
    );
  }
  switch (provider) {
    case "openai":
      return new OpenAIChatModel({ ...(options as Omit<OpenAIChatModelOptions, "model">), model });
    case "anthropic":
      return new AnthropicChatModel({
        ...(options as Omit<AnthropicChatModelOptions, "model">),
        model,
      });
    default:
      throw new ModelConfigError(
        `Unknown model provider ${JSON.stringify(provider)} in ${JSON.stringify(id)}. Known providers: ${chatModelProviders.map((p) => `"${p}"`).join(", ")}. For another server that speaks OpenAI's API, use "openai:<model>" with { baseURL, api: "chat" }.`,
      );
  }
}
