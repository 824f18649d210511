/**
 * Keyboard triage: j/k move, a/e/r/s decide, ? shows the list. Shortcuts are off while a
 * text field, select or button-with-text-entry has focus, so typing never decides anything.
 */
import { useLayoutEffect, useRef } from "preact/hooks";

export type KeyMap = Record<string, (e: KeyboardEvent) => void>;

function typingIn(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return (
    target.isContentEditable ||
    target instanceof HTMLInputElement ||
    target instanceof HTMLTextAreaElement ||
    target instanceof HTMLSelectElement
  );
}

/** Calls `keys[e.key]` for plain key presses outside text fields. */
export function useKeys(keys: KeyMap): void {
  const current = useRef(keys);
  current.current = keys;
  // Attached before the page is painted, so a key pressed as soon as it shows is not lost.
  useLayoutEffect(() => {
    const listener = (e: KeyboardEvent) => {
      if (e.ctrlKey || e.metaKey || e.altKey || typingIn(e.target)) return;
      const run = current.current[e.key];
      if (!run) return;
      e.preventDefault();
      run(e);
    };
    document.addEventListener("keydown", listener);
    return () => document.removeEventListener("keydown", listener);
  }, []);
}

/**
 * Calls `submit` on Ctrl+Enter (Cmd+Enter on a Mac) wherever focus is: in a field, on a
 * button, or on the page body after choosing with a/e/r/s. One listener on the document,
 * so the form need not have focus.
 */
export function useSubmitKey(submit: () => void): void {
  const current = useRef(submit);
  current.current = submit;
  useLayoutEffect(() => {
    const listener = (e: KeyboardEvent) => {
      if (e.key !== "Enter" || !(e.ctrlKey || e.metaKey) || e.altKey || e.repeat) return;
      e.preventDefault();
      current.current();
    };
    document.addEventListener("keydown", listener);
    return () => document.removeEventListener("keydown", listener);
  }, []);
}

const SHORTCUTS: Array<[string, string]> = [
  ["j / k", "next / previous item or action"],
  ["Enter", "open the selected item"],
  ["a", "approve the selected action"],
  ["e", "edit it (focuses the first field)"],
  ["r", "reject it (focuses the message)"],
  ["s", "respond in the tool's place"],
  ["Ctrl+Enter", "submit the decisions"],
  ["Esc", "back to the inbox"],
  ["?", "show or hide this help"],
];

export function KeyboardHelp({ onClose }: { onClose: () => void }) {
  return (
    <div class="overlay" role="dialog" aria-modal="true" aria-label="Keyboard shortcuts">
      <div class="overlay-card">
        <div class="overlay-head">
          <h2>Keyboard shortcuts</h2>
          <button type="button" class="btn ghost" onClick={onClose}>
            Close
          </button>
        </div>
        <table class="shortcuts">
          <tbody>
            {SHORTCUTS.map(([key, what]) => (
              <tr key={key}>
                <td>
                  <kbd>{key}</kbd>
                </td>
                <td>{what}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <p class="muted">Shortcuts are off while you type in a field.</p>
      </div>
    </div>
  );
}
