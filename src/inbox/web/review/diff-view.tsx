/** Proposed vs edited args, one row per changed path. */
import { pretty } from "../format.js";
import { VisibleText } from "../visible-text.js";
import type { ArgChange } from "./args-diff.js";

export function DiffView({ changes, title }: { changes: ArgChange[]; title?: string }) {
  if (changes.length === 0) return <p class="muted diff-empty">No changes to the proposed args.</p>;
  return (
    <div class="diff">
      {title && <h4>{title}</h4>}
      {changes.map((c) => (
        <div class="diff-row" key={c.path}>
          <div class="diff-path">
            <VisibleText text={c.path} />
          </div>
          <pre class="diff-old">
            <VisibleText
              text={c.proposed === undefined ? "(not set)" : `- ${pretty(c.proposed)}`}
            />
          </pre>
          <pre class="diff-new">
            <VisibleText text={c.edited === undefined ? "(removed)" : `+ ${pretty(c.edited)}`} />
          </pre>
        </div>
      ))}
    </div>
  );
}
