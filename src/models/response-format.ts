import type { JsonSchema, ToolDefinition } from "./tool.js";

/**
 * The JSON shape a model is asked to answer in: a name for it and its JSON Schema.
 * `native` uses the provider's own structured output (OpenAI's `json_schema` response
 * format; Anthropic's, through a tool the model is made to call); `tool` offers a tool of
 * that name and reads its arguments, for servers without structured output.
 *
 * @example
 * const format: ResponseFormat = { name: "Invoice", schema: { type: "object", properties: {} }, method: "native" };
 */
export interface ResponseFormat {
  name: string;
  description?: string;
  schema: JsonSchema;
  method: "native" | "tool";
}

/**
 * The tool that carries the answer when a provider has no native structured output (or,
 * for Anthropic, as its native way): named after the format, its parameters the schema.
 *
 * @example
 * body.tools.push(toFunctionTool(answerTool(format)));
 */
export function answerTool(format: ResponseFormat): ToolDefinition {
  return {
    name: format.name,
    description: format.description ?? `Give your final answer as ${format.name}.`,
    parameters: format.schema,
  };
}
