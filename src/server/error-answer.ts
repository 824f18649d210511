// An error body in the form the client asked for: our JSON, or LangGraph's plain text.

/** An error as `errorResponse` gives it: status, JSON body and extra headers. */
export interface ErrorAnswer {
  status: number;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
}

/** Whether the client's `Accept` header names JSON (the inbox and the terminal reviewer send it). */
export function wantsJson(accept: string | undefined | null): boolean {
  return accept?.toLowerCase().includes("application/json") ?? false;
}

/**
 * The response for an error: `{ error: { code, message, fields? } }` to a client that asks
 * for JSON; to any other client (the SDK client, `curl`) the message as plain text, as
 * LangGraph's server answers, so the SDK's error reads `HTTP 404: Assistant not found: …`.
 * The text adds each field at fault on a line of its own.
 *
 * @example
 * return errorAnswer(c.req.header("accept"), errorResponse(error));
 */
export function errorAnswer(accept: string | undefined | null, answer: ErrorAnswer): Response {
  const { status, body } = answer;
  if (wantsJson(accept)) {
    return Response.json(body, { status, ...(answer.headers && { headers: answer.headers }) });
  }
  const error = body.error as
    | { message?: string; fields?: Array<{ path: string; message: string }> }
    | undefined;
  const lines = [error?.message ?? `HTTP ${status}`];
  for (const field of error?.fields ?? []) lines.push(`${field.path}: ${field.message}`);
  return new Response(lines.join("\n"), {
    status,
    headers: { "Content-Type": "text/plain; charset=UTF-8", ...answer.headers },
  });
}
