import { z } from "zod";
import { ModelConfigError, StructuredOutputError } from "../errors/index.js";
import type { ChatModel } from "./chat-model.js";
import { type AssistantMessage, type Message, message } from "./message.js";
import type { ResponseFormat } from "./response-format.js";
import type { JsonSchema } from "./tool.js";

/**
 * How `withStructuredOutput` asks for the answer.
 *
 * @example
 * const options: StructuredOutputOptions = { name: "Invoice", method: "tool", maxRetries: 1 };
 */
export interface StructuredOutputOptions {
  /** The answer's name, as the provider sees it (letters, digits, `_`, `-`); default `"response"`. */
  name?: string;
  description?: string;
  /**
   * `"native"`: the provider's structured output (OpenAI's json_schema; Anthropic's forced
   * tool). `"tool"`: a tool the model must call, for OpenAI-compatible servers without
   * json_schema. Default: native for OpenAI, Anthropic and the fake model, tool otherwise.
   */
  method?: "native" | "tool";
  /** How many times an answer that fails the schema is sent back to be corrected (default 2). */
  maxRetries?: number;
}

/**
 * A chat model that answers in one JSON shape: `invoke` returns the parsed, validated value.
 *
 * @example
 * const extract = model.withStructuredOutput(z.object({ city: z.string() }));
 * const { city } = await extract.invoke([message.user("I live in Lyon.")]);
 */
export interface StructuredModel<T> {
  readonly model: ChatModel;
  readonly format: ResponseFormat;
  invoke(messages: readonly Message[], options?: { signal?: AbortSignal }): Promise<T>;
}

const NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const NATIVE = new Set(["openai", "anthropic", "fake"]);

/**
 * Makes `model` answer as `schema` describes. The answer is validated with the schema; one
 * that does not fit (or is not JSON) is sent back to the model with what was wrong, at most
 * `maxRetries` times, then `StructuredOutputError` is thrown.
 *
 * @example
 * const Verdict = z.object({ approve: z.boolean(), reason: z.string() });
 * const verdict = await withStructuredOutput(model, Verdict).invoke([message.user(diff)]);
 */
export function withStructuredOutput<T extends z.ZodObject>(
  model: ChatModel,
  schema: T,
  options: StructuredOutputOptions = {},
): StructuredModel<z.output<T>> {
  const format = responseFormatOf(model, schema, options);
  const maxRetries = options.maxRetries ?? 2;
  if (!Number.isInteger(maxRetries) || maxRetries < 0) {
    throw new ModelConfigError(
      `withStructuredOutput: maxRetries must be a whole number, 0 or more; got ${String(maxRetries)}.`,
    );
  }
  return {
    model,
    format,
    async invoke(messages, callOptions = {}) {
      const conversation = [...messages];
      for (let attempt = 1; ; attempt++) {
        const reply = await model.invoke(conversation, {
          responseFormat: format,
          ...(callOptions.signal && { signal: callOptions.signal }),
        });
        const answer = answerOf(reply, format.name);
        const parsed = answer.issue ? undefined : schema.safeParse(answer.value);
        if (parsed?.success) return parsed.data;
        const issues = answer.issue ? [answer.issue] : describe(parsed!.error.issues);
        if (attempt > maxRetries) {
          throw new StructuredOutputError(format.name, attempt, issues, answer.text);
        }
        conversation.push(...correction(reply, answer, format.name, issues));
      }
    },
  };
}

function responseFormatOf(
  model: ChatModel,
  schema: z.ZodObject,
  options: StructuredOutputOptions,
): ResponseFormat {
  const name = options.name ?? "response";
  if (!NAME.test(name)) {
    throw new ModelConfigError(
      `withStructuredOutput: name ${JSON.stringify(name)} is not accepted by providers; use 1 to 64 letters, digits, "_" or "-".`,
    );
  }
  if ((schema as { _zod?: { def?: { type?: string } } })?._zod?.def?.type !== "object") {
    throw new ModelConfigError(
      `withStructuredOutput("${name}") needs a zod object schema, e.g. z.object({ city: z.string() }): providers take an object as the answer.`,
    );
  }
  let json: JsonSchema;
  try {
    json = z.toJSONSchema(schema, { io: "output" }) as JsonSchema;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ModelConfigError(
      `withStructuredOutput("${name}"): the schema cannot be written as JSON Schema (${reason}). Use JSON types: strings, numbers, booleans, enums, arrays, objects.`,
    );
  }
  const { $schema: _dialect, ...parameters } = json;
  const method = options.method ?? (NATIVE.has(model.provider) ? "native" : "tool");
  return {
    name,
    schema: parameters,
    method,
    ...(options.description && { description: options.description }),
  };
}

interface Answer {
  value: unknown;
  text: string;
  /** The tool call that carried it (tool method, and Anthropic). */
  callId?: string;
  /** Set when nothing could be read as JSON. */
  issue?: string;
}

/** The answer in a reply: the answer tool's arguments, or the text read as JSON. */
function answerOf(reply: AssistantMessage, name: string): Answer {
  const call = reply.toolCalls.find((c) => c.name === name);
  if (call) return { value: call.args, text: JSON.stringify(call.args), callId: call.id };
  // Some models wrap JSON in a Markdown fence even when asked not to.
  const text = reply.content
    .trim()
    .replace(/^```(?:json)?\s*/i, "")
    .replace(/```$/, "")
    .trim();
  try {
    return { value: JSON.parse(text), text: reply.content };
  } catch {
    return { value: undefined, text: reply.content, issue: "the answer is not valid JSON" };
  }
}

function describe(issues: readonly z.core.$ZodIssue[]): string[] {
  return issues.map(
    (issue) => `${issue.path.length ? issue.path.join(".") : "(answer)"}: ${issue.message}`,
  );
}

/** The turns that send a wrong answer back: the reply, then what was wrong with it. */
function correction(
  reply: AssistantMessage,
  answer: Answer,
  name: string,
  issues: string[],
): Message[] {
  const list = issues.map((i) => `- ${i}`).join("\n");
  if (answer.callId !== undefined) {
    const own = reply.toolCalls.filter((c) => c.id === answer.callId);
    return [
      message.assistant(reply.content, { toolCalls: own }),
      message.tool({
        toolCallId: answer.callId,
        name,
        status: "error",
        content: `The answer does not match the schema:\n${list}\nCall ${name} again with a corrected answer.`,
      }),
    ];
  }
  return [
    message.assistant(reply.content),
    message.user(
      `Your answer does not match the required schema:\n${list}\nAnswer again with only the corrected JSON.`,
    ),
  ];
}
