import type { z } from "zod";
import { AbortError, ModelError } from "../errors/index.js";
import type { ChatModel, ChatModelCallOptions, ChatModelChunk } from "./chat-model.js";
import type { AssistantMessage, Message, TokenUsage } from "./message.js";
import { message } from "./message.js";
import { streamedInRun } from "./streamed-call.js";
import {
  type StructuredModel,
  type StructuredOutputOptions,
  withStructuredOutput,
} from "./structured-output.js";
import type { ToolDefinition } from "./tool.js";

/**
 * A tool call in a scripted reply; without an `id` one is made up (`call_1`, `call_2`…).
 *
 * @example
 * const call: FakeToolCall = { name: "remove_file", args: { path: "temp.txt" } };
 */
export interface FakeToolCall {
  id?: string;
  name: string;
  args?: Record<string, unknown>;
}

/**
 * One scripted reply: plain text, a full assistant message, or the short form with
 * `content` and `toolCalls`.
 *
 * @example
 * const replies: FakeReply[] = ["Hello!", { toolCalls: [{ name: "remove_file", args: { path: "a.txt" } }] }];
 */
export type FakeReply =
  | string
  | AssistantMessage
  | { content?: string; toolCalls?: FakeToolCall[]; usage?: TokenUsage; id?: string };

/**
 * A scripted reply, or a function that computes one from what the model was sent. A
 * function may also throw, to script a failing call.
 *
 * @example
 * const echo: FakeResponse = (messages) => `You said: ${messages.at(-1)?.content}`;
 */
export type FakeResponse =
  | FakeReply
  | ((
      messages: readonly Message[],
      info: { tools: readonly ToolDefinition[]; callIndex: number },
    ) => FakeReply | Promise<FakeReply>);

/**
 * What one call to a `FakeChatModel` received: a copy of the messages, and the tool names.
 *
 * @example
 * expect(model.calls[1]?.messages.at(-1)).toMatchObject({ role: "tool", status: "success" });
 */
export interface FakeChatModelCall {
  messages: Message[];
  toolNames: string[];
}

/**
 * A chat model that replies from a script, for tests, examples and demos: the n-th call
 * gets the n-th response. Every call is recorded in `calls`. Streaming splits the reply
 * into word-sized deltas, the same way every time.
 *
 * @example
 * const model = new FakeChatModel({
 *   responses: [
 *     { toolCalls: [{ name: "remove_file", args: { path: "temp.txt" } }] },
 *     "Deleted temp.txt.",
 *   ],
 * });
 * const first = await model.invoke([message.user("Delete temp.txt")], { tools: [removeFile] });
 * first.toolCalls[0]?.id; // "call_1"
 * model.calls[0]?.toolNames; // ["remove_file"]
 */
export class FakeChatModel implements ChatModel {
  readonly provider = "fake";
  readonly model: string;
  readonly calls: FakeChatModelCall[] = [];
  readonly #responses: readonly FakeResponse[];
  #toolCallCount = 0;

  constructor(options: { responses: readonly FakeResponse[]; model?: string }) {
    this.#responses = [...options.responses];
    this.model = options.model ?? "fake";
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
    return streamedInRun(this, messages, options) ?? this.#reply(messages, options);
  }

  async *stream(
    messages: readonly Message[],
    options: ChatModelCallOptions = {},
  ): AsyncGenerator<ChatModelChunk> {
    const reply = await this.#reply(messages, options);
    const messageId = reply.id;
    for (const text of splitIntoWords(reply.content)) {
      if (options.signal?.aborted) throw new AbortError(options.signal.reason);
      yield options.detailedChunks
        ? { type: "text-delta", text, messageId }
        : { type: "text-delta", text };
    }
    if (options.detailedChunks) {
      for (const [index, call] of reply.toolCalls.entries()) {
        const args = JSON.stringify(call.args);
        yield { type: "tool-call-delta", index, id: call.id, name: call.name, args, messageId };
      }
    }
    yield { type: "message", message: reply };
  }

  async #reply(
    messages: readonly Message[],
    options: ChatModelCallOptions,
  ): Promise<AssistantMessage> {
    if (options.signal?.aborted) throw new AbortError(options.signal.reason);
    const tools = options.tools ?? [];
    const callIndex = this.calls.length;
    this.calls.push({
      messages: structuredClone([...messages]),
      toolNames: tools.map((t) => t.name),
    });
    const response = this.#responses[callIndex];
    if (response === undefined) {
      const scripted = this.#responses.length;
      throw new ModelError(
        "fake",
        this.model,
        `FakeChatModel was scripted with ${scripted} ${scripted === 1 ? "reply" : "replies"} and was called ${callIndex === scripted ? "once more" : "again"} (call ${callIndex + 1}). Add a response for every model call the test makes; the last messages it received are in model.calls[${callIndex}].`,
      );
    }
    const reply =
      typeof response === "function" ? await response(messages, { tools, callIndex }) : response;
    return this.#toAssistantMessage(reply);
  }

  #toAssistantMessage(reply: FakeReply): AssistantMessage {
    if (typeof reply === "string") return message.assistant(reply);
    const toolCalls = (reply.toolCalls ?? []).map((call) => ({
      // Ids count across the model's whole life, so calls in different turns never collide.
      id: call.id ?? `call_${++this.#toolCallCount}`,
      name: call.name,
      args: structuredClone(call.args ?? {}),
    }));
    return message.assistant(reply.content ?? "", {
      toolCalls,
      ...(reply.usage && { usage: reply.usage }),
      ...(reply.id !== undefined && { id: reply.id }),
    });
  }
}

// Each piece is a word with the whitespace before the next one, so the pieces join back
// into exactly the original text.
function splitIntoWords(text: string): string[] {
  return text === "" ? [] : text.split(/(?<=\s)(?=\S)/);
}
