import {
  AbortError,
  isStateweaverError,
  ModelError,
  type StateweaverError,
} from "../errors/index.js";

/** Names the model a failing call was for, so errors can say where to look. */
export interface ProviderIdentity {
  provider: string;
  model: string;
  /** The environment variable the API key comes from, for the 401 hint. */
  apiKeyEnv: string;
}

/**
 * Turns whatever an SDK call threw into a stateweaver error: an `AbortError` when the
 * caller's signal aborted, otherwise a `ModelError` carrying the HTTP status and the
 * provider's own message. Errors that are already typed pass through.
 *
 * @example
 * try { return await client.responses.create(body, { signal }) }
 * catch (error) { throw toModelError(identity, error, signal) }
 */
export function toModelError(
  identity: ProviderIdentity,
  error: unknown,
  signal?: AbortSignal,
): StateweaverError {
  if (isStateweaverError(error)) return error;
  if (signal?.aborted) return new AbortError(signal.reason);
  const status = readStatus(error);
  const providerMessage = readProviderMessage(error, status);
  const what = status === undefined ? "failed" : `failed with HTTP ${status}`;
  const message = `${identity.provider} model "${identity.model}" ${what}: ${sentence(providerMessage)} ${hint(identity, status)}`;
  return new ModelError(identity.provider, identity.model, message, {
    status,
    providerMessage,
    cause: error,
  });
}

// Provider messages may or may not end in a period; ours follow them, so end with exactly one.
function sentence(text: string): string {
  return `${text.replace(/[\s.]+$/, "")}.`;
}

function hint(identity: ProviderIdentity, status: number | undefined): string {
  if (status === undefined)
    return "The provider could not be reached or the call did not complete; check baseURL, timeout and the network.";
  if (status === 401 || status === 403)
    return `Check the API key (the apiKey option or ${identity.apiKeyEnv}) and its permissions.`;
  if (status === 429)
    return "The provider is rate limiting this key or it is out of quota; retry later, or raise maxRetries to let the SDK back off.";
  if (status >= 500) return "The provider had a server error; retrying may help (maxRetries).";
  return "The provider rejected the request.";
}

function readStatus(error: unknown): number | undefined {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === "number" ? status : undefined;
}

// SDKs keep the response body on `error.error`: OpenAI stores the body's `error` object
// there, Anthropic the whole body (`{ type: "error", error: { message } }`).
function readProviderMessage(error: unknown, status: number | undefined): string {
  const body = (error as { error?: unknown } | null)?.error as
    | { message?: unknown; error?: { message?: unknown } }
    | undefined;
  const fromBody = body?.message ?? body?.error?.message;
  if (typeof fromBody === "string" && fromBody) return fromBody;
  const text = error instanceof Error ? error.message : String(error);
  // SDK messages repeat the status ("429 Too many requests"); it is already in the error.
  return status !== undefined && text.startsWith(`${status} `)
    ? text.slice(String(status).length + 1)
    : text;
}

/**
 * A `ModelError` for a failure the provider reported inside a successful HTTP response,
 * e.g. a `response.failed` event in the middle of a stream.
 *
 * @example
 * if (event.type === "error") throw reportedError(identity, event.message);
 */
export function reportedError(identity: ProviderIdentity, providerMessage: string): ModelError {
  return new ModelError(
    identity.provider,
    identity.model,
    `${identity.provider} model "${identity.model}" reported an error: ${sentence(providerMessage)}`,
    { providerMessage },
  );
}
