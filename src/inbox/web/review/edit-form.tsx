/** The edit decision: one input per arg, typed by the tool's JSON Schema, errors at the field. */
import { useLayoutEffect, useRef } from "preact/hooks";
import { hasHiddenCharacters, markHidden } from "../../hidden-characters.js";
import { VisibleText } from "../visible-text.js";
import type { Field } from "./schema-fields.js";

export function EditForm(props: {
  idPrefix: string;
  fields: Field[];
  texts: Record<string, string>;
  errors: Record<string, string>;
  onChange: (key: string, text: string) => void;
  focus: boolean;
}) {
  const form = useRef<HTMLDivElement | null>(null);
  useLayoutEffect(() => {
    if (props.focus) form.current?.querySelector<HTMLElement>("input, textarea, select")?.focus();
  }, [props.focus]);
  return (
    <div class="edit-form" ref={form}>
      {props.fields.map((field) => {
        const id = `${props.idPrefix}-${field.key}`;
        const error = props.errors[field.key];
        const value = props.texts[field.key] ?? "";
        const common = {
          id,
          name: field.key,
          "aria-invalid": error ? true : undefined,
          "aria-describedby": error ? `${id}-error` : undefined,
        };
        const onInput = (e: Event) =>
          props.onChange(field.key, (e.currentTarget as HTMLInputElement).value);
        return (
          <div class={error ? "field invalid" : "field"} key={field.key}>
            <label for={id}>
              <VisibleText text={field.key} />
              {field.required && <span class="req"> *</span>}
              <span class="kind">{field.kind === "text" ? "string" : field.kind}</span>
            </label>
            {field.schema.description && (
              <p class="hint">
                <VisibleText text={field.schema.description} />
              </p>
            )}
            {field.kind === "boolean" ? (
              <select {...common} value={value} onChange={onInput}>
                <option value="true">true</option>
                <option value="false">false</option>
              </select>
            ) : field.kind === "enum" ? (
              <select {...common} value={value} onChange={onInput}>
                {(field.schema.enum ?? []).map((option) => (
                  <option key={JSON.stringify(option)} value={JSON.stringify(option)}>
                    {markHidden(typeof option === "string" ? option : JSON.stringify(option))}
                  </option>
                ))}
              </select>
            ) : field.kind === "json" || field.kind === "text" ? (
              <textarea
                {...common}
                rows={field.kind === "json" ? 5 : 4}
                value={value}
                onInput={onInput}
              />
            ) : field.kind === "string" ? (
              <input {...common} type="text" value={value} onInput={onInput} />
            ) : (
              <input
                {...common}
                type="number"
                step={field.kind === "integer" ? 1 : "any"}
                value={value}
                onInput={onInput}
              />
            )}
            {hasHiddenCharacters(value) && (
              <p class="hint hidden-shown" data-testid="field-hidden-characters">
                Holds hidden characters; it reads: <VisibleText text={value} />
              </p>
            )}
            {error && (
              <p class="field-error" id={`${id}-error`} role="alert">
                {error}
              </p>
            )}
          </div>
        );
      })}
    </div>
  );
}
