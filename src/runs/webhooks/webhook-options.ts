// Webhook settings: what stateweaver.json's "webhooks" and createRuns({ webhooks }) accept, checked with zod.
import { z } from "zod";
import { WebhookConfigError } from "../../errors/index.js";
import { clauses } from "../../errors/sentences.js";

/**
 * What a webhook can be told: a review is waiting in the inbox, a reviewer decided one, a
 * review's deadline passed, a run ended (whatever its status).
 */
export const WEBHOOK_EVENTS = [
  "review.waiting",
  "review.decided",
  "review.expired",
  "run.ended",
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

const envName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "an environment variable name (letters, digits, _)");
const httpUrl = z.url({ protocol: /^https?$/, error: "an http:// or https:// URL" });
const secretFields = {
  /** The HMAC key; prefer `secretEnv` in files that are committed. */
  secret: z.string().min(1, "a secret must not be empty").optional(),
  /** The name of the environment variable that holds the secret. */
  secretEnv: envName.optional(),
};
const oneSecret = (e: { secret?: string | undefined; secretEnv?: string | undefined }) =>
  !(e.secret !== undefined && e.secretEnv !== undefined);
const oneSecretProblem = { message: "give secret or secretEnv, not both" };

const endpointSchema = z
  .strictObject({
    url: httpUrl,
    /** The events this endpoint hears; all of them when left out. */
    events: z.array(z.enum(WEBHOOK_EVENTS)).min(1, "list at least one event").optional(),
    ...secretFields,
  })
  .refine(oneSecret, oneSecretProblem);

const settingsSchema = z.strictObject({
  endpoints: z.array(endpointSchema).default([]),
  /** The inbox's address as people open it (e.g. `https://reviews.example.com`): links point there. */
  inboxUrl: httpUrl.optional(),
  /** Signs LangGraph's per-run `webhook` deliveries too (unsigned without it, as LangGraph sends them). */
  runWebhook: z.strictObject(secretFields).refine(oneSecret, oneSecretProblem).optional(),
  /** Attempts per delivery, the first included (default 8). */
  attempts: z.int().min(1).max(50).default(8),
  /** The pause before the second attempt; it doubles per attempt (default 1 s)… */
  initialDelayMs: z.int().min(0).max(3_600_000).default(1000),
  /** …up to this (default 5 min). */
  maxDelayMs: z.int().min(0).max(86_400_000).default(300_000),
  /** How long one attempt waits for the receiver's answer (default 10 s). */
  timeoutMs: z.int().min(100).max(120_000).default(10_000),
});

/**
 * `"webhooks"` as stateweaver.json holds it: the settings object, or just a list of
 * endpoints. Secrets may be named by environment variable (`secretEnv`).
 *
 * @example
 * const config: WebhookConfig = {
 *   inboxUrl: "https://reviews.example.com",
 *   endpoints: [{ url: "https://hooks.slack.com/services/T/B/X", events: ["review.waiting"], secretEnv: "SLACK_HOOK_SECRET" }],
 * };
 */
export type WebhookConfig = z.input<typeof settingsSchema> | z.input<typeof endpointSchema>[];

/**
 * Check `"webhooks"` as a file or caller gave it, without reading any secret yet: the
 * settings with their defaults, or a `WebhookConfigError` listing every problem by path.
 *
 * @example
 * checkWebhookConfig([{ url: "https://hooks.example.com/x", secretEnv: "HOOK_SECRET" }]);
 */
export function checkWebhookConfig(config: unknown): z.output<typeof settingsSchema> {
  // A list is the endpoints alone; checked as such, so problems are named by their path.
  const parsed = settingsSchema.safeParse(Array.isArray(config) ? { endpoints: config } : config);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((i) => {
    const path = i.path.map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`)).join("");
    return `webhooks${path}: ${i.message}`;
  });
  throw new WebhookConfigError(`The webhook settings are not usable: ${clauses(issues)}`);
}

/** One endpoint, its secret read. */
export interface WebhookEndpoint {
  url: string;
  events: readonly WebhookEvent[];
  secret: string | undefined;
}

/**
 * Webhook settings as `createRuns` uses them: every default filled in, every secret read.
 *
 * @example
 * const options = webhookOptionsOf({ endpoints: [{ url: "http://127.0.0.1:9000/hook", secret: "s3cret" }] });
 */
export interface WebhookOptions {
  endpoints: WebhookEndpoint[];
  inboxUrl: string | undefined;
  runWebhookSecret: string | undefined;
  attempts: number;
  initialDelayMs: number;
  maxDelayMs: number;
  timeoutMs: number;
}

/**
 * Check webhook settings and read their secrets from `env` (the CLI passes `process.env`).
 * Every problem is listed in one `WebhookConfigError`, by path.
 *
 * @example
 * const options = webhookOptionsOf(config.webhooks, process.env);
 */
export function webhookOptionsOf(
  config: unknown,
  env: Readonly<Record<string, string | undefined>> = {},
): WebhookOptions {
  const settings = checkWebhookConfig(config);
  const problems: string[] = [];
  const secretOf = (
    where: string,
    s: { secret?: string | undefined; secretEnv?: string | undefined },
  ) => {
    if (s.secretEnv === undefined) return s.secret;
    const value = env[s.secretEnv];
    if (!value) problems.push(`${where}.secretEnv: ${s.secretEnv} is not set (or empty)`);
    return value || undefined;
  };
  const endpoints = settings.endpoints.map((e, i) => ({
    url: e.url,
    events: e.events ?? WEBHOOK_EVENTS,
    secret: secretOf(`webhooks.endpoints[${i}]`, e),
  }));
  const runWebhookSecret =
    settings.runWebhook && secretOf("webhooks.runWebhook", settings.runWebhook);
  if (settings.maxDelayMs < settings.initialDelayMs)
    problems.push("webhooks.maxDelayMs: must be at least initialDelayMs");
  if (problems.length > 0)
    throw new WebhookConfigError(`The webhook settings are not usable: ${clauses(problems)}`);
  return {
    endpoints,
    inboxUrl: settings.inboxUrl?.replace(/\/+$/, ""),
    runWebhookSecret,
    attempts: settings.attempts,
    initialDelayMs: settings.initialDelayMs,
    maxDelayMs: settings.maxDelayMs,
    timeoutMs: settings.timeoutMs,
  };
}

/** The pause before attempt `attempt + 1`: doubling from `initialDelayMs`, at most `maxDelayMs`. */
export function retryDelayMs(options: WebhookOptions, attempt: number): number {
  return Math.min(options.initialDelayMs * 2 ** Math.max(0, attempt - 1), options.maxDelayMs);
}
