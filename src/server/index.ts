/**
 * `stateweaver/server`: the HTTP server (LangGraph Agent Server API subset + the review
 * inbox), embeddable as a Hono app.
 *
 * @example
 * import { createServer } from "stateweaver/server";
 * const server = createServer({ graphs: { ops: agent }, checkpointer });
 * await server.listen({ port: 2024 });
 */
export {
  type AuditActor,
  type AuditEntry,
  type AuditLog,
  type AuditQuery,
  type AuditVerification,
  type AuditVerifyOptions,
  auditLogFor,
  exportLines,
  MemoryAuditLog,
  SqlAuditLog,
  verifyChain,
} from "../audit/index.js";
export {
  signWebhook,
  verifyWebhookSignature,
  type WebhookConfig,
  type WebhookOptions,
  type WebhookPayload,
  webhookOptionsOf,
} from "../runs/index.js";
export { createApp, DEFAULT_BODY_LIMIT, type ServerOptions } from "./app.js";
export type { GraphDefaults } from "./assistants.js";
export type { AuthHandlers } from "./auth/custom-auth.js";
export type { AuthUser, RequestIdentity } from "./auth/identity.js";
export {
  type RevocationSubject,
  type SessionRevocations,
  sessionRevocationsFor,
} from "./auth/session-revocations.js";
export { checkToken, SESSION_COOKIE } from "./auth.js";
export { type ConfigurableHeaders, headersForRun } from "./configurable-headers.js";
export { CSRF_COOKIE, CSRF_HEADER } from "./csrf.js";
export type { ArgChange, Decision } from "./decisions.js";
export { type FieldProblem, RequestError, ServerConfigError } from "./errors.js";
export {
  type FactoryGraph,
  factoryGraph,
  type GraphAccess,
  type GraphFactory,
  type GraphFactoryRuntime,
  isFactoryGraph,
} from "./graph-factory.js";
export {
  findConfigFile,
  loadServerConfig,
  parseEnv,
  type ServerConfig,
  type ServerConfigFile,
} from "./graph-loading.js";
export type { GraphPicture, PictureNode } from "./graph-picture.js";
export type { InboxChange } from "./inbox-events.js";
export { DECISIONS_KEY, type InboxItem } from "./inbox-items.js";
export { createServer, LOOPBACK_HOSTS, type StateweaverServer } from "./node.js";
export type { PauseKind } from "./review-answer.js";
export { CONTENT_SECURITY_POLICY } from "./security-headers.js";
export type { ServerWebSockets } from "./server-websockets.js";
export type { StoreTtlOptions } from "./store-ttl.js";
export {
  type BuildUiOptions,
  buildUi,
  type UiBundles,
  type UiFile,
  type UiWatch,
  watchUi,
} from "./ui-bundles.js";
export type { WireMessage } from "./wire/messages.js";
export { type RunWorkerOptions, startWorker } from "./worker.js";
