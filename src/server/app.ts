import { fileURLToPath } from "node:url";
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { AuditLog } from "../audit/index.js";
import type { Checkpointer } from "../checkpoint/index.js";
import { AccessRefusedError } from "../errors/index.js";
import type { CompiledGraph } from "../index.js";
import type { RunQueue, WebhookOptions } from "../runs/index.js";
import type { Store, StoreIndexConfig } from "../store/index.js";
import type { GraphDefaults } from "./assistants.js";
import { type AuthHandlers, authenticateRequests } from "./auth/custom-auth.js";
import {
  authorizeResources,
  authorizeThreadCommand,
  authorizeThreadRead,
} from "./auth/resource-access.js";
import { sessionRevocationsFor } from "./auth/session-revocations.js";
import { UserSessions } from "./auth/user-session.js";
import { authRoutes, checkToken, requireAccess } from "./auth.js";
import type { ConfigurableHeaders } from "./configurable-headers.js";
import { createServerContext } from "./create-context.js";
import { errorAnswer } from "./error-answer.js";
import { errorResponse } from "./errors.js";
import type { FactoryGraph } from "./graph-factory.js";
import { graphRunExecutor, wireRunValues } from "./graph-runs.js";
import { assistantRoutes } from "./routes/assistants.js";
import { auditRoutes } from "./routes/audit.js";
import { cronRoutes, threadCronRoutes } from "./routes/crons.js";
import { healthRoutes, infoRoutes } from "./routes/health.js";
import { inboxRoutes } from "./routes/inbox.js";
import { runRoutes } from "./routes/runs.js";
import { sessionRoutes } from "./routes/sessions.js";
import { statelessRunRoutes } from "./routes/stateless-runs.js";
import { storeRoutes } from "./routes/store.js";
import { threadProtocolRoutes } from "./routes/thread-protocol.js";
import { type SocketAccess, threadProtocolSocketRoutes } from "./routes/thread-protocol-socket.js";
import { threadRoutes } from "./routes/threads.js";
import { uiAssetRoutes, uiRoutes } from "./routes/ui.js";
import { securityHeaders } from "./security-headers.js";
import type { ServerContext } from "./server-context.js";
import { appWebSockets, type ServerWebSockets } from "./server-websockets.js";
import { staticInbox } from "./static-inbox.js";
import type { StoreTtlOptions } from "./store-ttl.js";
import type { UiBundles } from "./ui-bundles.js";

/** Request bodies larger than this are refused with 413 (1 MiB). */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/**
 * What `createServer` needs.
 *
 * @example
 * const options: ServerOptions = { graphs: { ops: agent }, checkpointer: new PGliteCheckpointer("./.stateweaver") };
 */
export interface ServerOptions {
  /**
   * The graphs to host, by graph id (also their assistant id). They run on `checkpointer`.
   * A graph built per run from its config is hosted as `await factoryGraph(factory)`.
   */
  graphs: Record<string, CompiledGraph<any, any> | FactoryGraph>;
  /** Where every hosted graph keeps its threads (the graphs' own checkpointers are not used). */
  checkpointer: Checkpointer;
  /**
   * When set, every API call needs it (bearer token, or a browser login); it must not be
   * empty (`ServerConfigError`). Without it, the API answers only this machine: requests
   * over a loopback connection (through `listen()` or `@hono/node-server`) to a loopback
   * `Host`; `app.request()` and other runtimes, whose connection cannot be seen, need it.
   */
  token?: string;
  /**
   * Custom auth in LangGraph's `Auth` shape (`new Auth().authenticate(…)`): it runs on
   * every API call in place of the shared token, and the user it returns is who decides
   * reviews (their permissions are what review policies' `reviewers` check).
   */
  auth?: AuthHandlers;
  /**
   * With `auth`: the key that signs the inbox's session cookies (a long random string).
   * Without it each process makes its own, so a restart signs every browser out, and
   * servers sharing one address must be given the same secret.
   */
  sessionSecret?: string;
  /** The built inbox to serve at `/`; the package's own `dist/inbox` by default. */
  inboxDir?: string;
  /** Largest request body in bytes; `DEFAULT_BODY_LIMIT` by default. */
  bodyLimit?: number;
  /**
   * Where runs are queued: this process by default; a `PostgresRunQueue` to share them with
   * other servers and `stateweaver worker` processes.
   */
  queue?: RunQueue;
  /** How many runs this server executes at once (default 8); 0 leaves them to workers. */
  concurrency?: number;
  /** How long a run's worker holds it without renewing its lease (see `createRuns`). */
  leaseMs?: number;
  /**
   * The long-term store behind `/store` (and `runtime.store`): by default `storeFor(checkpointer)`,
   * the same PGlite or PostgreSQL database.
   */
  store?: Store;
  /**
   * Semantic search for the default store (the config file's `store.index`): items put are
   * embedded, and a search's `query` ranks them. Ignored when you pass your own `store`.
   */
  storeIndex?: StoreIndexConfig;
  /**
   * How the default store's items expire (the config file's `store.ttl`): the TTL of puts
   * that name none, whether reads refresh it, how often expired items are deleted. Ignored
   * when you pass your own `store`.
   */
  storeTtl?: StoreTtlOptions;
  /**
   * Where decisions are recorded: by default `auditLogFor(checkpointer)`, a hash-chained
   * table in the same PGlite or PostgreSQL database (memory for a `MemoryCheckpointer`).
   */
  audit?: AuditLog;
  /**
   * The permission an auth handler's user needs for `/audit` (export, verify) and to revoke
   * other users' inbox sessions (`POST /auth/revoke`); `"admin"` by default. Under the
   * shared token every caller holds the token, so every caller may read the audit log.
   */
  auditPermission?: string;
  /**
   * Per graph id, the `config` and `context` of its system assistant (what LangGraph's
   * `LANGGRAPH_CONFIG` gives); runs through the assistant take its context under their own.
   */
  graphDefaults?: Record<string, GraphDefaults>;
  /**
   * Where assistants made through the API are kept: by default a store of their own in the
   * checkpointer's PGlite or PostgreSQL database (table `<prefix>assistants_store_items`), so
   * they outlive a restart; in memory beside a `MemoryCheckpointer`. Give a store of your own
   * `putIf` (see `Store`) if several servers share it: without it, changes they make to one
   * assistant at the same moment may lose a version.
   */
  assistantStore?: Store;
  /**
   * Your own Hono app (LangGraph's `http.app`): mounted after authentication and before the
   * API, so its routes answer first and its middleware runs on every API call too.
   */
  routes?: Hono;
  /**
   * Webhooks: who is told that a review waits, was decided or expired, and that a run
   * ended (`webhookOptionsOf(config)`; see docs/webhooks.md).
   */
  webhooks?: WebhookOptions;
  /**
   * Which request headers a run's nodes get in `config.configurable` (LangGraph's
   * `http.configurable_headers`); by default every `x-…` header and `user-agent`, never
   * credentials (see `ConfigurableHeaders`).
   */
  configurableHeaders?: ConfigurableHeaders;
  /**
   * Generative UI (the config file's `ui`): the components bundles `buildUi` made, served at
   * `/ui/<name>` for the SDK's `LoadExternalComponent`, as LangGraph's server serves them.
   */
  ui?: UiBundles;
  /** Called with errors no route expected (answered with a 500); `console.error` by default. */
  onUnexpectedError?: (error: unknown) => void;
}

/** The package's own built inbox, from `src/server` or `dist/src/server`. */
const packageInbox = () =>
  fileURLToPath(
    new URL(
      import.meta.url.includes("/dist/src/") ? "../../../dist/inbox" : "../../dist/inbox",
      import.meta.url,
    ),
  );

/**
 * The Hono app of a stateweaver server: the LangGraph Agent Server API subset, the inbox
 * endpoints and the built inbox, behind the access checks. `context` gives the parts it
 * works with (graphs, runs, the store), e.g. for embedding or tests; `websockets` wires
 * the protocol's WebSocket into the Node server that serves `app` (`createServer` does).
 *
 * @example
 * const { app, context } = createApp({ graphs: { ops: agent }, checkpointer });
 * const res = await app.request("/ok");
 */
export function createApp(options: ServerOptions): {
  app: Hono;
  context: ServerContext;
  websockets: ServerWebSockets;
} {
  // Checked before anything starts (the run workers below), so a refused config leaks nothing.
  const access = { token: checkToken(options.token) };
  const report = options.onUnexpectedError ?? ((error: unknown) => console.error(error));
  const context = createServerContext({
    ...options,
    watchThreads: true,
    onWebhookError: (error) => report(error),
    report,
  });
  const { runs, audit } = context;
  context.crons.start();
  context.storeSweep?.start();
  runs.onSettled(async (change) => {
    // The queue names the thread with the change; a queue that does not is asked.
    const threadId =
      change.threadId ?? (await runs.get(change.runId).catch(() => undefined))?.threadId;
    if (threadId === undefined) return;
    const reason =
      change.status === "interrupted"
        ? "paused"
        : change.status === "error"
          ? "failed"
          : "finished";
    context.events.publish(threadId, reason);
  });
  runs.onDeadline((threadId) => context.events.publish(threadId, "deadline"));
  const concurrency = options.concurrency ?? 8;
  if (concurrency > 0)
    runs
      .work({
        concurrency,
        execute: graphRunExecutor({ audit, webhooks: runs.webhooks }),
        values: wireRunValues,
      })
      // A server closed while its workers still start meets a closed store: not a fault.
      .catch((error) => {
        if (!runs.closed) report(error);
      });
  const limit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;

  const app = new Hono();
  const websockets = appWebSockets(app, { maxPayload: limit, report });
  app.use(securityHeaders());
  app.use(
    bodyLimit({
      maxSize: limit,
      onError: (c) =>
        errorAnswer(c.req.header("accept"), {
          status: 413,
          body: {
            error: {
              code: "BODY_TOO_LARGE",
              message: `The request body is over ${limit} bytes; send less (large payloads belong in files, not in thread state).`,
            },
          },
        }),
    }),
  );
  app.use(staticInbox(options.inboxDir ?? packageInbox()));
  app.route("/", healthRoutes());
  const ui = options.ui ?? new Map();
  app.route("/ui", uiAssetRoutes(ui));
  const sessions = options.auth
    ? new UserSessions(options.sessionSecret, sessionRevocationsFor(options.checkpointer))
    : undefined;
  app.route("/auth", authRoutes({ ...access, auth: options.auth, sessions }));
  app.use(options.auth ? authenticateRequests(options.auth, sessions) : requireAccess(access));
  if (options.auth) app.use(authorizeResources(options.auth, context));
  app.route("/auth", sessionRoutes(sessions, context.auditPermission));
  if (options.routes) app.route("/", options.routes);
  app.route("/", infoRoutes(context));
  app.route("/ui", uiRoutes(ui));
  app.route("/assistants", assistantRoutes(context));
  app.route("/runs/crons", cronRoutes(context));
  app.route("/threads", threadCronRoutes(context));
  app.route("/threads", threadRoutes(context));
  app.route("/threads", runRoutes(context));
  app.route("/threads", threadProtocolRoutes(context));
  app.route(
    "/threads",
    threadProtocolSocketRoutes(context, {
      websockets,
      access: options.auth && socketAccess(options.auth, context),
      report,
    }),
  );
  app.route("/runs", statelessRunRoutes(context));
  app.route("/inbox", inboxRoutes(context));
  app.route("/store", storeRoutes(context));
  app.route("/audit", auditRoutes(context));
  app.notFound((c) =>
    errorAnswer(c.req.header("accept"), {
      status: 404,
      body: { error: { code: "NOT_FOUND", message: `No route ${c.req.method} ${c.req.path}.` } },
    }),
  );
  app.onError((error, c) => {
    // Your routes' HTTPException (hono/http-exception, any copy of Hono) answers as it says.
    if (isHttpException(error)) return error.getResponse();
    // A request still working when the server closed meets closed pools: not a fault.
    const answer = runs.closed ? SHUTTING_DOWN : errorResponse(error);
    if (answer.status === 500) report(error);
    return errorAnswer(c.req.header("accept"), answer);
  });
  return { app, context, websockets };
}

/** The auth file's checks on a protocol socket's commands, for the user who opened it. */
function socketAccess(auth: AuthHandlers, context: ServerContext): SocketAccess {
  const who = (c: Parameters<SocketAccess["read"]>[0]) => {
    const identity = c.get("identity");
    if (!identity) throw new AccessRefusedError(401, "Nobody signed in opened this socket.");
    return identity;
  };
  return {
    read: (c, threadId) => authorizeThreadRead(auth, context, who(c), threadId),
    command: (c, threadId, command) =>
      authorizeThreadCommand(auth, context, who(c), threadId, command),
  };
}

/** The answer to a request that met the server closing. */
const SHUTTING_DOWN = {
  status: 503,
  body: {
    error: {
      code: "SHUTTING_DOWN",
      message: "The server is shutting down; send it again to a running one.",
    },
  },
};

function isHttpException(error: unknown): error is { getResponse(): Response } {
  const candidate = error as { getResponse?: unknown; status?: unknown } | undefined;
  return typeof candidate?.getResponse === "function" && typeof candidate.status === "number";
}
