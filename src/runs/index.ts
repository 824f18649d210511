/**
 * Background runs: a run is a job on a queue that any worker takes — in this process
 * (`InProcessRunQueue`, the embedded default) or on PostgreSQL through graphile-worker
 * (`PostgresRunQueue`, for `stateweaver worker` processes on many machines).
 *
 * @example
 * import { createRuns, PostgresRunQueue } from "stateweaver/runs";
 * const runs = createRuns({ graphs: [graph], queue: await PostgresRunQueue.open({ connectionString }) });
 */
export { MULTITASK_STRATEGIES, type MultitaskDecision, multitaskDecision } from "./multitask.js";
export type {
  Delivery,
  DeliveryOutcome,
  NewRun,
  RunChange,
  RunConsumer,
  RunEnd,
  RunQueue,
  ScheduledJob,
  Taken,
} from "./queue.js";
export {
  type DeliveryOutbox,
  deliveryOutboxFor,
  type KeptDelivery,
} from "./queues/delivery-outbox.js";
export { InProcessRunQueue } from "./queues/in-process.js";
export { PostgresRunQueue, type PostgresRunQueueOptions } from "./queues/postgres.js";
export {
  DEADLINE_REVIEWER,
  DEADLINES_KEY,
  type DeadlineOutcome,
  deadlineOf,
  REVIEW_GROUP_KEY,
} from "./review-deadlines.js";
export {
  ACTIVE_RUN_STATUSES,
  type BackgroundRun,
  FINAL_RUN_STATUSES,
  type GraphRuns,
  type MultitaskStrategy,
  publicRun,
  type QueuedRun,
  type RunCreateOptions,
  type RunEvent,
  type RunInput,
  type RunListOptions,
  type RunRequest,
  type RunService,
  type RunStatus,
  type StopAction,
} from "./run.js";
export { argOf } from "./run-input.js";
export {
  createRuns,
  DEFAULT_LEASE_MS,
  type RunExecutor,
  Runs,
  type RunsOptions,
  type WorkOptions,
} from "./runs.js";
export {
  checkWebhookConfig,
  WEBHOOK_EVENTS,
  type WebhookConfig,
  type WebhookEndpoint,
  type WebhookEvent,
  type WebhookOptions,
  webhookOptionsOf,
} from "./webhooks/webhook-options.js";
export type { WebhookPayload } from "./webhooks/webhook-payloads.js";
export {
  DEFAULT_SIGNATURE_TOLERANCE_SECONDS,
  SIGNATURE_HEADER,
  signWebhook,
  verifyWebhookSignature,
  type WebhookHeaders,
} from "./webhooks/webhook-signature.js";
export {
  ATTEMPT_HEADER,
  DELIVERY_HEADER,
  type DecidedReview,
  EVENT_HEADER,
  type RunValues,
  Webhooks,
} from "./webhooks/webhooks.js";
