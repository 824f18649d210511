// Telling people and programs what happened: webhook events queued as deliveries, and each attempt.
import { hash } from "node:crypto";
import type { InterruptRecord, ThreadRecord } from "../../checkpoint/index.js";
import type { CompiledGraph } from "../../index.js";
import type { Delivery, DeliveryOutcome, RunQueue } from "../queue.js";
import { type DeadlineOutcome, REVIEW_GROUP_KEY } from "../review-deadlines.js";
import type { QueuedRun } from "../run.js";
import { retryDelayMs, type WebhookEvent, type WebhookOptions } from "./webhook-options.js";
import {
  type EventContext,
  reviewDecidedPayload,
  reviewExpiredPayload,
  reviewWaitingPayload,
  runEndedPayload,
  type WebhookPayload,
} from "./webhook-payloads.js";
import { SIGNATURE_HEADER, signWebhook } from "./webhook-signature.js";

type AnyGraph = CompiledGraph<any, any>;

/** Headers of every delivery besides the signature: the event, the delivery id and the attempt. */
export const EVENT_HEADER = "stateweaver-event";
export const DELIVERY_HEADER = "stateweaver-delivery";
export const ATTEMPT_HEADER = "stateweaver-attempt";

/**
 * How a hosted graph's final values are shown in LangGraph's per-run webhook (`values`): as
 * the graph holds them by default; the server passes LangChain's message shapes.
 */
export type RunValues = (graph: AnyGraph, threadId: string) => Promise<unknown>;

/** A delivery as the queue keeps it: where to, what, and whether it is signed (and with what). */
interface DeliveryPayload {
  url: string;
  /** `endpoint`: the configured endpoint at `url` signs it; `run`: `runWebhookSecret` does. */
  signer: "endpoint" | "run" | "none";
  event: WebhookEvent | "run.webhook";
  body: Record<string, unknown>;
}

/** A decision as the server records it (the fields a `review.decided` webhook reports). */
export interface DecidedReview {
  graphId: string;
  threadId: string;
  interrupt: InterruptRecord;
  reviewer: string;
  authenticatedBy?: string | undefined;
  decidedAt: string;
  answer: unknown;
  runId: string;
}

/**
 * The webhooks of a `Runs`: each event becomes one delivery per endpoint that hears it, kept
 * by the run queue (so it outlives the process on PostgreSQL, and several workers deliver it
 * once), attempted by workers, signed, retried with a doubling pause up to `attempts`.
 * Nothing here throws into a run or a decision: a failure to queue goes to `onError`.
 *
 * @example
 * const runs = createRuns({ graphs: [graph], webhooks: webhookOptionsOf({ endpoints: [{ url, secret }] }) });
 */
export class Webhooks {
  readonly #queue: RunQueue;
  readonly #options: WebhookOptions | undefined;
  readonly #onError: (error: unknown) => void;

  constructor(queue: RunQueue, options: WebhookOptions | undefined, onError: (e: unknown) => void) {
    this.#queue = queue;
    this.#options = options;
    this.#onError = onError;
  }

  /** Whether any endpoint hears `event`. */
  hears(event: WebhookEvent): boolean {
    return this.#options?.endpoints.some((e) => e.events.includes(event)) ?? false;
  }

  /**
   * What to do when a run ends, read before its end is stored (the thread is as the run left
   * it, even a stateless run's that is deleted right after): returns what to queue once the
   * end is stored, or nothing when nobody listens.
   */
  async beforeEnd(
    graph: AnyGraph | undefined,
    run: QueuedRun,
    values: RunValues,
  ): Promise<((ended: QueuedRun) => Promise<void>) | undefined> {
    const waiting = this.hears("review.waiting");
    const ended = this.hears("run.ended");
    const perRun = run.request.webhook;
    if (!waiting && !ended && !perRun) return undefined;
    const record = waiting ? await graph?.checkpointer?.getThread(run.threadId) : undefined;
    const finalValues =
      perRun && graph ? await values(graph, run.threadId).catch(() => null) : null;
    return async (settled) => {
      const at = new Date().toISOString();
      if (ended)
        await this.#notify(
          "run.ended",
          `run.ended|${run.runId}`,
          (c) => runEndedPayload(c, settled),
          settled.graphId,
          settled.threadId,
          at,
        );
      if (waiting && settled.status === "interrupted" && record?.status === "interrupted")
        await this.#reviewsWaiting(settled, record, at);
      if (perRun) await this.#runWebhook(perRun, settled, finalValues, at);
    };
  }

  async #reviewsWaiting(run: QueuedRun, record: ThreadRecord, at: string): Promise<void> {
    const group = record.metadata[REVIEW_GROUP_KEY];
    const seen = new Set<string>();
    for (const interrupt of record.interrupts) {
      // A breakpoint pauses every node it names at once: one review in the inbox.
      const id =
        interrupt.timing === "during" ? interrupt.id : `breakpoint:${record.latestCheckpointId}`;
      if (seen.has(id)) continue;
      seen.add(id);
      await this.#notify(
        "review.waiting",
        `review.waiting|${run.threadId}|${id}`,
        (c) =>
          reviewWaitingPayload(
            c,
            { ...interrupt, id },
            run.runId,
            typeof group === "string" ? group : null,
          ),
        run.graphId,
        run.threadId,
        at,
      );
    }
  }

  /** LangGraph's per-run `webhook`: the run, its times and final values, posted once it ends. */
  async #runWebhook(url: string, run: QueuedRun, values: unknown, at: string): Promise<void> {
    const body: Record<string, unknown> = {
      run_id: run.runId,
      thread_id: run.threadId,
      assistant_id: run.graphId,
      created_at: run.createdAt,
      updated_at: run.updatedAt,
      status: run.status,
      metadata: run.metadata,
      multitask_strategy: run.multitaskStrategy,
      kwargs: {},
      run_started_at: run.startedAt,
      run_ended_at: run.endedAt ?? at,
      values,
      ...(run.error && { error: run.error.message }),
    };
    const signer = this.#options?.runWebhookSecret ? "run" : "none";
    await this.#add({
      key: `run.webhook|${run.runId}`,
      payload: { url, signer, event: "run.webhook", body } satisfies DeliveryPayload,
    });
  }

  /**
   * A reviewer's decision (the server calls this once the decision's run is queued). Never
   * rejects: a failure goes to `onError`.
   */
  async reviewDecided(review: DecidedReview): Promise<void> {
    if (!this.hears("review.decided")) return;
    try {
      await this.#notify(
        "review.decided",
        `review.decided|${review.threadId}|${review.interrupt.id}|${review.runId}`,
        (c) => reviewDecidedPayload(c, review.interrupt, review),
        review.graphId,
        review.threadId,
        review.decidedAt,
      );
    } catch (error) {
      this.#onError(error);
    }
  }

  /** A deadline that passed and did something (`ReviewDeadlines` applied it). */
  async reviewExpired(
    graph: AnyGraph,
    graphId: string,
    threadId: string,
    outcome: DeadlineOutcome,
  ): Promise<void> {
    if (!this.hears("review.expired")) return;
    const record = await graph.checkpointer?.getThread(threadId).catch(() => undefined);
    const interrupt = record?.interrupts.find((i) => i.id === outcome.interruptId);
    await this.#notify(
      "review.expired",
      `review.expired|${threadId}|${outcome.interruptId}`,
      (c) => reviewExpiredPayload(c, interrupt, outcome),
      graphId,
      threadId,
      outcome.firedAt,
    );
  }

  /** One delivery per endpoint that hears `event`; a failure to queue goes to `onError`. */
  async #notify(
    event: WebhookEvent,
    eventKey: string,
    build: (context: EventContext) => WebhookPayload,
    graphId: string,
    threadId: string,
    occurredAt: string,
  ): Promise<void> {
    for (const endpoint of this.#options?.endpoints ?? []) {
      if (!endpoint.events.includes(event)) continue;
      const key = `${eventKey}|${hash("sha256", endpoint.url).slice(0, 12)}`;
      const body = build({
        deliveryId: key,
        occurredAt,
        threadId,
        graphId,
        inboxUrl: this.#options?.inboxUrl,
      });
      const payload: DeliveryPayload = {
        url: endpoint.url,
        signer: endpoint.secret ? "endpoint" : "none",
        event,
        body: body as unknown as Record<string, unknown>,
      };
      await this.#add({ key, payload: payload as unknown as Record<string, unknown> });
    }
  }

  async #add(delivery: Delivery): Promise<void> {
    try {
      await this.#queue.addDelivery(delivery);
    } catch (error) {
      this.#onError(error);
    }
  }

  /**
   * One attempt at a delivery (the queue's `onDelivery`): POST the body, signed; a 2xx
   * answer delivers it, anything else (or no answer within `timeoutMs`) is tried again after
   * `retryDelayMs`, until `attempts` were made.
   */
  async attempt(delivery: Delivery, attempt: number): Promise<DeliveryOutcome> {
    const payload = delivery.payload as unknown as DeliveryPayload;
    const options = this.#options;
    const attempts = options?.attempts ?? 8;
    const failed = (error: string): DeliveryOutcome => ({
      status: "failed",
      error,
      ...(attempt < attempts && {
        retryInMs: options ? retryDelayMs(options, attempt) : 1000 * 2 ** (attempt - 1),
      }),
    });
    const body = JSON.stringify(
      payload.event === "run.webhook"
        ? { ...payload.body, webhook_sent_at: new Date().toISOString() }
        : payload.body,
    );
    const secret =
      payload.signer === "endpoint"
        ? options?.endpoints.find((e) => e.url === payload.url)?.secret
        : payload.signer === "run"
          ? options?.runWebhookSecret
          : undefined;
    // Never sent unsigned when it was meant to be signed: this process lacks the settings.
    if (payload.signer !== "none" && !secret)
      return failed(
        `this process has no secret for ${payload.url}: give every process the same "webhooks" settings`,
      );
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "user-agent": "stateweaver-webhooks",
      [EVENT_HEADER]: payload.event,
      [DELIVERY_HEADER]: delivery.key,
      [ATTEMPT_HEADER]: String(attempt),
      ...(secret && { [SIGNATURE_HEADER]: signWebhook(secret, body) }),
    };
    try {
      const response = await fetch(payload.url, {
        method: "POST",
        headers,
        body,
        redirect: "manual",
        signal: AbortSignal.timeout(options?.timeoutMs ?? 10_000),
      });
      // The answer's body is not needed; reading it frees the connection.
      await response.arrayBuffer().catch(() => undefined);
      if (response.status >= 200 && response.status < 300) return { status: "delivered" };
      return failed(`HTTP ${response.status}`);
    } catch (error) {
      return failed(error instanceof Error ? `${error.name}: ${error.message}` : String(error));
    }
  }
}
