/**
 * A plain `interrupt(value)`: its question shown as the graph wrote it, and an answer in the
 * form the value asks for (answer-shape.ts): text for a question, a choice among `options`,
 * JSON where it gives a schema for structure (and on request). A breakpoint gets a Continue
 * button (the resume value is null). Ctrl+Enter sends from anywhere on the page.
 */
import { useState } from "preact/hooks";
import { pretty } from "../format.js";
import { useSubmitKey } from "../keyboard.js";
import { nodeName } from "../node-names.js";
import { HiddenCharactersWarning, VisibleText } from "../visible-text.js";
import type { InboxItem } from "../wire.js";
import { answerShapeOf, questionOf } from "./answer-shape.js";
import { StaleNotice } from "./stale-notice.js";
import { useDecision } from "./use-decision.js";

export function InterruptAnswer(props: {
  item: InboxItem;
  onSent: (runId: string) => void;
  onReload: () => void;
}) {
  const { item } = props;
  const shape = answerShapeOf(item.value);
  const [mode, setMode] = useState<"text" | "json" | "choice">(shape.kind);
  const [text, setText] = useState("");
  const [choice, setChoice] = useState<string | number | boolean | null>(null);
  const [error, setError] = useState<string | null>(null);
  const { state, submit } = useDecision(item, props.onSent);
  const busy = state.status === "sending" || state.status === "sent";
  useSubmitKey(() => {
    if (state.status === "stale") return;
    if (item.kind === "breakpoint") {
      if (!busy) void submit(null);
    } else send();
  });

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
          The run stopped at a breakpoint at <strong>{nodeName(item.node)}</strong>. Continue runs
          it from here.
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
    if (busy) return;
    let answer: unknown;
    if (mode === "json") {
      try {
        answer = JSON.parse(text);
      } catch (e) {
        setError(`Not valid JSON: ${(e as Error).message}. Strings need quotes: "yes".`);
        return;
      }
    } else if (mode === "choice") {
      if (choice === null) {
        setError("Choose one of the options.");
        return;
      }
      answer = choice;
    } else {
      if (text.trim() === "") {
        setError("Write an answer first.");
        return;
      }
      answer = text;
    }
    setError(null);
    void submit(answer);
  };
  const switchTo = (next: "text" | "json") => {
    setMode(next);
    setError(null);
    setText(next === "json" ? JSON.stringify(text) : "");
  };
  const question = questionOf(item.value);
  const onlyQuestion =
    typeof item.value === "string" ||
    (question !== undefined &&
      Object.keys(item.value as object).every((k) => k === "question" || k === "options"));
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
        <pre data-testid="question">
          <VisibleText text={question ?? pretty(item.value)} />
        </pre>
        {question !== undefined && !onlyQuestion && (
          <details class="writes">
            <summary>All it sent</summary>
            <pre>
              <VisibleText text={pretty(item.value)} />
            </pre>
          </details>
        )}
      </div>
      <HiddenCharactersWarning value={item.value} what="this question" />
      {mode === "choice" && shape.kind === "choice" ? (
        <fieldset class={error ? "field invalid options" : "field options"}>
          <legend>Your answer</legend>
          {shape.options.map((option) => (
            <label class="check" key={JSON.stringify(option)}>
              <input
                type="radio"
                name="interrupt-choice"
                checked={choice === option}
                onChange={() => {
                  setChoice(option);
                  setError(null);
                }}
              />{" "}
              <VisibleText text={String(option)} />
            </label>
          ))}
        </fieldset>
      ) : (
        <div class={error ? "field invalid" : "field"}>
          <label for="interrupt-answer">
            {mode === "json"
              ? "Answer as JSON (a string in quotes, a number, an object…)"
              : "Your answer (sent as text)"}
          </label>
          {mode === "json" && shape.kind === "json" && (
            <details class="writes">
              <summary>The shape it asks for (JSON Schema)</summary>
              <pre>{pretty(shape.schema)}</pre>
            </details>
          )}
          <textarea
            id="interrupt-answer"
            rows={mode === "json" ? 5 : 3}
            value={text}
            onInput={(e) => {
              setText((e.currentTarget as HTMLTextAreaElement).value);
              setError(null);
            }}
          />
        </div>
      )}
      {(error ?? serverError) && (
        <p class="field-error" role="alert">
          {error ?? serverError}
        </p>
      )}
      <div class="submit-bar">
        {mode !== "choice" && (
          <button
            type="button"
            class="btn small"
            data-answer-mode={mode === "json" ? "text" : "json"}
            onClick={() => switchTo(mode === "json" ? "text" : "json")}
          >
            {mode === "json" ? "Answer as text instead" : "Answer with JSON instead"}
          </button>
        )}
        <span class="muted">
          <kbd>Ctrl</kbd>+<kbd>Enter</kbd> sends
        </span>
        <button type="submit" class="btn primary" disabled={busy}>
          {busy ? "Sending…" : "Send answer"}
        </button>
      </div>
    </form>
  );
}
