/** The one definition of hidden characters both reviewers use (web markers, terminal escapes). */
import { describe, expect, it } from "vitest";
import {
  describeHiddenCharacter,
  hasHiddenCharacters,
  hiddenCodePoints,
  markHidden,
  splitHidden,
} from "../../src/inbox/hidden-characters.js";
import { printable } from "../../src/inbox/terminal/terminal-text.js";

const BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c";
const ZERO_WIDTH = "\u200b\u200c\u200d\u2060\ufeff";

describe("hidden and direction-changing characters", () => {
  it("counts bidi controls, zero-width and other format characters, controls and tag characters", () => {
    for (const ch of [...BIDI, ...ZERO_WIDTH, "\u00ad", "\u0007", "\u009b", "\u{e0041}"])
      expect(hasHiddenCharacters(`a${ch}b`), describeHiddenCharacter(ch)).toBe(true);
    expect(hasHiddenCharacters("plain text, ünïcödé, 日本語, emoji 🙂")).toBe(false);
    expect(hasHiddenCharacters("two\nlines\tand a tab")).toBe(false);
  });

  it("cuts text into parts that join back to exactly the text", () => {
    const text = "invoice_\u202etxt.exe\u200b\nnext line \u{e0041}";
    const parts = splitHidden(text);
    expect(parts.map((p) => ("text" in p ? p.text : p.hidden)).join("")).toBe(text);
    expect(parts.filter((p) => "hidden" in p)).toHaveLength(3);
  });

  it("names each one by its code point", () => {
    expect(markHidden("invoice_\u202etxt.exe")).toBe("invoice_⟨U+202E⟩txt.exe");
    expect(markHidden("tag\u{e0041}")).toBe("tag⟨U+E0041⟩");
    expect(hiddenCodePoints("a\u200bb\u200bc\u2066")).toEqual(["U+200B", "U+2066"]);
    expect(describeHiddenCharacter("\u202e")).toBe("U+202E right-to-left override");
  });

  it("is the set the terminal reviewer escapes", () => {
    for (const ch of [...BIDI, ...ZERO_WIDTH, "\u00ad", "\u{e0041}"])
      expect(printable(`a${ch}b`)).not.toContain(ch);
  });
});
