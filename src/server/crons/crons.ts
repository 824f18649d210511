// Crons: runs started on a schedule, by whichever server or worker claims each firing.
import { randomUUID } from "node:crypto";
import { jsonContains } from "../../checkpoint/index.js";
import type { RequestIdentity } from "../auth/identity.js";
import { RequestError } from "../errors.js";
import { type RunBody, startRun } from "../routes/runs.js";
import { deleteThreadWhenEnded } from "../routes/stateless-runs.js";
import type { ServerContext } from "../server-context.js";
import { Ticker } from "../ticker.js";
import { nextRunAfter } from "./cron-schedule.js";
import type { CronRecord, CronStore } from "./cron-store.js";

/**
 * How often a server or worker looks for crons that are due. Not a timer to the earliest
 * `next_run_date`: a cron made or changed by another process can come due sooner, which
 * only a LISTEN/NOTIFY channel of its own would tell this one.
 */
const TICK_MS = 1000;

/** What makes a cron: the schedule and the run each firing starts. */
export interface NewCron {
  assistant_id: string;
  thread_id: string | null;
  schedule: string;
  timezone?: string | null | undefined;
  end_time?: string | null | undefined;
  on_run_completed?: "delete" | "keep" | null | undefined;
  enabled?: boolean | null | undefined;
  metadata?: Record<string, unknown> | null | undefined;
  /** The runs-API body of each run (input, config, context, breakpoints, webhook…). */
  payload: Record<string, unknown>;
}

/** A search of crons, as LangGraph's `crons.search` sends it. */
export interface CronQuery {
  assistant_id?: string | null | undefined;
  thread_id?: string | null | undefined;
  enabled?: boolean | null | undefined;
  metadata?: Record<string, unknown> | null | undefined;
  limit?: number;
  offset?: number;
  sort_by?:
    | "cron_id"
    | "assistant_id"
    | "thread_id"
    | "created_at"
    | "updated_at"
    | "next_run_date"
    | null
    | undefined;
  sort_order?: "asc" | "desc" | null | undefined;
}

/**
 * A server's crons: kept in `store` (beside the threads), and fired by a tick every second
 * in every server and `stateweaver worker` on the database. A firing is claimed by moving
 * the cron's `next_run_date` on with a compare-and-set, so of all of them exactly one
 * starts the run, as its creator, through the same path as `POST /threads/:id/runs`. A
 * deployment that was down fires a missed cron once when it is back, then on schedule.
 *
 * @example
 * const cron = await crons.create({ assistant_id: "ops", thread_id: null, schedule: "0 9 * * 1-5", payload: { input: {} } }, who);
 */
export class Crons {
  readonly #store: CronStore;
  readonly #ctx: () => ServerContext;
  readonly #report: (error: unknown) => void;
  readonly #ticker: Ticker;

  constructor(store: CronStore, ctx: () => ServerContext, report: (error: unknown) => void) {
    this.#store = store;
    this.#ctx = ctx;
    this.#report = report;
    this.#ticker = new Ticker(TICK_MS, () => this.tick(), report);
  }

  async create(cron: NewCron, who: RequestIdentity | undefined): Promise<CronRecord> {
    const now = new Date();
    const endTime = checkedTime(cron.end_time);
    const enabled = cron.enabled ?? true;
    const next = nextRunAfter(cron.schedule, cron.timezone ?? null, now, endTime);
    const at = now.toISOString();
    const record: CronRecord = {
      cron_id: randomUUID(),
      assistant_id: cron.assistant_id,
      thread_id: cron.thread_id,
      on_run_completed: cron.on_run_completed ?? "delete",
      end_time: endTime,
      schedule: cron.schedule,
      timezone: cron.timezone ?? null,
      payload: cron.payload,
      metadata: cron.metadata ?? {},
      enabled,
      next_run_date: enabled ? (next?.toISOString() ?? null) : null,
      user_id: who?.user.identity ?? null,
      created_at: at,
      updated_at: at,
      ...(who && { creator: who }),
    };
    await this.#store.put(record);
    return record;
  }

  /** The cron, or a 404 that says how to find one. */
  async get(cronId: string): Promise<CronRecord> {
    const cron = await this.#store.get(cronId);
    if (cron) return cron;
    throw new RequestError(
      404,
      "CRON_NOT_FOUND",
      `No cron "${cronId}". Search them with POST /runs/crons/search.`,
    );
  }

  /** Change a cron; a new schedule, time zone, end or enabling sets when it fires next from now. */
  async update(
    cronId: string,
    changes: Partial<Omit<NewCron, "assistant_id" | "thread_id">>,
  ): Promise<CronRecord> {
    const cron = await this.get(cronId);
    const schedule = changes.schedule ?? cron.schedule;
    const timezone = changes.timezone === undefined ? cron.timezone : changes.timezone;
    const endTime = changes.end_time === undefined ? cron.end_time : checkedTime(changes.end_time);
    const enabled = changes.enabled ?? cron.enabled;
    const next = nextRunAfter(schedule, timezone, new Date(), endTime);
    const timing =
      changes.schedule !== undefined ||
      changes.timezone !== undefined ||
      changes.end_time !== undefined ||
      enabled !== cron.enabled;
    const updated: CronRecord = {
      ...cron,
      schedule,
      timezone,
      end_time: endTime,
      enabled,
      ...(changes.on_run_completed && { on_run_completed: changes.on_run_completed }),
      ...(changes.metadata && { metadata: { ...cron.metadata, ...changes.metadata } }),
      payload: { ...cron.payload, ...changes.payload },
      next_run_date: !enabled
        ? null
        : timing || cron.next_run_date === null
          ? (next?.toISOString() ?? null)
          : cron.next_run_date,
      updated_at: new Date().toISOString(),
    };
    await this.#store.put(updated);
    return updated;
  }

  async delete(cronId: string): Promise<void> {
    if (!(await this.#store.delete(cronId))) await this.get(cronId);
  }

  /** Crons matching `query`, sorted and paged as LangGraph's `crons.search`. */
  async search(query: CronQuery): Promise<CronRecord[]> {
    const sortBy = query.sort_by ?? "created_at";
    const sign = query.sort_order === "asc" ? 1 : -1;
    const found = (await this.#matching(query)).sort((a, b) => {
      const x = a[sortBy] ?? "";
      const y = b[sortBy] ?? "";
      return sign * (x < y ? -1 : x > y ? 1 : 0);
    });
    const offset = query.offset ?? 0;
    return found.slice(offset, offset + (query.limit ?? 10));
  }

  async count(query: CronQuery): Promise<number> {
    return (await this.#matching(query)).length;
  }

  async #matching(query: CronQuery): Promise<CronRecord[]> {
    return (await this.#store.all()).filter(
      (c) =>
        (query.assistant_id == null || c.assistant_id === query.assistant_id) &&
        (query.thread_id == null || c.thread_id === query.thread_id) &&
        (query.enabled == null || c.enabled === query.enabled) &&
        (!query.metadata || jsonContains(c.metadata, query.metadata)),
    );
  }

  /** Look for due crons every second until `stop()` (the timer does not hold the process). */
  start(): void {
    this.#ticker.start();
  }

  async stop(): Promise<void> {
    await this.#ticker.stop();
  }

  /** Fire every cron due now (each claimed first, so one process fires it). */
  async tick(now = new Date()): Promise<void> {
    // Runs closed without stop() (an app used without createServer): nothing to start runs on.
    if (this.#ctx().runs.closed) return void this.stop();
    for (const cron of await this.#store.due(now.toISOString())) {
      const next = nextRunAfter(cron.schedule, cron.timezone, now, cron.end_time);
      if (
        !(await this.#store.advance(cron.cron_id, cron.next_run_date!, next?.toISOString() ?? null))
      )
        continue;
      await this.#fire(cron).catch((error: unknown) => {
        // A thread busy under "reject", or deleted: this firing is skipped, the next comes.
        if (!(error instanceof RequestError)) this.#report(error);
      });
    }
  }

  async #fire(cron: CronRecord): Promise<void> {
    const ctx = this.#ctx();
    const threadId = cron.thread_id ?? randomUUID();
    const body = {
      ...cron.payload,
      assistant_id: cron.assistant_id,
      if_not_exists: "create",
      metadata: {
        ...cron.metadata,
        ...(cron.payload.metadata as object | undefined),
        cron_id: cron.cron_id,
      },
    } as RunBody;
    const run = await startRun(ctx, threadId, body, ["values"], cron.creator);
    if (cron.thread_id === null && cron.on_run_completed !== "keep") {
      deleteThreadWhenEnded(ctx, run).catch(() => {
        // A thread left behind is found by search and deleted like any other.
      });
    }
  }
}

/** An end time as ISO, or a 400. */
function checkedTime(value: string | null | undefined): string | null {
  if (value == null) return null;
  const at = Date.parse(value);
  if (Number.isNaN(at)) {
    throw new RequestError(
      400,
      "INVALID_BODY",
      `end_time "${value}" is not a date and time (ISO 8601, e.g. "2027-01-01T00:00:00Z").`,
      {
        fields: [{ path: "end_time", message: "not a date and time" }],
      },
    );
  }
  return new Date(at).toISOString();
}
