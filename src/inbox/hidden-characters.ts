/**
 * Which characters a reviewer cannot see or that change how the text around them reads:
 * one definition for both reviewers (the web inbox marks them, the terminal escapes them).
 * Pure and dependency-free, so the browser bundle can import it without Node code.
 *
 * Counted: control characters (C0, DEL, C1), every Unicode format character (bidi
 * embeddings, overrides and isolates U+202A–202E and U+2066–2069, the marks U+200E/200F
 * and U+061C, zero-width U+200B–200D, U+2060, U+FEFF, soft hyphen, tag characters…), the
 * line and paragraph separators, and the Hangul fillers that draw as blank space.
 */

// \p{Cc} controls, \p{Cf} format characters, \p{Zl}/\p{Zp} separators, and the fillers.
const HIDDEN_SOURCE = "[\\p{Cc}\\p{Cf}\\p{Zl}\\p{Zp}\\u115f\\u1160\\u3164\\uffa0]";

/**
 * Matches one hidden or direction-changing character (global: use with `replace`).
 *
 * @example
 * "invoice_\u202Etxt.exe".replace(HIDDEN_CHARACTERS, "?"); // "invoice_?txt.exe"
 */
export const HIDDEN_CHARACTERS = new RegExp(HIDDEN_SOURCE, "gu");

const ONE_HIDDEN = new RegExp(HIDDEN_SOURCE, "u");

/**
 * Whether `text` holds a hidden character, line breaks and tabs aside (they show as layout).
 *
 * @example
 * hasHiddenCharacters("invoice_\u202Etxt.exe"); // true
 * hasHiddenCharacters("two\nlines"); // false
 */
export function hasHiddenCharacters(text: string): boolean {
  return ONE_HIDDEN.test(text.replace(/[\n\t]/g, ""));
}

/** The names reviewers are most likely to meet, so a marker's tooltip can say what it does. */
const NAMES: Record<number, string> = {
  173: "soft hyphen",
  1564: "Arabic letter mark",
  8203: "zero width space",
  8204: "zero width non-joiner",
  8205: "zero width joiner",
  8206: "left-to-right mark",
  8207: "right-to-left mark",
  8232: "line separator",
  8233: "paragraph separator",
  8234: "left-to-right embedding",
  8235: "right-to-left embedding",
  8236: "pop directional formatting",
  8237: "left-to-right override",
  8238: "right-to-left override",
  8288: "word joiner",
  8294: "left-to-right isolate",
  8295: "right-to-left isolate",
  8296: "first strong isolate",
  8297: "pop directional isolate",
  65279: "zero width no-break space (BOM)",
};

/**
 * The code point as reviewers write it, e.g. `U+202E`.
 *
 * @example
 * codePointLabel("\u202E"); // "U+202E"
 */
export function codePointLabel(ch: string): string {
  return `U+${(ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}`;
}

/**
 * What a hidden character is, for a tooltip: its code point and, when known, its name.
 *
 * @example
 * describeHiddenCharacter("\u202E"); // "U+202E right-to-left override"
 */
export function describeHiddenCharacter(ch: string): string {
  const name = NAMES[ch.codePointAt(0) ?? 0];
  const cp = codePointLabel(ch);
  if (name) return `${cp} ${name}`;
  return ONE_HIDDEN.test(ch) && /\p{Cc}/u.test(ch)
    ? `${cp} control character`
    : `${cp} invisible character`;
}

/** A piece of text: shown as it is, or one hidden character to show as a marker. */
export type TextPart = { text: string } | { hidden: string };

/**
 * `text` cut into what can be shown as it is and the hidden characters between, in order;
 * joining the parts back gives `text` exactly. Line breaks and tabs stay text.
 *
 * @example
 * splitHidden("a\u202Eb"); // [{ text: "a" }, { hidden: "\u202E" }, { text: "b" }]
 */
export function splitHidden(text: string): TextPart[] {
  const parts: TextPart[] = [];
  let from = 0;
  for (const match of text.matchAll(HIDDEN_CHARACTERS)) {
    const ch = match[0];
    if (ch === "\n" || ch === "\t") continue;
    if (match.index > from) parts.push({ text: text.slice(from, match.index) });
    parts.push({ hidden: ch });
    from = match.index + ch.length;
  }
  if (from < text.length) parts.push({ text: text.slice(from) });
  return parts;
}

/**
 * `text` with each hidden character written as a marker, `⟨U+202E⟩`: for places that take
 * a plain string (attributes, one-line summaries).
 *
 * @example
 * markHidden("invoice_\u202Etxt.exe"); // "invoice_⟨U+202E⟩txt.exe"
 */
export function markHidden(text: string): string {
  return splitHidden(text)
    .map((p) => ("text" in p ? p.text : `⟨${codePointLabel(p.hidden)}⟩`))
    .join("");
}

/**
 * The distinct hidden characters in `text`, as labels, e.g. `["U+202E"]`.
 *
 * @example
 * hiddenCodePoints("a\u200bb\u200bc"); // ["U+200B"]
 */
export function hiddenCodePoints(text: string): string[] {
  const found = new Set<string>();
  for (const p of splitHidden(text)) if ("hidden" in p) found.add(codePointLabel(p.hidden));
  return [...found];
}
