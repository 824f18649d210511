/** How the web inbox answers a plain interrupt: text for a question, JSON only where asked. */
import { describe, expect, it } from "vitest";
import { answerShapeOf, questionOf } from "../../src/inbox/web/review/answer-shape.js";

describe("the answer a plain interrupt asks for", () => {
  it("is text for a question, a string, or a value that describes no structure", () => {
    expect(answerShapeOf({ question: "Which logs?" })).toEqual({ kind: "text" });
    expect(answerShapeOf("Which logs?")).toEqual({ kind: "text" });
    expect(answerShapeOf({ draft: { to: "a@b.c" } })).toEqual({ kind: "text" });
    expect(answerShapeOf({ question: "Name?", schema: { type: "string" } })).toEqual({
      kind: "text",
    });
  });

  it("is a choice where the value lists its options", () => {
    expect(answerShapeOf({ question: "Where?", options: ["staging", "prod"] })).toEqual({
      kind: "choice",
      options: ["staging", "prod"],
    });
    // Options that are objects cannot be a plain choice: the question stays text.
    expect(answerShapeOf({ question: "Which?", options: [{ id: 1 }] })).toEqual({ kind: "text" });
  });

  it("is JSON where the value gives a schema for structure", () => {
    const schema = { type: "object", properties: { limit: { type: "integer" } } };
    expect(answerShapeOf({ question: "Limits?", answerSchema: schema })).toEqual({
      kind: "json",
      schema,
    });
  });

  it("reads the question's own words where the value has them", () => {
    expect(questionOf({ prompt: "Go on?" })).toBe("Go on?");
    expect(questionOf({ n: 1 })).toBeUndefined();
  });
});
