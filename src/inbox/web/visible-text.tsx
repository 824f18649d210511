/**
 * Agent-supplied text as the reviewer must see it: every hidden or direction-changing
 * character (see ../hidden-characters.ts) becomes a visible marker naming its code point,
 * so `invoice_\u202Etxt.exe` reads `invoice_⟨U+202E⟩txt.exe`, not `invoice_exe.txt`. The
 * character itself never reaches the page, so it cannot reorder what is around it.
 */
import {
  codePointLabel,
  describeHiddenCharacter,
  hasHiddenCharacters,
  hiddenCodePoints,
  splitHidden,
} from "../hidden-characters.js";
import { pretty } from "./format.js";

/** `text` with hidden characters shown as `⟨U+202E⟩` chips (the rest as plain text). */
export function VisibleText({ text }: { text: string }) {
  if (!hasHiddenCharacters(text)) return <>{text}</>;
  return (
    <>
      {splitHidden(text).map((part, i) =>
        "text" in part ? (
          part.text
        ) : (
          <span
            key={i}
            class="hidden-char"
            data-hidden-char={codePointLabel(part.hidden)}
            title={describeHiddenCharacter(part.hidden)}
          >
            ⟨{codePointLabel(part.hidden)}⟩
          </span>
        ),
      )}
    </>
  );
}

/** Every string inside `value` (keys too), for checking a whole action or answer at once. */
export function textsIn(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(textsIn);
  if (value && typeof value === "object")
    return Object.entries(value).flatMap(([k, v]) => [k, ...textsIn(v)]);
  return [];
}

/** The distinct hidden characters anywhere in `value`, e.g. `["U+202E", "U+200B"]`. */
export function hiddenIn(value: unknown): string[] {
  return [...new Set(textsIn(value).flatMap(hiddenCodePoints))];
}

/**
 * The warning an action, question or field carries when what it shows holds hidden
 * characters: shown before the reviewer decides, with the code points found.
 */
export function HiddenCharactersWarning(props: { value: unknown; what: string }) {
  const found = hiddenIn(props.value);
  if (found.length === 0) return null;
  return (
    <div class="notice danger hidden-warning" role="alert" data-testid="hidden-characters">
      <strong>Hidden characters in {props.what}:</strong> {found.join(", ")}. Text can read
      differently from what it is (a right-to-left override turns <code>exe.txt</code> around); each
      one is shown where it sits as a <span class="hidden-char">⟨U+…⟩</span> marker. What you
      approve is the text with those characters in it.
    </div>
  );
}

/** `pretty(value)` with hidden characters marked, for a `<pre>`. */
export function VisiblePretty({ value }: { value: unknown }) {
  return <VisibleText text={pretty(value)} />;
}
