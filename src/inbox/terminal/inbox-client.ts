import type { ActionRequest, ReviewConfig } from "../../agent/index.js";
import { StateweaverError } from "../../errors/index.js";

/**
 * One thing waiting for a person, as `GET /inbox/items` lists it.
 *
 * @example
 * const item: InboxItem = { threadId: "t1", graphId: "ops", interruptId: "i1", kind: "interrupt",
 *   node: "tools", ns: "", value: { question: "Which folder?" }, checkpointId: "c1",
 *   waitingSince: "2026-12-03T10:00:00Z", threadMetadata: {}, summary: "Which folder?" };
 */
export interface InboxItem {
  threadId: string;
  graphId: string;
  interruptId: string;
  kind: "tool_review" | "interrupt" | "breakpoint";
  node: string;
  ns: string;
  value: unknown;
  checkpointId: string;
  waitingSince: string;
  threadMetadata: Record<string, unknown>;
  summary: string;
}

/** The value of a `tool_review` item. */
export interface ToolReviewValue {
  actionRequests: ActionRequest[];
  reviewConfigs: ReviewConfig[];
}

/**
 * A message as the server sends it (LangChain's serialized shape; our own shape is read too).
 *
 * @example
 * const m: WireMessage = { type: "ai", content: "Removing 2 temp files." };
 */
export interface WireMessage {
  type?: string;
  role?: string;
  content: unknown;
  name?: string;
  tool_calls?: Array<{ name: string; args: unknown }>;
}

/** What the terminal reads of `GET /inbox/threads/:threadId`. */
export interface ThreadView {
  thread: { threadId: string; graphId: string; status: string; metadata: Record<string, unknown> };
  messages: WireMessage[];
  pending: InboxItem[];
  checkpointId: string;
}

/**
 * The body of `POST /inbox/threads/:threadId/decisions`.
 *
 * @example
 * const body: DecisionBody = { checkpointId: "c1", interruptId: "i1", answer: { decisions: [{ type: "approve" }] },
 *   reviewer: "dana", idempotencyKey: crypto.randomUUID() };
 */
export interface DecisionBody {
  checkpointId: string;
  interruptId: string;
  answer: unknown;
  reviewer?: string;
  idempotencyKey: string;
  /** The reviewer approved args they had not expanded in full. */
  unexpandedApproveOverride?: boolean;
}

/**
 * The server answered with an error (`{ error: { code, message, fields? } }`). `pending`
 * is what waits on the thread now, sent with a 409 `STALE_DECISION`.
 */
export class InboxRequestError extends StateweaverError {
  readonly status: number;
  readonly fields: Array<{ path: string; message: string }>;
  readonly pending: InboxItem[] | undefined;
  constructor(status: number, body: unknown, what: string) {
    const error = (body as { error?: { code?: unknown; message?: unknown; fields?: unknown } })
      ?.error;
    const message =
      typeof error?.message === "string"
        ? error.message
        : `${what} failed with HTTP ${status} and no error message.`;
    super(typeof error?.code === "string" ? error.code : `HTTP_${status}`, message);
    this.status = status;
    this.fields = Array.isArray(error?.fields) ? (error.fields as InboxRequestError["fields"]) : [];
    const pending = (body as { pending?: unknown })?.pending;
    this.pending = Array.isArray(pending) ? (pending as InboxItem[]) : undefined;
  }
}

/** The server could not be reached at all. */
export class ServerUnreachableError extends StateweaverError {
  constructor(url: string, cause: unknown) {
    const inner = (cause as { cause?: { code?: string; message?: string } })?.cause;
    const reason = inner?.code ?? inner?.message ?? String(cause);
    super(
      "SERVER_UNREACHABLE",
      `Cannot reach the stateweaver server at ${url} (${reason}). Start it with \`npx stateweaver serve\`, or point --url at it.`,
      { cause },
    );
  }
}

/**
 * The inbox endpoints of a stateweaver server, over HTTP: all the terminal reviewer uses.
 *
 * @example
 * const inbox = new InboxClient({ url: "http://127.0.0.1:2024", token: process.env.STATEWEAVER_TOKEN });
 * const { items } = await inbox.items();
 */
export class InboxClient {
  readonly url: string;
  readonly #token: string | undefined;
  readonly #fetch: typeof fetch;

  constructor(options: { url: string; token?: string; fetch?: typeof fetch }) {
    this.url = options.url.replace(/\/+$/, "");
    this.#token = options.token || undefined;
    this.#fetch = options.fetch ?? fetch;
  }

  items(graph?: string): Promise<{ items: InboxItem[]; counts: { total: number } }> {
    const query = new URLSearchParams({ limit: "50", ...(graph && { graph }) });
    return this.#json("GET", `/inbox/items?${query}`, "Listing the inbox");
  }

  thread(threadId: string): Promise<ThreadView> {
    return this.#json("GET", `/inbox/threads/${encodeURIComponent(threadId)}`, "Reading a thread");
  }

  /** `runId` is null while a review that needs several approvers waits for more. */
  decide(
    threadId: string,
    body: DecisionBody,
  ): Promise<{ runId: string | null; approval?: { required: number; approvedBy: unknown[] } }> {
    const path = `/inbox/threads/${encodeURIComponent(threadId)}/decisions`;
    return this.#json("POST", path, "Sending the decision", body);
  }

  /** Waits until a run ends or pauses (LangGraph's join) and returns the thread's values then. */
  follow(threadId: string, runId: string): Promise<Record<string, unknown> | undefined> {
    const path = `/threads/${encodeURIComponent(threadId)}/runs/${encodeURIComponent(runId)}/join`;
    return this.#json("GET", path, "Following the run");
  }

  async #json<T>(method: string, path: string, what: string, body?: unknown): Promise<T> {
    const response = await this.#request(method, path, body);
    const parsed = parse(await response.text());
    if (!response.ok) throw new InboxRequestError(response.status, parsed, what);
    return parsed as T;
  }

  async #request(method: string, path: string, body: unknown) {
    const headers: Record<string, string> = { accept: "application/json" };
    if (body !== undefined) headers["content-type"] = "application/json";
    if (this.#token) headers.authorization = `Bearer ${this.#token}`;
    try {
      return await this.#fetch(`${this.url}${path}`, {
        method,
        headers,
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
    } catch (error) {
      throw new ServerUnreachableError(this.url, error);
    }
  }
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
