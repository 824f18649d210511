/**
 * An action's args as a key/value table. Long values are collapsed with their size shown;
 * the parent learns which ones are still collapsed, because approve waits for them.
 */
import { byteSize, formatBytes, pretty } from "../format.js";
import { VisibleText } from "../visible-text.js";

/** A value longer than this (as text) is collapsed until the reviewer opens it. */
export const COLLAPSE_AT = 600;

export function collapsedKeys(args: Record<string, unknown>): string[] {
  return Object.entries(args)
    .filter(([, v]) => pretty(v).length > COLLAPSE_AT)
    .map(([k]) => k);
}

export function ArgsView(props: {
  args: Record<string, unknown>;
  expanded: ReadonlySet<string>;
  onExpand: (key: string) => void;
}) {
  const entries = Object.entries(props.args);
  if (entries.length === 0) return <p class="muted">No arguments.</p>;
  return (
    <dl class="args">
      {entries.map(([key, value]) => {
        const text = pretty(value);
        const long = text.length > COLLAPSE_AT;
        const open = !long || props.expanded.has(key);
        return (
          <div class="arg" key={key}>
            <dt>
              <VisibleText text={key} />
            </dt>
            <dd>
              <pre class={open ? "value" : "value clipped"}>
                <VisibleText text={open ? text : `${text.slice(0, 240)}…`} />
              </pre>
              {long && !open && (
                <button
                  type="button"
                  class="btn small"
                  data-expand={key}
                  onClick={() => props.onExpand(key)}
                >
                  Show all ({formatBytes(byteSize(value))})
                </button>
              )}
            </dd>
          </div>
        );
      })}
    </dl>
  );
}
