/**
 * The edit form's fields, made from a tool's JSON Schema (`argsSchema`), and the check of
 * what the reviewer typed. Pure functions: the page shows the errors at their fields; the
 * server checks again and its 400 `fields` land in the same places.
 */
import type { FieldError, JsonSchema } from "../wire.js";

export type FieldKind = "string" | "text" | "number" | "integer" | "boolean" | "enum" | "json";

export interface Field {
  key: string;
  kind: FieldKind;
  schema: JsonSchema;
  required: boolean;
}

const typeOf = (schema: JsonSchema): string | undefined => {
  if (Array.isArray(schema.type)) return schema.type.find((t) => t !== "null");
  if (schema.type) return schema.type;
  if (schema.anyOf) return schema.anyOf.map(typeOf).find((t) => t && t !== "null");
  return undefined;
};

function kindOf(schema: JsonSchema, value: unknown): FieldKind {
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return "enum";
  const type = typeOf(schema) ?? (value === undefined ? undefined : inferType(value));
  switch (type) {
    case "string":
      return typeof value === "string" && (value.length > 80 || value.includes("\n"))
        ? "text"
        : "string";
    case "number":
    case "integer":
    case "boolean":
      return type;
    default:
      return "json";
  }
}

function inferType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

/** One field per schema property, then any arg the schema does not name (edited as JSON). */
export function fieldsFor(schema: JsonSchema | undefined, args: Record<string, unknown>): Field[] {
  const props = schema?.properties ?? {};
  const required = new Set(schema?.required ?? []);
  const keys = [...Object.keys(props), ...Object.keys(args).filter((k) => !(k in props))];
  return keys.map((key) => ({
    key,
    kind: kindOf(props[key] ?? {}, args[key]),
    schema: props[key] ?? {},
    // Without a schema, every arg the model proposed is kept: an empty field is "", not gone.
    required: schema?.properties ? required.has(key) : true,
  }));
}

/** What a field's input shows for a value. */
export function textOf(field: Field, value: unknown): string {
  if (value === undefined) return "";
  switch (field.kind) {
    case "string":
    case "text":
      return typeof value === "string" ? value : JSON.stringify(value);
    case "number":
    case "integer":
      return String(value);
    case "boolean":
      return value === true ? "true" : "false";
    case "enum":
      return JSON.stringify(value);
    case "json":
      return JSON.stringify(value, null, 2);
  }
}

/** Parses one field's text back into a typed value. */
function parseField(field: Field, text: string): { value?: unknown; error?: string } {
  if (text === "" && field.kind !== "string" && field.kind !== "text") {
    return field.required ? { error: "Required." } : {};
  }
  switch (field.kind) {
    case "string":
    case "text":
      if (text === "" && !field.required) return {};
      return { value: text };
    case "number":
    case "integer": {
      const n = Number(text);
      if (!Number.isFinite(n)) return { error: "Enter a number." };
      if (field.kind === "integer" && !Number.isInteger(n))
        return { error: "Enter a whole number." };
      return { value: n };
    }
    case "boolean":
      return { value: text === "true" };
    case "enum":
    case "json":
      try {
        return { value: JSON.parse(text) };
      } catch {
        return { error: "Not valid JSON." };
      }
  }
}

/** A pattern the browser cannot compile is left to the server's check. */
function matches(pattern: string, value: string): boolean {
  try {
    return new RegExp(pattern, "u").test(value);
  } catch {
    return true;
  }
}

/** Why `value` does not fit `schema` (the subset the form knows), or undefined. */
export function schemaProblem(schema: JsonSchema, value: unknown): string | undefined {
  if (schema.anyOf) {
    return schema.anyOf.some((s) => schemaProblem(s, value) === undefined)
      ? undefined
      : "Does not match any allowed shape.";
  }
  if (
    Array.isArray(schema.enum) &&
    !schema.enum.some((e) => JSON.stringify(e) === JSON.stringify(value))
  )
    return `Must be one of ${schema.enum.map((e) => JSON.stringify(e)).join(", ")}.`;
  const types = schema.type === undefined ? [] : [schema.type].flat();
  const actual = inferType(value);
  if (
    types.length > 0 &&
    !types.some((t) => t === actual || (t === "number" && actual === "integer"))
  )
    return `Must be ${types.join(" or ")}, not ${actual}.`;
  if (typeof value === "string") {
    if (schema.minLength !== undefined && value.length < schema.minLength)
      return schema.minLength === 1 ? "Required." : `At least ${schema.minLength} characters.`;
    if (schema.maxLength !== undefined && value.length > schema.maxLength)
      return `At most ${schema.maxLength} characters.`;
    if (schema.format === "email" && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value))
      return "Must be an email address.";
    if (schema.pattern !== undefined && !matches(schema.pattern, value))
      return schema.format === "email"
        ? "Must be an email address."
        : `Must match ${schema.pattern}.`;
  }
  if (typeof value === "number") {
    if (schema.minimum !== undefined && value < schema.minimum)
      return `At least ${schema.minimum}.`;
    if (schema.maximum !== undefined && value > schema.maximum) return `At most ${schema.maximum}.`;
  }
  if (actual === "object" && schema.properties) {
    const obj = value as Record<string, unknown>;
    for (const key of schema.required ?? []) if (!(key in obj)) return `${key}: required.`;
    for (const [key, sub] of Object.entries(schema.properties)) {
      const problem = key in obj ? schemaProblem(sub, obj[key]) : undefined;
      if (problem) return `${key}: ${problem}`;
    }
  }
  if (actual === "array" && schema.items) {
    for (const [i, item] of (value as unknown[]).entries()) {
      const problem = schemaProblem(schema.items, item);
      if (problem) return `[${i}]: ${problem}`;
    }
  }
  return undefined;
}

/** The edited args, or the errors by path (`args.<key>`, as the server reports them). */
export function parseArgs(
  fields: Field[],
  texts: Record<string, string>,
): { args: Record<string, unknown>; errors: FieldError[] } {
  const args: Record<string, unknown> = {};
  const errors: FieldError[] = [];
  for (const field of fields) {
    const parsed = parseField(field, texts[field.key] ?? "");
    const path = `args.${field.key}`;
    if (parsed.error) {
      errors.push({ path, message: parsed.error });
      continue;
    }
    if (!("value" in parsed)) {
      if (field.required) errors.push({ path, message: "Required." });
      continue;
    }
    const problem = schemaProblem(field.schema, parsed.value);
    if (problem) errors.push({ path, message: problem });
    args[field.key] = parsed.value;
  }
  return { args, errors };
}

/** The arg key a server error path points at (`args.to`, `decisions.0.editedAction.args.to`). */
export function fieldKeyOf(path: string): { index?: number; key?: string } {
  const index = path.match(/(?:^|\.)decisions\.(\d+)\./)?.[1];
  const key = path.match(/(?:^|\.)args\.([^.[]+)/)?.[1];
  return {
    ...(index !== undefined && { index: Number(index) }),
    ...(key !== undefined && { key }),
  };
}
