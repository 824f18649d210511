import { describe, expect, it } from "vitest";
import type { InterruptRecord } from "../../src/checkpoint/checkpointer.js";
import { continueAnswers, resumeAnswers } from "../../src/graph/compiling/resume-answers.js";
import { InvalidConfigError, InvalidResumeError, nullResume } from "../../src/index.js";

const during = (id: string, node = "ask"): InterruptRecord => ({
  id,
  value: "?",
  node,
  ns: "",
  step: 1,
  taskId: `1:${node}:0`,
  timing: "during",
});
const nestedBreakpoint = (id: string): InterruptRecord => ({
  ...during(id, "process"),
  ns: "child:1",
  value: null,
  timing: "before",
});
const A = "aaaaaaaaaaaaaaaaaaaaaaaa";
const B = "bbbbbbbbbbbbbbbbbbbbbbbb";
const at = { threadId: "t", atBreakpoint: false };

describe("resumeAnswers pairs a resume value with what the thread waits on", () => {
  const cases: Array<[string, InterruptRecord[], unknown, Record<string, unknown> | RegExp]> = [
    ["one pending takes a plain value", [during(A)], "yes", { [A]: "yes" }],
    [
      "an object that is not keyed by ids is the value itself",
      [during(A)],
      { ok: true },
      { [A]: { ok: true } },
    ],
    [
      "several pending take a map keyed by id",
      [during(A), during(B, "other")],
      { [A]: 1, [B]: 2 },
      { [A]: 1, [B]: 2 },
    ],
    ["a map may answer some of them", [during(A), during(B, "other")], { [B]: 2 }, { [B]: 2 }],
    ["nullResume is null", [during(A)], nullResume, { [A]: null }],
    ["a Date becomes its JSON form", [during(A)], new Date(0), { [A]: "1970-01-01T00:00:00.000Z" }],
    ["no value continues nested breakpoints", [nestedBreakpoint(A)], undefined, { [A]: null }],
    ["nothing pending is refused", [], "yes", /no pending interrupt/],
    [
      "a scalar for several is ambiguous, and lists the ids",
      [during(A), during(B, "other")],
      "x",
      new RegExp(`ambiguous.*${A}.*${B}`),
    ],
    [
      "an unknown id is refused, naming it",
      [during(A)],
      { [B]: 1 },
      new RegExp(`Unknown interrupt id ${B}`),
    ],
    [
      "no value for a real interrupt is refused",
      [during(A)],
      undefined,
      /without a value only continues a static breakpoint/,
    ],
  ];
  for (const [name, pending, value, expected] of cases) {
    it(name, () => {
      if (expected instanceof RegExp) {
        expect(() => resumeAnswers(pending, value, at)).toThrow(InvalidResumeError);
        expect(() => resumeAnswers(pending, value, at)).toThrow(expected);
      } else {
        expect(resumeAnswers(pending, value, at)).toEqual(expected);
      }
    });
  }

  it("a static breakpoint at the top level needs no answers", () => {
    expect(resumeAnswers([during(A)], undefined, { threadId: "t", atBreakpoint: true })).toEqual(
      {},
    );
  });
});

describe("continueAnswers: what invoke(null) answers on a paused step", () => {
  it("continues nested breakpoints and leaves interrupts unanswered, to be reached again", () => {
    expect(continueAnswers([during(A), nestedBreakpoint(B)], "t")).toEqual({ [B]: null });
  });

  it("refuses a thread with nothing to continue", () => {
    expect(() => continueAnswers([], "t")).toThrow(InvalidConfigError);
  });
});
