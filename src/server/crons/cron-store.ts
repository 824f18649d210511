// Crons as kept: what each runs, on which schedule, and when it fires next.
import type { RequestIdentity } from "../auth/identity.js";

/**
 * A cron as stored: LangGraph's `Cron` fields, and who made it (its runs start as theirs).
 * `next_run_date` is null once it will not fire again (disabled, or past its `end_time`).
 */
export interface CronRecord {
  cron_id: string;
  assistant_id: string;
  /** The thread every run goes to; null: a new thread per run (a stateless cron). */
  thread_id: string | null;
  /** A stateless cron's thread after its run: deleted (the default) or kept. */
  on_run_completed: "delete" | "keep";
  end_time: string | null;
  schedule: string;
  timezone: string | null;
  /** The run each firing starts: a runs-API body without `assistant_id`. */
  payload: Record<string, unknown>;
  metadata: Record<string, unknown>;
  enabled: boolean;
  next_run_date: string | null;
  user_id: string | null;
  created_at: string;
  updated_at: string;
  /** Who made it; its runs start as this caller. Never sent to clients. */
  creator?: RequestIdentity;
}

/**
 * Where crons are kept: beside the threads, so they outlive the process and every server on
 * the database sees them. `advance` is how a firing is claimed: of the servers and workers,
 * the one whose compare-and-set moves `next_run_date` on starts the run.
 */
export interface CronStore {
  put(cron: CronRecord): Promise<void>;
  get(cronId: string): Promise<CronRecord | undefined>;
  delete(cronId: string): Promise<boolean>;
  /** Every cron, for search (crons are few). */
  all(): Promise<CronRecord[]>;
  /** Enabled crons whose `next_run_date` is at or before `now` (ISO). */
  due(now: string): Promise<CronRecord[]>;
  /** Move `next_run_date` from `from` to `to`; false if another process did first. */
  advance(cronId: string, from: string, to: string | null): Promise<boolean>;
}

/**
 * Crons in this process's memory, for the memory checkpointer.
 *
 * @example
 * const crons = new MemoryCronStore();
 */
export class MemoryCronStore implements CronStore {
  readonly #crons = new Map<string, string>();

  async put(cron: CronRecord): Promise<void> {
    this.#crons.set(cron.cron_id, JSON.stringify(cron));
  }

  async get(cronId: string): Promise<CronRecord | undefined> {
    const text = this.#crons.get(cronId);
    return text === undefined ? undefined : (JSON.parse(text) as CronRecord);
  }

  async delete(cronId: string): Promise<boolean> {
    return this.#crons.delete(cronId);
  }

  async all(): Promise<CronRecord[]> {
    return [...this.#crons.values()].map((text) => JSON.parse(text) as CronRecord);
  }

  async due(now: string): Promise<CronRecord[]> {
    return (await this.all()).filter(
      (c) => c.enabled && c.next_run_date !== null && c.next_run_date <= now,
    );
  }

  async advance(cronId: string, from: string, to: string | null): Promise<boolean> {
    const cron = await this.get(cronId);
    if (!cron || cron.next_run_date !== from) return false;
    await this.put({ ...cron, next_run_date: to });
    return true;
  }
}
