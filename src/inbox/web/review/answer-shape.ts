/**
 * What kind of answer a plain `interrupt(value)` asks for, read from its value: a question
 * gets a text box (the answer is sent as a string, no JSON quotes); a value that lists
 * `options` gets a choice; JSON only where the value asks for structure with a JSON Schema
 * (`schema`, `answerSchema` or `responseSchema`) whose type is not a string.
 *
 * @example
 * answerShapeOf({ question: "Which folder?" }); // { kind: "text" }
 * answerShapeOf({ question: "Where?", options: ["staging", "prod"] }); // { kind: "choice", options: [...] }
 * answerShapeOf({ question: "Limits?", schema: { type: "object" } }); // { kind: "json", schema: {...} }
 */
import type { JsonSchema } from "../wire.js";

export type AnswerShape =
  | { kind: "text" }
  | { kind: "choice"; options: Array<string | number | boolean> }
  | { kind: "json"; schema: JsonSchema };

const SCHEMA_KEYS = ["schema", "answerSchema", "responseSchema"] as const;
const OPTION_KEYS = ["options", "choices"] as const;

const isScalar = (x: unknown): x is string | number | boolean =>
  typeof x === "string" || typeof x === "number" || typeof x === "boolean";

export function answerShapeOf(value: unknown): AnswerShape {
  if (!value || typeof value !== "object" || Array.isArray(value)) return { kind: "text" };
  const v = value as Record<string, unknown>;
  for (const key of OPTION_KEYS) {
    const options = v[key];
    if (Array.isArray(options) && options.length > 0 && options.every(isScalar))
      return { kind: "choice", options };
  }
  for (const key of SCHEMA_KEYS) {
    const schema = v[key];
    if (!schema || typeof schema !== "object" || Array.isArray(schema)) continue;
    const type = (schema as JsonSchema).type;
    return type === "string" ? { kind: "text" } : { kind: "json", schema: schema as JsonSchema };
  }
  return { kind: "text" };
}

/** The words of the question, when the value has them (`question`, `prompt`, `message`). */
export function questionOf(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (!value || typeof value !== "object") return undefined;
  for (const key of ["question", "prompt", "message"]) {
    const text = (value as Record<string, unknown>)[key];
    if (typeof text === "string") return text;
  }
  return undefined;
}
