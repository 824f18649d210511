/**
 * The inbox's edit form: fields made from a tool's JSON Schema, typed parsing of what the
 * reviewer typed, errors by `args.<key>` (the server's paths), and the diff shown before
 * submitting.
 */
import { describe, expect, it } from "vitest";
import { argsDiff } from "../../src/inbox/web/review/args-diff.js";
import {
  fieldKeyOf,
  fieldsFor,
  parseArgs,
  schemaProblem,
  textOf,
} from "../../src/inbox/web/review/schema-fields.js";

const emailSchema = {
  type: "object",
  properties: {
    to: { type: "string", format: "email" },
    priority: { enum: ["low", "high"] },
    retries: { type: "integer", minimum: 0 },
    dryRun: { type: "boolean" },
    tags: { type: "array", items: { type: "string" } },
  },
  required: ["to", "retries"],
};

const textsFor = (schema: typeof emailSchema | undefined, args: Record<string, unknown>) => {
  const fields = fieldsFor(schema, args);
  return { fields, texts: Object.fromEntries(fields.map((f) => [f.key, textOf(f, args[f.key])])) };
};

describe("the edit form", () => {
  it("makes a typed field per schema property and gives values back with their types", () => {
    const args = { to: "a@example.com", priority: "high", retries: 2, dryRun: false, tags: ["x"] };
    const { fields, texts } = textsFor(emailSchema, args);
    expect(fields.map((f) => [f.key, f.kind, f.required])).toEqual([
      ["to", "string", true],
      ["priority", "enum", false],
      ["retries", "integer", true],
      ["dryRun", "boolean", false],
      ["tags", "json", false],
    ]);
    expect(parseArgs(fields, texts)).toEqual({ args, errors: [] });
  });

  it("reports each bad value at its arg, as the server names it", () => {
    const { fields, texts } = textsFor(emailSchema, { to: "a@example.com", retries: 1, tags: [] });
    const bad = { ...texts, to: "not an email", retries: "1.5", tags: "[1" };
    expect(parseArgs(fields, bad).errors).toEqual([
      { path: "args.to", message: "Must be an email address." },
      { path: "args.retries", message: "Enter a whole number." },
      { path: "args.tags", message: "Not valid JSON." },
    ]);
    expect(parseArgs(fields, { ...texts, retries: "" }).errors).toEqual([
      { path: "args.retries", message: "Required." },
    ]);
    expect(parseArgs(fields, { ...texts, tags: "[1]" }).errors[0]?.message).toBe(
      "[0]: Must be string, not integer.",
    );
  });

  it("keeps an emptied arg the model proposed when there is no schema, and edits nested values as JSON", () => {
    const { fields, texts } = textsFor(undefined, { path: "a.txt", opts: { force: true } });
    expect(fields.map((f) => f.kind)).toEqual(["string", "json"]);
    expect(parseArgs(fields, { ...texts, path: "" }).args).toEqual({
      path: "",
      opts: { force: true },
    });
  });

  it("checks enums, bounds and patterns the way the schema says", () => {
    expect(schemaProblem({ enum: ["low", "high"] }, "mid")).toBe('Must be one of "low", "high".');
    expect(schemaProblem({ type: "integer", minimum: 0 }, -1)).toBe("At least 0.");
    expect(schemaProblem({ type: "string", pattern: "^v\\d+$" }, "v12")).toBeUndefined();
    expect(schemaProblem({ type: "string", pattern: "^v\\d+$" }, "12")).toBe("Must match ^v\\d+$.");
    expect(schemaProblem({ type: ["string", "null"] }, null)).toBeUndefined();
  });

  it("finds the action and arg a server error path points at", () => {
    expect(fieldKeyOf("args.to")).toEqual({ key: "to" });
    expect(fieldKeyOf("answer.decisions.1.editedAction.args.to")).toEqual({ index: 1, key: "to" });
    expect(fieldKeyOf("decisions.0.type")).toEqual({ index: 0 });
  });

  it("diffs proposed and edited args by path", () => {
    expect(
      argsDiff(
        { to: "all@example.com", opts: { cc: "x", keep: 1 } },
        { to: "ops@example.com", opts: { keep: 1 }, body: "hi" },
      ),
    ).toEqual([
      { path: "to", proposed: "all@example.com", edited: "ops@example.com" },
      { path: "opts.cc", proposed: "x", edited: undefined },
      { path: "body", proposed: undefined, edited: "hi" },
    ]);
  });
});
