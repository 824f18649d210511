import type { AssistantMessage, Message } from "./message.js";
import type { ResponseFormat } from "./response-format.js";
import type { ToolDefinition } from "./tool.js";

/**
 * Per-call options. Tools are passed on each call rather than bound to the model, so one
 * model instance serves agents with different tool sets.
 *
 * @example
 * await model.invoke(messages, { tools: [readFile], signal: AbortSignal.timeout(30_000) });
 */
export interface ChatModelCallOptions {
  tools?: readonly ToolDefinition[];
  signal?: AbortSignal;
  /**
   * `stream()` only: give each text chunk the reply's id (`messageId`, once the provider
   * has said it) and yield `tool-call-delta` chunks as tool-call arguments arrive. Off by
   * default, so a plain stream is text, then the message.
   */
  detailedChunks?: boolean;
  /** Ask for an answer in this JSON shape (see `withStructuredOutput`, which sets it). */
  responseFormat?: ResponseFormat;
}

/**
 * One piece of a streamed reply: text as it arrives, then exactly one `message` chunk with
 * the complete reply, tool calls and usage included. With `detailedChunks`, text chunks
 * carry the reply's id and tool calls stream as `tool-call-delta` pieces (keyed by `index`;
 * the first piece of a call has its `id` and `name`, later ones append to `args`).
 *
 * @example
 * for await (const chunk of model.stream(messages)) {
 *   if (chunk.type === "text-delta") process.stdout.write(chunk.text);
 *   else if (chunk.type === "message") history.push(chunk.message);
 * }
 */
export type ChatModelChunk =
  | { type: "text-delta"; text: string; messageId?: string }
  | {
      type: "tool-call-delta";
      index: number;
      id?: string;
      name?: string;
      args: string;
      messageId?: string;
    }
  | { type: "message"; message: AssistantMessage };

/**
 * A chat model: messages in, one assistant message out. The OpenAI and Anthropic adapters
 * and `FakeChatModel` all implement it, so graphs and agents take any of them.
 *
 * @example
 * async function ask(model: ChatModel, question: string) {
 *   const reply = await model.invoke([message.user(question)]);
 *   return reply.content;
 * }
 */
export interface ChatModel {
  /** Who serves the model: "openai", "anthropic", "fake"… */
  readonly provider: string;
  /** The provider's model name, e.g. "gpt-5.4". */
  readonly model: string;
  invoke(messages: readonly Message[], options?: ChatModelCallOptions): Promise<AssistantMessage>;
  stream(
    messages: readonly Message[],
    options?: ChatModelCallOptions,
  ): AsyncIterable<ChatModelChunk>;
}
