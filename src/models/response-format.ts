import type { JsonSchema } from "./tool.js";

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
