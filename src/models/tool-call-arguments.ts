import { ModelError } from "../errors/index.js";
import type { ProviderIdentity } from "./provider-error.js";

/**
 * Parses the JSON text a model wrote as a tool call's arguments. Models do sometimes write
 * broken JSON; that is a failed model call (`ModelError`), not a tool failure, because no
 * tool message can answer a call whose arguments nobody can read.
 *
 * @example
 * parseToolCallArguments(identity, { id: "call_1", name: "read_file" }, '{"path":"a.txt"}');
 * // { path: "a.txt" }
 */
export function parseToolCallArguments(
  identity: ProviderIdentity,
  call: { id: string; name: string },
  text: string,
): Record<string, unknown> {
  // Some servers send no text at all for a tool without parameters.
  if (text.trim() === "") return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw malformed(identity, call, text, error instanceof Error ? error.message : String(error));
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw malformed(identity, call, text, "the arguments must be a JSON object");
  }
  return value as Record<string, unknown>;
}

function malformed(
  identity: ProviderIdentity,
  call: { id: string; name: string },
  text: string,
  reason: string,
): ModelError {
  const excerpt = text.length > 200 ? `${text.slice(0, 200)}…` : text;
  return new ModelError(
    identity.provider,
    identity.model,
    `${identity.provider} model "${identity.model}" wrote arguments for tool call "${call.name}" (${call.id}) that are not a JSON object: ${JSON.stringify(excerpt)} (${reason}). Retry the call; if it keeps happening, simplify the tool's schema.`,
  );
}
