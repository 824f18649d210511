import { z } from "zod";
import { ModelConfigError } from "../errors/index.js";
import type { ToolCall } from "./message.js";

/**
 * A JSON Schema object, as sent to providers to describe a tool's arguments.
 *
 * @example
 * const parameters: JsonSchema = { type: "object", properties: { path: { type: "string" } } };
 */
export type JsonSchema = { [key: string]: unknown };

/**
 * What a model sees of a tool: its name, what it is for, and the JSON Schema of its
 * arguments. Every `Tool` is one; chat models need nothing more.
 *
 * @example
 * const definition: ToolDefinition = { name: "now", description: "Current time", parameters: { type: "object", properties: {} } };
 */
export interface ToolDefinition {
  readonly name: string;
  readonly description: string;
  readonly parameters: JsonSchema;
}

/**
 * What a tool's `run` receives besides its arguments. `signal` aborts with the run and
 * `toolCall` is the call being answered. It is an open object: the agent layer adds the
 * graph state and context to it.
 *
 * @example
 * const slow = tool({ name: "wait", description: "Waits", schema: z.object({}),
 *   run: (_args, { signal }) => setTimeout(1000, "done", { signal }) });
 */
export interface ToolRuntime {
  signal: AbortSignal;
  toolCall: ToolCall;
  [key: string]: unknown;
}

/**
 * The zod schemas a tool may take: an object, since providers pass tool arguments as one.
 *
 * @example
 * const schema: ToolSchema = z.object({ path: z.string() });
 */
export type ToolSchema = z.ZodObject;

/**
 * A function the model can call. `schema` validates the arguments the model sends and
 * `parameters` is that schema as JSON Schema, computed once when the tool is defined.
 *
 * @example
 * const tools: Tool[] = [readFile, removeFile];
 */
export interface Tool<TSchema extends ToolSchema = ToolSchema, TResult = unknown>
  extends ToolDefinition {
  readonly schema: TSchema;
  run(args: z.output<TSchema>, runtime: ToolRuntime): TResult | Promise<TResult>;
}

// What providers accept as a function name (the stricter of OpenAI's and Anthropic's rules).
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * Defines a tool from a zod object schema and a function. Non-string results are sent to
 * the model as JSON; thrown errors become error tool messages (see `runToolCall`).
 *
 * @example
 * const readFile = tool({
 *   name: "read_file",
 *   description: "Read a text file from the workspace.",
 *   schema: z.object({ path: z.string().describe("Path relative to the workspace") }),
 *   run: async ({ path }, { signal }) => readFile(path, { encoding: "utf8", signal }),
 * });
 */
export function tool<TSchema extends ToolSchema, TResult>(definition: {
  name: string;
  description: string;
  schema: TSchema;
  run: (args: z.output<TSchema>, runtime: ToolRuntime) => TResult | Promise<TResult>;
}): Tool<TSchema, TResult> {
  const { name, description, schema, run } = definition;
  if (!TOOL_NAME.test(name)) {
    throw new ModelConfigError(
      `Tool name ${JSON.stringify(name)} is not accepted by model providers: use 1 to 64 letters, digits, "_" or "-", e.g. "read_file".`,
    );
  }
  if (
    (schema as { _zod?: { def?: { type?: string } } } | undefined)?._zod?.def?.type !== "object"
  ) {
    throw new ModelConfigError(
      `Tool "${name}" needs a zod object schema, e.g. z.object({ path: z.string() }); providers pass tool arguments as an object.`,
    );
  }
  return { name, description, schema, parameters: toParameters(name, schema), run };
}

function toParameters(name: string, schema: ToolSchema): JsonSchema {
  let jsonSchema: JsonSchema;
  try {
    // "input" describes what the model must send: fields with defaults are optional.
    jsonSchema = z.toJSONSchema(schema, { io: "input" }) as JsonSchema;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ModelConfigError(
      `Tool "${name}" has a schema that cannot be written as JSON Schema (${reason}). Use JSON-representable types such as strings, numbers, booleans, enums, arrays and objects.`,
    );
  }
  // The dialect marker means nothing to providers; leave it out of every request.
  const { $schema: _dialect, ...parameters } = jsonSchema;
  return parameters;
}
