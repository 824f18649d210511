// Which resource and action each API request touches, as LangGraph's auth handlers name them.
import type { AuthEvent } from "./authorize.js";

/**
 * What a request does, read from its method and path alone (no I/O), so the auth
 * middleware can run the right handler before any route, and a route added later under a
 * known prefix is covered by its method.
 *
 * - `thread`: one thread (`threadId`); a user the handler's filters do not let see it gets
 *   `hidden` (404 as LangGraph answers; 409 for a copy; an SSE error event for a joined
 *   stream). `startsRun` marks a request whose body is a run (its `metadata` is the handler's).
 * - `new-thread`, `thread-search`, `thread-prune` (the threads its body names),
 *   `new-run` (no thread yet), `inbox-list`, `review-link`
 *   (a decided review, whose thread is known only from the answer).
 * - `thread-command` (`threadId`): a `threads.stream` command, a read of the thread unless
 *   its body's method runs on it (`run.start`, `input.respond`, `state.fork`: `create_run`).
 * - `run` (`runId`): a run named without its thread, guarded as a read of its thread;
 *   `run-cancel`: the runs the body names, each an update of its thread.
 * - `assistant` (`assistantId`), `new-assistant`, `assistant-search`.
 * - `store`: the body or query names the namespace and key.
 * - `new-cron` (on a thread, `threadId`: the caller must be able to run on it),
 *   `cron-search`, `cron` (`cronId`).
 *
 * @example
 * requestEvent("GET", "/threads/t1/history"); // { kind: "thread", event: "threads:read", threadId: "t1", hidden: 404 }
 */
export type RequestEvent =
  | {
      kind: "thread";
      event: AuthEvent;
      threadId: string;
      hidden: 404 | 409 | "stream";
      startsRun?: boolean;
    }
  | {
      kind:
        | "new-thread"
        | "thread-search"
        | "thread-prune"
        | "new-run"
        | "run-cancel"
        | "inbox-list"
        | "review-link";
      event: AuthEvent;
    }
  | { kind: "thread-command"; event: AuthEvent; threadId: string }
  | { kind: "run"; event: AuthEvent; runId: string }
  | { kind: "assistant"; event: AuthEvent; assistantId: string }
  | { kind: "new-assistant" | "assistant-search"; event: AuthEvent }
  | { kind: "store"; event: AuthEvent }
  | { kind: "new-cron"; event: AuthEvent; threadId?: string }
  | { kind: "cron-search"; event: AuthEvent }
  | { kind: "cron"; event: AuthEvent; cronId: string };

const segment = "([^/]+)";
const path = (pattern: string) => new RegExp(`^${pattern.replaceAll(":id", segment)}/?$`);

/** Thread routes, most specific first: [method, path, event, hidden?, startsRun?]. */
const THREAD_ROUTES: Array<[string, RegExp, AuthEvent, (404 | 409 | "stream")?, boolean?]> = [
  ["POST", path("/threads/:id/runs"), "threads:create_run", 404, true],
  ["POST", path("/threads/:id/runs/wait"), "threads:create_run", 404, true],
  ["POST", path("/threads/:id/runs/stream"), "threads:create_run", 404, true],
  ["GET", path("/threads/:id/runs/:id/stream"), "threads:read", "stream"],
  ["POST", path("/threads/:id/runs/:id/cancel"), "threads:update"],
  ["DELETE", path("/threads/:id/runs/:id"), "threads:delete"],
  ["POST", path("/threads/:id/copy"), "threads:read", 409],
  ["POST", path("/threads/:id/history"), "threads:read"],
  // The SDK's `threads.stream`: its event streams read (its commands: `thread-command`).
  ["POST", path("/threads/:id/stream/events"), "threads:read"],
  // Its WebSocket (the upgrade): a read; each command on it is guarded as it is sent.
  ["GET", path("/threads/:id/stream/events"), "threads:read"],
  ["POST", path("/threads/:id/state"), "threads:update"],
  ["POST", path("/threads/:id/state/checkpoint"), "threads:read"],
  ["POST", path("/inbox/threads/:id/decisions"), "threads:create_run", 404],
];

/** The event for other methods on a thread's paths. */
const BY_METHOD: Record<string, AuthEvent> = {
  GET: "threads:read",
  HEAD: "threads:read",
  POST: "threads:update",
  PUT: "threads:update",
  PATCH: "threads:update",
  DELETE: "threads:delete",
};

const ASSISTANT_BY_METHOD: Record<string, AuthEvent> = {
  GET: "assistants:read",
  HEAD: "assistants:read",
  PATCH: "assistants:update",
  PUT: "assistants:update",
  DELETE: "assistants:delete",
};

/** What `method` on `pathname` does, or `undefined` for requests no handler guards (health, graphs). */
export function requestEvent(method: string, pathname: string): RequestEvent | undefined {
  // Crons first: a thread's cron path lies under the thread's.
  const threadCron = /^\/threads\/([^/]+)\/runs\/crons\/?$/.exec(pathname);
  if (method === "POST" && threadCron)
    return {
      kind: "new-cron",
      event: "crons:create",
      threadId: decodeURIComponent(threadCron[1]!),
    };
  if (method === "POST" && /^\/runs\/crons\/?$/.test(pathname))
    return { kind: "new-cron", event: "crons:create" };
  if (method === "POST" && /^\/runs\/crons\/(search|count)\/?$/.test(pathname))
    return { kind: "cron-search", event: "crons:search" };
  const cron = /^\/runs\/crons\/([^/]+)\/?$/.exec(pathname);
  const cronEvent = ({ PATCH: "crons:update", DELETE: "crons:delete" } as const)[method as "PATCH"];
  if (cron && cronEvent)
    return { kind: "cron", event: cronEvent, cronId: decodeURIComponent(cron[1]!) };
  const command = /^\/threads\/([^/]+)\/commands\/?$/.exec(pathname);
  if (method === "POST" && command)
    return {
      kind: "thread-command",
      event: "threads:read",
      threadId: decodeURIComponent(command[1]!),
    };
  for (const [m, pattern, event, hidden, startsRun] of THREAD_ROUTES) {
    const match = method === m ? pattern.exec(pathname) : null;
    if (match) {
      return {
        kind: "thread",
        event,
        threadId: decodeURIComponent(match[1]!),
        hidden: hidden ?? 404,
        ...(startsRun && { startsRun }),
      };
    }
  }
  if (method === "POST" && /^\/threads\/?$/.test(pathname))
    return { kind: "new-thread", event: "threads:create" };
  if (method === "POST" && /^\/threads\/(search|count)\/?$/.test(pathname))
    return { kind: "thread-search", event: "threads:search" };
  // Before the per-thread paths: "prune" is not a thread id, the body names the threads.
  if (method === "POST" && /^\/threads\/prune\/?$/.test(pathname))
    return { kind: "thread-prune", event: "threads:delete" };
  const thread = /^\/(?:inbox\/)?threads\/([^/]+)(?:\/.*)?$/.exec(pathname);
  if (thread && BY_METHOD[method]) {
    return {
      kind: "thread",
      event: BY_METHOD[method]!,
      threadId: decodeURIComponent(thread[1]!),
      hidden: 404,
    };
  }
  if (method === "POST" && /^\/runs\/cancel\/?$/.test(pathname))
    return { kind: "run-cancel", event: "threads:update" };
  const run = /^\/runs\/([^/]+)\/stream\/?$/.exec(pathname);
  if (method === "GET" && run)
    return { kind: "run", event: "threads:read", runId: decodeURIComponent(run[1]!) };
  if (method === "POST" && /^\/(runs(\/(wait|stream|batch))?|inbox\/threads)\/?$/.test(pathname))
    return { kind: "new-run", event: "threads:create_run" };
  if (method === "GET" && /^\/inbox\/(items|events)\/?$/.test(pathname))
    return { kind: "inbox-list", event: "threads:search" };
  if (method === "GET" && /^\/inbox\/reviews\/[^/]+\/?$/.test(pathname))
    return { kind: "review-link", event: "threads:read" };
  if (method === "POST" && /^\/assistants\/?$/.test(pathname))
    return { kind: "new-assistant", event: "assistants:create" };
  if (method === "POST" && /^\/assistants\/(search|count)\/?$/.test(pathname))
    return { kind: "assistant-search", event: "assistants:search" };
  const assistant = /^\/assistants\/([^/]+)(\/[^/]+)?(?:\/.*)?$/.exec(pathname);
  if (assistant) {
    const sub = assistant[2];
    const event =
      method === "POST"
        ? sub === "/latest"
          ? "assistants:update"
          : "assistants:read"
        : ASSISTANT_BY_METHOD[method];
    if (event) return { kind: "assistant", event, assistantId: decodeURIComponent(assistant[1]!) };
  }
  if (/^\/store\/items\/?$/.test(pathname)) {
    const event = ({ PUT: "store:put", GET: "store:get", DELETE: "store:delete" } as const)[
      method as "PUT"
    ];
    if (event) return { kind: "store", event };
  }
  if (method === "POST" && /^\/store\/items\/search\/?$/.test(pathname))
    return { kind: "store", event: "store:search" };
  if (method === "POST" && /^\/store\/namespaces\/?$/.test(pathname))
    return { kind: "store", event: "store:list_namespaces" };
  return undefined;
}
