// Applies the auth file's `on` handlers to every API request, in one place before the routes.
import type { Context, MiddlewareHandler } from "hono";
import { AccessRefusedError } from "../../errors/index.js";
import { RequestError } from "../errors.js";
import { cancelManyBody, runsToCancel } from "../runs-to-cancel.js";
import { findThread, type ServerContext } from "../server-context.js";
import { type AuthFilters, bothContained, containmentOf, matchesFilters } from "./auth-filters.js";
import { type AuthEvent, authorize } from "./authorize.js";
import type { AuthHandlers } from "./custom-auth.js";
import type { RequestIdentity } from "./identity.js";
import { type RequestEvent, requestEvent } from "./request-events.js";

declare module "hono" {
  interface ContextVariableMap {
    /** The `threads:search` handler's filters, for routes that list threads themselves (the inbox). */
    threadFilters: AuthFilters | undefined;
  }
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** The request's JSON body, or `undefined` when it has none (or it is not JSON: the route says so). */
async function bodyOf(c: Context): Promise<unknown> {
  const text = await c.req.text();
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Hands the route `body` in place of what the client sent (the handler changed it). */
function replaceBody(c: Context, body: unknown): void {
  c.req.bodyCache = { text: Promise.resolve(JSON.stringify(body)) as unknown as string };
}

/** Replaces a JSON answer the route gave by what `change` makes of it. */
async function changeAnswer(c: Context, change: (json: unknown) => unknown): Promise<void> {
  if (!c.res.ok || !c.res.headers.get("content-type")?.includes("application/json")) return;
  const changed = change(await c.res.clone().json());
  const headers = new Headers(c.res.headers);
  headers.delete("content-length");
  c.res = new Response(JSON.stringify(changed), { status: c.res.status, headers });
}

/** The `threads.stream` commands that start a run on the thread (the others read it). */
const RUN_COMMANDS = new Set(["run.start", "input.respond", "state.fork"]);

const notFound = (what: string) => new AccessRefusedError(404, `${what} not found.`);

/** What LangGraph's handlers see for a run: `RunsCreate`, with the request body as `kwargs`. */
const runValue = (threadId: string | undefined, body: Json) => ({
  thread_id: threadId,
  assistant_id: body.assistant_id,
  run_id: undefined,
  status: "pending",
  metadata: isObject(body.metadata) ? { ...body.metadata } : {},
  multitask_strategy: body.multitask_strategy ?? "reject",
  if_not_exists: body.if_not_exists ?? "reject",
  after_seconds: body.after_seconds ?? 0,
  kwargs: body,
});

/** The answer for a thread the handler's filters hide, in the form that route answers with. */
function hiddenThread(c: Context, hidden: 404 | 409 | "stream", threadId: string) {
  if (hidden === 409) throw new AccessRefusedError(409, "Thread not found.");
  if (hidden === 404) throw notFound(`Thread "${threadId}"`);
  // A joined stream answers as LangGraph's does: one error event, then the end.
  const frame = `event: error\ndata: ${JSON.stringify({ error: "Error", message: "404: Thread not found" })}\n\n`;
  return c.body(frame, 200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
}

/** True when the thread exists and the filters hide it (a missing thread is the route's 404). */
async function hides(ctx: ServerContext, threadId: string, filters: AuthFilters | undefined) {
  if (!filters) return false;
  const view = await findThread(ctx, threadId).catch(() => undefined);
  return view !== undefined && !matchesFilters(view.record.metadata, filters);
}

/**
 * Runs the auth file's `on(resource/action)` handler for every API request it is mounted
 * before (after `authenticateRequests`), as LangGraph's server does, so no route repeats it:
 * a refusal answers with the handler's status; metadata the handler adds (e.g. `owner`) is
 * what the route stores; filters it returns decide what the user sees: another user's
 * thread or assistant is a 404 (as if it did not exist), searches and the inbox list only
 * matching ones, store items and namespaces are filtered on their value, namespace and key.
 *
 * @example
 * app.use(authenticateRequests(auth));
 * app.use(authorizeResources(auth, context));
 */
export function authorizeResources(auth: AuthHandlers, ctx: ServerContext): MiddlewareHandler {
  return async function authorizeResources(c, next) {
    const who = c.get("identity");
    const found = requestEvent(c.req.method, c.req.path);
    if (!who || !found) return next();
    const outcome = await guard(c, ctx, auth, who, found);
    if (outcome instanceof Response) return outcome;
    await next();
    // Checks on what the route answered (a thrown refusal replaces its answer).
    if (outcome) await outcome();
  };
}

/**
 * Runs the handler for reading the thread (`threads:read`); a thread its filters hide is
 * refused as not found (`AccessRefusedError` 404), as if it did not exist.
 *
 * @example
 * await authorizeThreadRead(auth, ctx, c.get("identity")!, "t1");
 */
export async function authorizeThreadRead(
  auth: AuthHandlers,
  ctx: ServerContext,
  who: RequestIdentity,
  threadId: string,
): Promise<void> {
  const { filters } = await authorize(auth, who, "threads:read", { thread_id: threadId });
  if (await hides(ctx, threadId, filters)) throw notFound(`Thread "${threadId}"`);
}

/**
 * Runs the handler for one `threads.stream` command (either transport): a read of the
 * thread, or for `run.start`, `input.respond` and `state.fork` a run on it
 * (`threads:create_run`), whose `params.metadata` becomes what the handler made of it (the
 * command returned is then a changed copy). Refusals throw `AccessRefusedError`.
 *
 * @example
 * const command = await authorizeThreadCommand(auth, ctx, who, "t1", { id: 1, method: "run.start", params });
 */
export async function authorizeThreadCommand<C extends Json>(
  auth: AuthHandlers,
  ctx: ServerContext,
  who: RequestIdentity,
  threadId: string,
  command: C,
): Promise<C> {
  const startsRun = typeof command.method === "string" && RUN_COMMANDS.has(command.method);
  if (!startsRun) {
    await authorizeThreadRead(auth, ctx, who, threadId);
    return command;
  }
  // A run on the thread: its metadata is what the handler makes of it (e.g. an owner).
  const params = isObject(command.params) ? command.params : {};
  const value = runValue(threadId, params);
  const { filters } = await authorize(auth, who, "threads:create_run", value);
  if (await hides(ctx, threadId, filters)) throw notFound(`Thread "${threadId}"`);
  return { ...command, params: { ...params, metadata: value.metadata } };
}

/**
 * What the guard decided: an answer when the request ends here, a check to run on the
 * route's answer (filters the route cannot apply itself), or nothing (the route runs as is).
 */
type Outcome = Response | (() => Promise<void>) | undefined;

/** Runs the handler for `found` and applies what it decided to the request. */
async function guard(
  c: Context,
  ctx: ServerContext,
  auth: AuthHandlers,
  who: RequestIdentity,
  found: RequestEvent,
): Promise<Outcome> {
  switch (found.kind) {
    case "thread": {
      const body = found.startsRun || c.req.method === "PATCH" ? await bodyOf(c) : undefined;
      const value = found.startsRun
        ? runValue(found.threadId, isObject(body) ? body : {})
        : {
            thread_id: found.threadId,
            ...(isObject(body) && isObject(body.metadata) && { metadata: { ...body.metadata } }),
          };
      const { filters } = await authorize(auth, who, found.event, value);
      if (await hides(ctx, found.threadId, filters))
        return hiddenThread(c, found.hidden, found.threadId);
      if (isObject(body) && value.metadata !== undefined)
        replaceBody(c, { ...body, metadata: value.metadata });
      return undefined;
    }
    case "thread-command": {
      const body = await bodyOf(c);
      if (!isObject(body)) return undefined; // the route says what is wrong
      const changed = await authorizeThreadCommand(auth, ctx, who, found.threadId, body);
      if (changed !== body) replaceBody(c, changed);
      return undefined;
    }
    case "run": {
      // Known by its thread: guarded as that thread's read (a run that is not: the route's 404).
      const run = await ctx.runs.get(found.runId);
      if (!run) return undefined;
      const asThread = { kind: "thread", event: found.event, threadId: run.threadId } as const;
      return guard(c, ctx, auth, who, { ...asThread, hidden: "stream" });
    }
    case "run-cancel": {
      const body = cancelManyBody.safeParse((await bodyOf(c)) ?? {});
      if (!body.success) return undefined; // the route says what is wrong
      const action = c.req.query("action") === "rollback" ? "rollback" : "interrupt";
      const visible: string[] = [];
      // Each run as an update of its thread: one the handler refuses refuses the request.
      for (const run of await runsToCancel(ctx, body.data)) {
        const value = { thread_id: run.threadId, run_id: run.runId, action };
        const { filters } = await authorize(auth, who, found.event, value);
        if (!(await hides(ctx, run.threadId, filters))) visible.push(run.runId);
        else if (body.data.run_ids) throw notFound(`Run "${run.runId}"`);
      }
      if (visible.length === 0) return c.body(null, 204);
      replaceBody(c, { run_ids: visible });
      return undefined;
    }
    case "new-thread": {
      const body = await bodyOf(c);
      if (!isObject(body)) return undefined;
      const value = {
        thread_id: body.thread_id,
        metadata: isObject(body.metadata) ? { ...body.metadata } : {},
        if_exists: body.if_exists,
      };
      const { filters } = await authorize(auth, who, found.event, value);
      if (typeof body.thread_id === "string" && (await hides(ctx, body.thread_id, filters)))
        throw new AccessRefusedError(409, "Thread already exists.");
      replaceBody(c, { ...body, metadata: value.metadata });
      return undefined;
    }
    case "new-run": {
      const body = await bodyOf(c);
      const runs = Array.isArray(body) ? body : [body];
      const changed: unknown[] = [];
      for (const run of runs) {
        if (!isObject(run)) return undefined;
        const value = runValue(undefined, run);
        await authorize(auth, who, found.event, value);
        changed.push({ ...run, metadata: value.metadata });
      }
      replaceBody(c, Array.isArray(body) ? changed : changed[0]);
      return undefined;
    }
    case "thread-search": {
      const body = (await bodyOf(c)) ?? {};
      if (!isObject(body)) return undefined;
      const value = { ...body, metadata: isObject(body.metadata) ? { ...body.metadata } : {} };
      const { filters } = await authorize(auth, who, found.event, value);
      if (!filters) return undefined;
      if (Array.isArray(body.ids)) {
        const visible: unknown[] = [];
        for (const id of body.ids)
          if (typeof id === "string" && !(await hides(ctx, id, filters))) visible.push(id);
        replaceBody(c, { ...value, ids: visible });
        return undefined;
      }
      return narrowedSearch(c, value, filters);
    }
    case "thread-prune": {
      const body = (await bodyOf(c)) ?? {};
      if (!isObject(body) || !Array.isArray(body.thread_ids)) return undefined;
      const visible: unknown[] = [];
      // Each thread as its own delete: one the handler refuses refuses the request.
      for (const id of body.thread_ids) {
        if (typeof id !== "string") continue;
        const { filters } = await authorize(auth, who, found.event, { thread_id: id });
        if (!(await hides(ctx, id, filters))) visible.push(id);
      }
      replaceBody(c, { ...body, thread_ids: visible });
      return undefined;
    }
    case "inbox-list": {
      const { filters } = await authorize(auth, who, found.event, {});
      c.set("threadFilters", filters);
      return undefined;
    }
    case "review-link": {
      const { filters } = await authorize(auth, who, found.event, {});
      if (!filters) return undefined;
      // The thread is known only from the answer.
      return async () => {
        const threadId = c.res.ok ? ((await c.res.clone().json()) as Json).threadId : undefined;
        if (typeof threadId === "string" && (await hides(ctx, threadId, filters)))
          throw new AccessRefusedError(404, "No decision was recorded for this review.");
      };
    }
    case "new-assistant": {
      const body = await bodyOf(c);
      if (!isObject(body)) return undefined;
      const value = { ...body, metadata: isObject(body.metadata) ? { ...body.metadata } : {} };
      const { filters } = await authorize(auth, who, found.event, value);
      if (typeof body.assistant_id === "string" && filters) {
        const existing = await assistantOf(ctx, body.assistant_id);
        if (existing && !matchesFilters(existing.metadata, filters))
          throw new AccessRefusedError(409, "Assistant already exists.");
      }
      replaceBody(c, { ...body, metadata: value.metadata });
      return undefined;
    }
    case "assistant-search": {
      const body = (await bodyOf(c)) ?? {};
      if (!isObject(body)) return undefined;
      const value = { ...body, metadata: isObject(body.metadata) ? { ...body.metadata } : {} };
      const { filters } = await authorize(auth, who, found.event, value);
      if (!filters) return undefined;
      const equal = Object.fromEntries(
        Object.entries(containmentOf(filters)).filter(([, v]) => !Array.isArray(v)),
      );
      const metadata = bothContained(value.metadata, equal);
      const count = c.req.path.replace(/\/$/, "").endsWith("/count");
      if (metadata === undefined) return c.json(count ? 0 : []);
      replaceBody(c, { ...value, metadata });
      // Assistant search matches metadata by equality: `$contains` is checked on the answer.
      return () =>
        changeAnswer(c, (list) =>
          Array.isArray(list)
            ? list.filter((a) => matchesFilters(isObject(a) ? (a.metadata as Json) : {}, filters))
            : list,
        );
    }
    case "assistant": {
      const body = c.req.method === "PATCH" ? await bodyOf(c) : undefined;
      const value = {
        assistant_id: found.assistantId,
        ...(isObject(body) && {
          ...body,
          metadata: isObject(body.metadata) ? { ...body.metadata } : {},
        }),
      };
      const { filters } = await authorize(auth, who, found.event, value);
      const existing = filters ? await assistantOf(ctx, found.assistantId) : undefined;
      if (existing && !matchesFilters(existing.metadata, filters))
        throw notFound(`Assistant "${found.assistantId}"`);
      if (isObject(body)) replaceBody(c, { ...body, metadata: (value as Json).metadata });
      return undefined;
    }
    case "store":
      return guardStore(c, ctx, auth, who, found.event);
    case "new-cron": {
      const body = await bodyOf(c);
      if (!isObject(body)) return undefined;
      // A thread's cron starts runs on it: only for a caller who may run on that thread.
      if (found.threadId !== undefined) {
        const run = runValue(found.threadId, body);
        const { filters } = await authorize(auth, who, "threads:create_run", run);
        if (await hides(ctx, found.threadId, filters)) throw notFound(`Thread "${found.threadId}"`);
      }
      const value = { ...body, metadata: isObject(body.metadata) ? { ...body.metadata } : {} };
      await authorize(auth, who, found.event, value);
      replaceBody(c, { ...body, metadata: value.metadata });
      return undefined;
    }
    case "cron-search": {
      const body = (await bodyOf(c)) ?? {};
      if (!isObject(body)) return undefined;
      const value = { ...body, metadata: isObject(body.metadata) ? { ...body.metadata } : {} };
      const { filters } = await authorize(auth, who, found.event, value);
      if (!filters) return undefined;
      return narrowedSearch(c, value, filters);
    }
    case "cron": {
      const body = c.req.method === "PATCH" ? await bodyOf(c) : undefined;
      const value = { cron_id: found.cronId, ...(isObject(body) && body) };
      const { filters } = await authorize(auth, who, found.event, value);
      if (!filters) return undefined;
      const existing = await ctx.crons.get(found.cronId).catch(() => undefined);
      if (existing && !matchesFilters(existing.metadata as Json, filters))
        throw notFound(`Cron "${found.cronId}"`);
      return undefined;
    }
  }
}

/**
 * A search (or count) narrowed to what `filters` allow, by metadata containment; answered
 * empty at once when the caller asked for metadata the filters rule out.
 */
function narrowedSearch(
  c: Context,
  value: Json & { metadata: Json },
  filters: AuthFilters,
): Outcome {
  const count = c.req.path.replace(/\/$/, "").endsWith("/count");
  const metadata = bothContained(value.metadata, containmentOf(filters));
  if (metadata === undefined) return c.json(count ? 0 : []);
  replaceBody(c, { ...value, metadata });
  return undefined;
}

/** The assistant, or `undefined` when there is none (the route's 404 says so). */
async function assistantOf(ctx: ServerContext, assistantId: string) {
  try {
    return await ctx.assistants.get(assistantId);
  } catch (error) {
    // Only "no such assistant" is an answer here; the database away is the caller's 503.
    if (error instanceof RequestError && error.status === 404) return undefined;
    throw error;
  }
}

/** What a store item is matched on, as LangGraph does: its value's fields, `namespace` and `key`. */
const storeFields = (namespace: unknown, key: unknown, value: unknown): Json => ({
  ...(isObject(value) ? value : {}),
  namespace: namespace ?? [],
  ...(key != null && { key }),
});

async function guardStore(
  c: Context,
  ctx: ServerContext,
  auth: AuthHandlers,
  who: RequestIdentity,
  event: AuthEvent,
): Promise<Outcome> {
  if (event === "store:get") {
    const ns = c.req.query("namespace");
    const value = { namespace: ns ? ns.split(".") : [], key: c.req.query("key") };
    const { filters } = await authorize(auth, who, event, value);
    if (!filters) return undefined;
    return async () => {
      const item = c.res.ok ? ((await c.res.clone().json()) as Json | null) : null;
      if (item && !matchesFilters(storeFields(item.namespace, item.key, item.value), filters))
        throw notFound("Item");
    };
  }
  const body = await bodyOf(c);
  if (!isObject(body)) return undefined;
  const nsField =
    event === "store:search"
      ? "namespace_prefix"
      : event === "store:list_namespaces"
        ? "prefix"
        : "namespace";
  // The handler sees LangGraph's names (`namespace` for the prefix too) and may change them.
  const { [nsField]: namespace, ...rest } = body;
  const value: Json = { ...rest, namespace };
  const { filters } = await authorize(auth, who, event, value);
  const { namespace: changed, ...others } = value;
  replaceBody(c, { ...others, [nsField]: changed });
  if (!filters) return undefined;
  if (event === "store:put" || event === "store:delete") {
    const existing = Array.isArray(value.namespace)
      ? await ctx.store.get(value.namespace as string[], String(value.key))
      : null;
    if (
      existing &&
      !matchesFilters(storeFields(existing.namespace, existing.key, existing.value), filters)
    )
      throw notFound("Item");
    return undefined;
  }
  return () =>
    changeAnswer(c, (answer) => {
      if (!isObject(answer)) return answer;
      if (Array.isArray(answer.items)) {
        return {
          ...answer,
          items: answer.items.filter(
            (i) => isObject(i) && matchesFilters(storeFields(i.namespace, i.key, i.value), filters),
          ),
        };
      }
      if (Array.isArray(answer.namespaces)) {
        return {
          ...answer,
          namespaces: answer.namespaces.filter((ns) => matchesFilters({ namespace: ns }, filters)),
        };
      }
      return answer;
    });
}
