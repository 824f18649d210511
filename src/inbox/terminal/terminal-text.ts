import { HIDDEN_CHARACTERS } from "../hidden-characters.js";

/**
 * Text written by models (tool args, descriptions, questions) made safe to print: control
 * characters that a terminal would obey (ANSI escapes, carriage returns, bells) and
 * invisible or direction-changing characters (the set the web inbox marks, see
 * hidden-characters.ts) are shown as visible escapes instead.
 *
 * @example
 * printable("rm \u001b[2Jeverything"); // "rm \\x1b[2Jeverything"
 * printable("line one\nline two", { multiline: true }); // kept on two lines
 */
export function printable(text: string, options: { multiline?: boolean } = {}): string {
  return text.replace(HIDDEN_CHARACTERS, (ch) => {
    if (ch === "\n" && options.multiline) return ch;
    if (ch === "\t") return "  ";
    const code = ch.codePointAt(0)!;
    if (code <= 0xff) return `\\x${code.toString(16).padStart(2, "0")}`;
    return code <= 0xffff
      ? `\\u${code.toString(16).padStart(4, "0")}`
      : `\\u{${code.toString(16)}}`;
  });
}

/**
 * One line of at most `width` characters, with a trailing "…" when cut; safe to print.
 *
 * @example
 * cell("remove_file(path: build/cache.tmp)", 12); // "remove_file…"
 */
export function cell(text: string, width: number): string {
  const flat = printable(text.replace(/\s+/g, " ").trim());
  const chars = [...flat];
  return chars.length <= width ? flat : `${chars.slice(0, width - 1).join("")}…`;
}

/**
 * JSON, indented, safe to print.
 *
 * @example
 * json({ path: "a.txt" }); // '{\n  "path": "a.txt"\n}'
 */
export function json(value: unknown): string {
  return printable(JSON.stringify(value, null, 2) ?? "null", { multiline: true });
}

/**
 * How long ago `since` was, shortly: "12s", "5m", "3h", "2d".
 *
 * @example
 * waitedFor("2026-12-03T10:00:00Z", Date.parse("2026-12-03T10:05:00Z")); // "5m"
 */
export function waitedFor(since: string, now: number): string {
  const seconds = Math.max(0, Math.round((now - Date.parse(since)) / 1000));
  if (!Number.isFinite(seconds)) return "?";
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86_400)}d`;
}
