// A node's retry policy and timeout: what is retried, how often, and how long to wait between attempts.
import {
  GraphValidationError,
  isStateweaverError,
  ModelError,
  NodeTimeoutError,
} from "../../errors/index.js";

/**
 * How a node's failures are retried, as in LangGraph: up to `maxAttempts` runs in all, the
 * n-th retry waiting `initialInterval * backoffFactor^(n-1)` ms (at most `maxInterval`),
 * with up to that much again at random when `jitter` is on. Only errors `retryOn` accepts
 * are retried. Retries run inside the task: the step's other tasks are not run again.
 *
 * @example
 * graph.addNode("fetch", fetchPrices, {
 *   retryPolicy: { maxAttempts: 5, initialInterval: 200, retryOn: (e) => e instanceof FetchError },
 * });
 */
export interface RetryPolicy {
  /** Runs in all, the first included (default 3). */
  maxAttempts?: number;
  /** Milliseconds before the first retry (default 500). */
  initialInterval?: number;
  /** What each wait is multiplied by (default 2). */
  backoffFactor?: number;
  /** The longest wait, in milliseconds (default 128 000). */
  maxInterval?: number;
  /** Add up to one more wait's worth at random, so many runs do not retry in step (default true). */
  jitter?: boolean;
  /** Which errors to retry (default `retriesByDefault`). */
  retryOn?: (error: unknown) => boolean;
}

/** A node's retry policy and timeout, checked and with defaults filled in. */
export interface NodePolicy {
  retry: Required<RetryPolicy> | undefined;
  timeout: number | undefined;
}

/**
 * What a retry policy retries unless told otherwise: the node's own errors, timeouts, and
 * model calls that failed without an answer or with a 408, 409, 429 or 5xx. Not errors
 * about the run itself (a bad update, an interrupt misuse…): a retry would fail the same way.
 *
 * @example
 * retryOn: (e) => retriesByDefault(e) && !(e instanceof PaymentDeclined)
 */
export function retriesByDefault(error: unknown): boolean {
  if (error instanceof NodeTimeoutError) return true;
  if (error instanceof ModelError) {
    const status = error.status;
    return (
      status === undefined || status === 408 || status === 409 || status === 429 || status >= 500
    );
  }
  return !isStateweaverError(error);
}

/** The node's options as its tasks use them; a bad value is a `GraphValidationError` naming it. */
export function nodePolicy(
  node: string,
  options: { retryPolicy?: RetryPolicy; timeout?: number },
): NodePolicy | undefined {
  const { retryPolicy, timeout } = options;
  if (retryPolicy === undefined && timeout === undefined) return undefined;
  if (timeout !== undefined && !(Number.isFinite(timeout) && timeout > 0)) {
    throw new GraphValidationError(
      `Node "${node}": timeout must be a positive number of milliseconds; got ${String(timeout)}.`,
    );
  }
  if (retryPolicy === undefined) return { retry: undefined, timeout };
  const retry = {
    maxAttempts: retryPolicy.maxAttempts ?? 3,
    initialInterval: retryPolicy.initialInterval ?? 500,
    backoffFactor: retryPolicy.backoffFactor ?? 2,
    maxInterval: retryPolicy.maxInterval ?? 128_000,
    jitter: retryPolicy.jitter ?? true,
    retryOn: retryPolicy.retryOn ?? retriesByDefault,
  };
  const bad = (field: string, rule: string, value: unknown) =>
    new GraphValidationError(
      `Node "${node}": retryPolicy.${field} must be ${rule}; got ${String(value)}.`,
    );
  if (!Number.isInteger(retry.maxAttempts) || retry.maxAttempts < 1)
    throw bad("maxAttempts", "a whole number of at least 1", retry.maxAttempts);
  for (const field of ["initialInterval", "maxInterval"] as const) {
    if (!(Number.isFinite(retry[field]) && retry[field] >= 0))
      throw bad(field, "a number of milliseconds, 0 or more", retry[field]);
  }
  if (!(Number.isFinite(retry.backoffFactor) && retry.backoffFactor >= 1))
    throw bad("backoffFactor", "a number of at least 1", retry.backoffFactor);
  if (typeof retry.retryOn !== "function") throw bad("retryOn", "a function", retry.retryOn);
  return { retry, timeout };
}

/** The wait before attempt `attempt + 1`, after `attempt` failed. */
export function retryDelay(policy: Required<RetryPolicy>, attempt: number): number {
  const base = Math.min(
    policy.maxInterval,
    policy.initialInterval * policy.backoffFactor ** (attempt - 1),
  );
  const extra = policy.jitter ? Math.random() * base : 0;
  return Math.min(policy.maxInterval, Math.round(base + extra));
}
