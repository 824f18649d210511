/**
 * Every request the inbox makes goes through here: same-origin fetch with the session
 * cookie, the CSRF header on every POST, and errors turned into `ApiError`.
 */
import { reviewerName } from "./reviewer.js";
import type {
  Approval,
  Decision,
  DecisionBody,
  FieldError,
  GraphShape,
  InboxItem,
  InboxList,
  ReviewReceipt,
  SignInState,
  ThreadView,
} from "./wire.js";

/** A non-2xx answer: the server's `{ error: { code, message, fields? } }` plus the raw body. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly fields: FieldError[],
    readonly body: Record<string, unknown>,
  ) {
    super(message);
  }
}

/** Called when the server answers 401, so the app can show the login form. */
let onUnauthorized: () => void = () => {};
export function whenUnauthorized(callback: () => void): void {
  onUnauthorized = callback;
}

function csrfToken(): string {
  const match = document.cookie.split("; ").find((c) => c.startsWith("sw_csrf="));
  return match ? decodeURIComponent(match.slice("sw_csrf=".length)) : "";
}

async function request<T>(method: "GET" | "POST", path: string, body?: unknown): Promise<T> {
  try {
    return await send<T>(method, path, body);
  } catch (e) {
    // A restarted server may have a new CSRF secret: get a fresh cookie and try once more.
    if (!(e instanceof ApiError && e.status === 403 && method === "POST" && path !== "/auth/csrf"))
      throw e;
    await send("GET", "/auth/csrf").catch(() => {});
    return send<T>(method, path, body);
  }
}

async function send<T>(method: "GET" | "POST", path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: "application/json" };
  if (method === "POST") {
    headers["content-type"] = "application/json";
    headers["x-csrf-token"] = csrfToken();
  }
  const res = await fetch(path, {
    method,
    headers,
    credentials: "same-origin",
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    // Not JSON (a proxy's error page, say): the status below still explains it.
  }
  if (!res.ok) {
    const data = (json && typeof json === "object" ? json : {}) as Record<string, unknown>;
    const err = (data.error ?? {}) as { code?: string; message?: string; fields?: FieldError[] };
    if (res.status === 401) onUnauthorized();
    throw new ApiError(
      res.status,
      err.code ?? `HTTP_${res.status}`,
      err.message ?? (typeof data.detail === "string" ? data.detail : `${method} ${path} failed`),
      Array.isArray(err.fields) ? err.fields : [],
      data,
    );
  }
  return json as T;
}

const enc = encodeURIComponent;

export const api = {
  /** Sets the `sw_csrf` cookie (on loopback without a token; otherwise login sets it). */
  csrf: () => request<SignInState>("GET", "/auth/csrf"),
  login: (token: string) => request<unknown>("POST", "/auth/login", { token }),
  logout: () => request<unknown>("POST", "/auth/logout", {}),
  items: (graph?: string) =>
    request<InboxList>("GET", `/inbox/items?limit=100${graph ? `&graph=${enc(graph)}` : ""}`),
  graphs: () =>
    request<Array<{ graphId: string; name?: string } & GraphShape>>("GET", "/inbox/graphs"),
  thread: (threadId: string) => request<ThreadView>("GET", `/inbox/threads/${enc(threadId)}`),
  decide: (threadId: string, body: DecisionBody) =>
    request<
      | { runId: string; decision: Decision }
      | { runId: null; approval: { required: number; approvedBy: Approval[] } }
    >(
      "POST",
      `/inbox/threads/${enc(threadId)}/decisions`,
      reviewerName() ? { reviewer: reviewerName(), ...body } : body,
    ),
  review: (interruptId: string) =>
    request<ReviewReceipt>("GET", `/inbox/reviews/${enc(interruptId)}`),
  startThread: (graphId: string, input: unknown) =>
    request<{ threadId: string; runId: string }>("POST", "/inbox/threads", { graphId, input }),
};

/** What a 409 STALE_DECISION carries: the pending items, and whether the thread is running. */
export function stalePending(error: ApiError): { pending: InboxItem[]; running: boolean } {
  const pending = Array.isArray(error.body.pending) ? (error.body.pending as InboxItem[]) : [];
  return { pending, running: error.body.threadStatus === "busy" };
}

/** Paths the SSE streams live at (EventSource sends the session cookie by itself). */
export const streams = {
  inbox: "/inbox/events",
  run: (threadId: string, runId: string) => `/threads/${enc(threadId)}/runs/${enc(runId)}/stream`,
};
