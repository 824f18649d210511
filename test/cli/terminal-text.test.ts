import { describe, expect, it } from "vitest";
import { cell, json, printable, waitedFor } from "../../src/inbox/terminal/terminal-text.js";

describe("text from models, before it reaches the terminal", () => {
  it("shows ANSI escapes, carriage returns and bells as visible escapes", () => {
    expect(printable("a\u001b[2Jb\rc\u0007d\u009be")).toBe("a\\x1b[2Jb\\x0dc\\x07d\\x9be");
  });

  it("shows direction overrides and invisible marks instead of obeying them", () => {
    expect(printable("safe\u202eexe.txt\u200b\u2066")).toBe("safe\\u202eexe.txt\\u200b\\u2066");
  });

  it("keeps line breaks only where several lines are expected", () => {
    expect(printable("one\ntwo")).toBe("one\\x0atwo");
    expect(printable("one\ntwo", { multiline: true })).toBe("one\ntwo");
  });

  it("escapes what JSON leaves alone inside strings", () => {
    expect(json({ q: "x\u007f\u0085" })).toBe('{\n  "q": "x\\x7f\\x85"\n}');
  });

  it("fits table cells on one line, cut with an ellipsis", () => {
    expect(cell("remove_file(path:\n build/cache.tmp)", 12)).toBe("remove_file…");
    expect(cell("short", 12)).toBe("short");
  });

  it("says how long something has waited in its largest unit", () => {
    const now = Date.parse("2026-12-03T12:00:00Z");
    expect(waitedFor("2026-12-03T11:59:30Z", now)).toBe("30s");
    expect(waitedFor("2026-12-03T11:55:00Z", now)).toBe("5m");
    expect(waitedFor("2026-12-03T09:00:00Z", now)).toBe("3h");
    expect(waitedFor("2026-12-01T12:00:00Z", now)).toBe("2d");
  });
});
