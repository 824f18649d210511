/**
 * Options every provider adapter takes. Connection options (`apiKey`, `baseURL`,
 * `timeout`, `maxRetries`) configure the SDK client; they are ignored when you pass your
 * own `client`. Sampling options (`temperature`, `maxTokens`) go into every request.
 *
 * @example
 * initChatModel("openai:gpt-5.4", { temperature: 0, maxRetries: 5, timeout: 60_000 });
 */
export interface ProviderOptions {
  /** Defaults to the provider's environment variable (OPENAI_API_KEY, ANTHROPIC_API_KEY). */
  apiKey?: string;
  /** Another endpoint speaking the same wire format: a proxy, a gateway, a local server. */
  baseURL?: string;
  /** Milliseconds before one HTTP attempt gives up. */
  timeout?: number;
  /** How often the SDK retries connection errors, 408, 409, 429 and 5xx. SDK default: 2. */
  maxRetries?: number;
  temperature?: number;
  /** The most tokens the reply may have. */
  maxTokens?: number;
}
