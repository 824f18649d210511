import { hash } from "node:crypto";
import type { DeadlineExpiry, ReviewDeadline, ReviewRequest } from "../agent/review.js";
import { type AuditLog, auditKeys, DEADLINE_ACTOR } from "../audit/index.js";
import type { InterruptRecord, ThreadRecord } from "../checkpoint/index.js";
import { ConcurrentUpdateError, InvalidRunError, ThreadBusyError } from "../errors/index.js";
import type { CompiledGraph } from "../index.js";
import type { RunQueue, ScheduledJob } from "./queue.js";
import type { BackgroundRun, RunCreateOptions, RunInput } from "./run.js";

type AnyGraph = CompiledGraph<any, any>;

/** Thread metadata naming the group a review is handed to (a deadline's `handOff`). */
export const REVIEW_GROUP_KEY = "review_group";
/** Thread metadata recording each deadline that passed, by interrupt id (`DeadlineOutcome`). */
export const DEADLINES_KEY = "stateweaver:deadlines";
/**
 * The thread metadata key under which review decisions are recorded (a list): a reviewer's
 * through the server, a deadline's reject here.
 */
export const DECISIONS_KEY = "stateweaver:decisions";
/** The reviewer a deadline's decision is recorded under. */
export const DEADLINE_REVIEWER = "deadline";

/**
 * What a passed deadline did, kept in the thread's metadata under `stateweaver:deadlines`:
 * `rejected` (a run resumed the review with reject decisions: `runId`), `handed_off` (to
 * `group`; the review stays pending) or `overdue` (it keeps waiting; `reason` says why when
 * a reject could not be applied).
 *
 * @example
 * const outcome: DeadlineOutcome = { interruptId: "a1", at: "2026-01-01T12:00:00.000Z",
 *   firedAt: "2026-01-01T12:00:01.000Z", action: "handed_off", group: "oncall" };
 */
export interface DeadlineOutcome {
  interruptId: string;
  at: string;
  firedAt: string;
  action: "rejected" | "handed_off" | "overdue";
  group?: string;
  message?: string;
  runId?: string;
  reason?: string;
}

/**
 * What `ReviewDeadlines` needs from `Runs`: its graphs, its queue, the audit log a graph's
 * deadlines are recorded in, and a way to start a run.
 */
export interface DeadlineHost {
  queue: RunQueue;
  graph(graphId: string): AnyGraph | undefined;
  audit(graphId: string): AuditLog | undefined;
  graphs(): Iterable<[string, AnyGraph]>;
  create(
    request: { graphId: string; threadId: string; input: RunInput } & RunCreateOptions,
  ): Promise<BackgroundRun>;
}

/** The deadline a paused interrupt carries (a tool review's `deadline`), if any. */
export function deadlineOf(interrupt: Pick<InterruptRecord, "value">): ReviewDeadline | undefined {
  const d = (interrupt.value as { deadline?: Partial<ReviewDeadline> } | null)?.deadline;
  if (typeof d !== "object" || d === null) return undefined;
  if (typeof d.at !== "string" || Number.isNaN(Date.parse(d.at)) || d.onExpiry === undefined)
    return undefined;
  return d as ReviewDeadline;
}

/** The deadlines already passed on a thread, by interrupt id. */
export function deadlineOutcomesOf(
  record: Pick<ThreadRecord, "metadata">,
): Record<string, DeadlineOutcome> {
  const kept = record.metadata[DEADLINES_KEY];
  return typeof kept === "object" && kept !== null && !Array.isArray(kept)
    ? (kept as Record<string, DeadlineOutcome>)
    : {};
}

/**
 * Review deadlines on a run queue: when a run pauses on reviews that have deadlines, one
 * scheduled job per (thread, interrupt) waits in the queue until the deadline; the worker
 * that takes it applies `onExpiry` if the thread still waits on that review, and does
 * nothing if it moved on. Applying is idempotent (what was done is recorded in the thread's
 * metadata first, or the reject run has an id made from the interrupt's), so a job that
 * runs twice after a crash changes nothing the second time.
 *
 * @example
 * const deadlines = new ReviewDeadlines(host);
 * await deadlines.arm("agent", "t1");   // after a run paused
 */
export class ReviewDeadlines {
  readonly #host: DeadlineHost;
  readonly #listeners = new Set<
    (threadId: string, outcome: DeadlineOutcome, graphId: string | undefined) => void
  >();

  constructor(host: DeadlineHost) {
    this.#host = host;
  }

  /** Schedule the deadlines of what `threadId` waits on now (those not passed yet). */
  async arm(graphId: string, threadId: string): Promise<number> {
    const checkpointer = this.#host.graph(graphId)?.checkpointer;
    const record = await checkpointer?.getThread(threadId);
    return record ? this.#armRecord(graphId, record) : 0;
  }

  /**
   * Schedule the deadlines of every paused thread of the hosted graphs: an in-process queue
   * forgot its timers when the process stopped. On PostgreSQL the jobs are there already and
   * this changes nothing.
   */
  async armAll(): Promise<number> {
    let armed = 0;
    for (const [graphId, graph] of this.#host.graphs()) {
      const checkpointer = graph.checkpointer;
      if (!checkpointer) continue;
      let cursor: string | undefined;
      do {
        const page = await checkpointer.searchThreads({
          status: "interrupted",
          graph: graph.name,
          limit: 500,
          ...(cursor && { cursor }),
        });
        for (const record of page.threads) armed += await this.#armRecord(graphId, record);
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
    }
    return armed;
  }

  async #armRecord(graphId: string, record: ThreadRecord): Promise<number> {
    const passed = deadlineOutcomesOf(record);
    let armed = 0;
    for (const interrupt of record.interrupts) {
      const deadline = deadlineOf(interrupt);
      if (!deadline || passed[interrupt.id]) continue;
      await this.#host.queue.schedule(
        deadlineJob(graphId, record.threadId, interrupt.id, deadline),
      );
      armed++;
    }
    return armed;
  }

  /** Hear each deadline this process applied (not the ones that found nothing to do). */
  onApplied(
    listener: (threadId: string, outcome: DeadlineOutcome, graphId: string | undefined) => void,
  ): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Apply a deadline that fell due (the queue's `onScheduled` for deadline jobs). */
  async fire(job: ScheduledJob): Promise<DeadlineOutcome | undefined> {
    const outcome = await this.#apply(job);
    const graphId = (job.payload as { graphId?: string }).graphId;
    if (outcome) for (const listener of this.#listeners) listener(job.threadId, outcome, graphId);
    return outcome;
  }

  async #apply(job: ScheduledJob): Promise<DeadlineOutcome | undefined> {
    const { graphId, interruptId } = job.payload as { graphId: string; interruptId: string };
    const graph = this.#host.graph(graphId);
    if (!graph) {
      // Thrown, not skipped: the queue tries the job again, perhaps in a worker hosting it.
      throw new InvalidRunError(
        `A review deadline of thread "${job.threadId}" is due, but this worker hosts no graph "${graphId}": start workers with the same graphs as the servers that create runs.`,
      );
    }
    const checkpointer = graph.checkpointer;
    if (!checkpointer) return undefined;
    const record = await checkpointer.getThread(job.threadId);
    const interrupt = record?.interrupts.find((i) => i.id === interruptId);
    const deadline = interrupt && deadlineOf(interrupt);
    // A claim holds the thread (a run answering it, or a dead run's, until it expires): the
    // queue tries the job again, and then it sees whether the review was answered.
    if (record?.status === "busy" && interrupt)
      throw new ThreadBusyError(job.threadId, record.latestCheckpointId);
    // The review was answered (or the thread removed): the deadline has nothing to do.
    if (record?.status !== "interrupted" || !interrupt || !deadline) return undefined;
    const recordedOutcome = deadlineOutcomesOf(record)[interruptId];
    if (recordedOutcome) {
      // Applied before, perhaps by a worker that stopped before it could record it.
      await this.#audit(graphId, record.threadId, recordedOutcome);
      return undefined;
    }
    const active = await this.#host.queue.list({ threadId: job.threadId, limit: 20 });
    if (active.some((r) => r.status === "pending" || r.status === "running")) return undefined;

    const firedAt = new Date().toISOString();
    const base = { interruptId, at: deadline.at, firedAt };
    const expiry: DeadlineExpiry = deadline.onExpiry;
    if (typeof expiry === "object" && "reject" in expiry) {
      const refused = rejectRefusedBy(interrupt);
      if (refused === undefined) return this.#reject(graphId, record, interrupt, base, expiry);
      return this.#note(graphId, checkpointer, record, {
        ...base,
        action: "overdue",
        reason: `the deadline rejects, but ${refused} may not be rejected; it keeps waiting`,
      });
    }
    if (typeof expiry === "object" && "handOff" in expiry) {
      const { group, message } = expiry.handOff;
      return this.#note(
        graphId,
        checkpointer,
        record,
        { ...base, action: "handed_off", group, ...(message !== undefined && { message }) },
        { [REVIEW_GROUP_KEY]: group },
      );
    }
    return this.#note(graphId, checkpointer, record, { ...base, action: "overdue" });
  }

  /** Record a hand-off or overdue mark in the audit log (once, however often it is retried). */
  async #audit(graphId: string, threadId: string, outcome: DeadlineOutcome): Promise<void> {
    if (outcome.action === "rejected") return;
    await this.#host.audit(graphId)?.append({
      kind: outcome.action === "handed_off" ? "hand_off" : "overdue",
      threadId,
      interruptId: outcome.interruptId,
      actor: DEADLINE_ACTOR,
      key: auditKeys.deadline(threadId, outcome.interruptId),
      data: { ...outcome },
    });
  }

  /** Resume the review with a reject for every call, as a run recorded like a decision. */
  async #reject(
    graphId: string,
    record: ThreadRecord,
    interrupt: InterruptRecord,
    base: Pick<DeadlineOutcome, "interruptId" | "at" | "firedAt">,
    expiry: { reject: { message?: string } },
  ): Promise<DeadlineOutcome | undefined> {
    const request = interrupt.value as ReviewRequest;
    const message = expiry.reject.message;
    const answer = {
      decisions: request.actionRequests.map(() => ({
        type: "reject" as const,
        ...(message !== undefined && { message }),
      })),
    };
    const runId = uuidOf(`deadline|${record.threadId}|${interrupt.id}`);
    const outcome: DeadlineOutcome = {
      ...base,
      action: "rejected",
      runId,
      ...(message !== undefined && { message }),
    };
    const several = new Set(record.interrupts.map((i) => i.id)).size > 1;
    const recorded = record.metadata[DECISIONS_KEY];
    const decision = {
      interruptId: interrupt.id,
      checkpointId: record.latestCheckpointId,
      threadId: record.threadId,
      reviewer: DEADLINE_REVIEWER,
      decidedAt: base.firedAt,
      waitedMs: Math.max(0, Date.parse(base.firedAt) - Date.parse(record.updatedAt)),
      answer,
      proposed: request.actionRequests,
      runId,
      idempotencyKey: `deadline:${interrupt.id}`,
    };
    if (await this.#host.queue.get(runId)) return undefined;
    // Recorded before it runs: nothing a deadline does goes unrecorded.
    const audit = this.#host.audit(graphId);
    const key = auditKeys.decision(record.threadId, decision.idempotencyKey);
    await audit?.append({
      kind: "decision",
      threadId: record.threadId,
      interruptId: interrupt.id,
      actor: DEADLINE_ACTOR,
      key,
      data: { ...decision, diff: [] },
    });
    try {
      await this.#host.create({
        graphId,
        threadId: record.threadId,
        runId,
        input: { command: { resume: several ? { [interrupt.id]: answer } : answer } },
        // Merged into the thread's metadata as the run claims it, before anything runs.
        metadata: {
          [DECISIONS_KEY]: [...(Array.isArray(recorded) ? recorded : []), decision],
          [DEADLINES_KEY]: { ...deadlineOutcomesOf(record), [interrupt.id]: outcome },
        },
      });
    } catch (error) {
      // A reviewer's run got to the thread first: the review is being answered.
      if (error instanceof ConcurrentUpdateError) {
        await audit?.append({
          kind: "not_applied",
          threadId: record.threadId,
          interruptId: interrupt.id,
          actor: DEADLINE_ACTOR,
          key: auditKeys.notApplied(key),
          data: { decision: key, reason: "A reviewer's decision reached the thread first." },
        });
        return undefined;
      }
      throw error;
    }
    return outcome;
  }

  /**
   * Record `outcome` (and `extra`) in the thread's metadata, only if the thread is still at
   * the checkpoint read: a claim that checks it, merges the metadata, and is let go at once.
   */
  async #note(
    graphId: string,
    checkpointer: NonNullable<AnyGraph["checkpointer"]>,
    record: ThreadRecord,
    outcome: DeadlineOutcome,
    extra: Record<string, unknown> = {},
  ): Promise<DeadlineOutcome | undefined> {
    const claimId = `deadline:${outcome.interruptId}`;
    try {
      await checkpointer.claimThread(record.threadId, {
        runId: claimId,
        expectedLatestId: record.latestCheckpointId,
        ttlMs: 10_000,
        metadata: {
          ...extra,
          [DEADLINES_KEY]: { ...deadlineOutcomesOf(record), [outcome.interruptId]: outcome },
        },
      });
    } catch (error) {
      // Held by a run (perhaps a dead one's claim, not expired yet): the job is tried again.
      if (error instanceof ThreadBusyError) throw error;
      // The thread moved past the checkpoint read: the review was answered.
      if (error instanceof ConcurrentUpdateError) return undefined;
      throw error;
    }
    await checkpointer.releaseThread(record.threadId, claimId);
    await this.#audit(graphId, record.threadId, outcome);
    return outcome;
  }
}

/** The scheduled job of one review's deadline. */
export function deadlineJob(
  graphId: string,
  threadId: string,
  interruptId: string,
  deadline: ReviewDeadline,
): ScheduledJob {
  return {
    key: `deadline:${threadId}:${interruptId}`,
    threadId,
    at: deadline.at,
    payload: { kind: "review_deadline", graphId, interruptId },
  };
}

/** Whether a scheduled job is a review deadline's. */
export function isDeadlineJob(job: ScheduledJob): boolean {
  return job.payload.kind === "review_deadline";
}

/** The tool a reviewer may not reject in this review, if one. */
function rejectRefusedBy(interrupt: InterruptRecord): string | undefined {
  const request = interrupt.value as Partial<ReviewRequest>;
  if (!Array.isArray(request.actionRequests) || !Array.isArray(request.reviewConfigs))
    return "this pause (it is not a tool review)";
  const config = request.reviewConfigs.find((c) => !c.allowedDecisions.includes("reject"));
  return config?.actionName;
}

/** A UUID-shaped id made from `text`: the same text, the same id. */
function uuidOf(text: string): string {
  const h = hash("sha1", text);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
