/**
 * A plain `interrupt(value)` gets a JSON answer box (its value shown as the graph wrote it);
 * a breakpoint gets a Continue button (the resume value is null).
 */
import { useState } from "preact/hooks";
import { pretty } from "../format.js";
import type { InboxItem } from "../wire.js";
import { StaleNotice } from "./stale-notice.js";
import { useDecision } from "./use-decision.js";

export function InterruptAnswer(props: {
  item: InboxItem;
  onSent: (runId: string) => void;
  onReload: () => void;
}) {
  const { item } = props;
  const [text, setText] = useState('""');
  const [error, setError] = useState<string | null>(null);
  const { state, submit } = useDecision(item, props.onSent);
  const busy = state.status === "sending" || state.status === "sent";

  if (state.status === "stale")
    return (
      <StaleNotice
        seen={item}
        pending={state.pending}
        running={state.running}
        onReload={props.onReload}
      />
    );

  const serverError =
    state.status === "invalid"
      ? state.error.message
      : state.status === "failed"
        ? state.message
        : null;

  if (item.kind === "breakpoint")
    return (
      <div class="review breakpoint">
        <p>
          The run stopped at a breakpoint at <code>{item.node}</code>. Continue runs it from here.
        </p>
        <div class="submit-bar">
          {serverError && <span class="field-error">{serverError}</span>}
          <button
            type="button"
            class="btn primary"
            disabled={busy}
            onClick={() => void submit(null)}
          >
            {busy ? "Continuing…" : "Continue"}
          </button>
        </div>
      </div>
    );

  const send = () => {
    let answer: unknown;
    try {
      answer = JSON.parse(text);
    } catch (e) {
      setError(`Not valid JSON: ${(e as Error).message}. Strings need quotes: "yes".`);
      return;
    }
    setError(null);
    void submit(answer);
  };
  return (
    <form
      class="review interrupt"
      onSubmit={(e) => {
        e.preventDefault();
        send();
      }}
    >
      <div class="model-text">
        <span class="model-label">The graph asks</span>
        <pre>{pretty(item.value)}</pre>
      </div>
      <div class={error ? "field invalid" : "field"}>
        <label for="interrupt-answer">
          Answer (JSON: a string in quotes, a number, an object…)
        </label>
        <textarea
          id="interrupt-answer"
          rows={4}
          value={text}
          onInput={(e) => setText((e.currentTarget as HTMLTextAreaElement).value)}
          onKeyDown={(e) => {
            if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
              e.preventDefault();
              send();
            }
          }}
        />
        {(error ?? serverError) && (
          <p class="field-error" role="alert">
            {error ?? serverError}
          </p>
        )}
      </div>
      <div class="submit-bar">
        <button type="submit" class="btn primary" disabled={busy}>
          {busy ? "Sending…" : "Send answer"}
        </button>
      </div>
    </form>
  );
}
