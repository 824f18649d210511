import type { RunEvent } from "./run.js";

/** Events kept per run for late joiners; a longer run keeps only its latest. */
const KEPT_EVENTS = 10_000;
/** Logs of ended runs kept for late joiners; the oldest go first. */
const KEPT_LOGS = 1000;

interface Log {
  events: RunEvent[];
  ended: boolean;
  listeners: Set<() => void>;
}

/**
 * What runs executed in this process reported, for clients that stream or join them,
 * including late ones: each event once, in order, then the end.
 *
 * @example
 * log.append("r1", "values", { n: 1 });
 * for await (const e of log.read("r1")) send(e);
 */
export class RunEventLog {
  readonly #logs = new Map<string, Log>();

  has(runId: string): boolean {
    return this.#logs.has(runId);
  }

  append(runId: string, event: string, data: unknown): void {
    const log = this.#open(runId);
    const seq = (log.events.at(-1)?.seq ?? 0) + 1;
    log.events.push({ seq, event, data });
    if (log.events.length > KEPT_EVENTS) log.events.shift();
    this.#wake(log);
  }

  /** Whether the run's log was ended (false for a run with no log here). */
  ended(runId: string): boolean {
    return this.#logs.get(runId)?.ended === true;
  }

  /** The run will report nothing more. */
  end(runId: string): void {
    const log = this.#open(runId);
    log.ended = true;
    this.#wake(log);
    if (this.#logs.size > KEPT_LOGS) {
      for (const [id, l] of this.#logs) {
        if (this.#logs.size <= KEPT_LOGS) break;
        if (l.ended) this.#logs.delete(id);
      }
    }
  }

  /** From `afterSeq` on: what is there, then each new event, until the run ends or `signal` aborts. */
  async *read(runId: string, options: { afterSeq?: number; signal?: AbortSignal } = {}) {
    const log = this.#logs.get(runId);
    if (!log) return;
    let seq = options.afterSeq ?? 0;
    for (;;) {
      for (const event of log.events) {
        if (event.seq <= seq) continue;
        seq = event.seq;
        yield event;
      }
      if (options.signal?.aborted) return;
      // Events may have come while the last ones were consumed: send those first.
      if ((log.events.at(-1)?.seq ?? 0) > seq) continue;
      if (log.ended) return;
      await new Promise<void>((resolve) => {
        const wake = () => {
          log.listeners.delete(wake);
          options.signal?.removeEventListener("abort", wake);
          resolve();
        };
        log.listeners.add(wake);
        options.signal?.addEventListener("abort", wake, { once: true });
      });
    }
  }

  /** Start the run's log (empty) so readers wait for its events. */
  open(runId: string): void {
    this.#open(runId);
  }

  #open(runId: string): Log {
    let log = this.#logs.get(runId);
    if (!log) {
      log = { events: [], ended: false, listeners: new Set() };
      this.#logs.set(runId, log);
    }
    return log;
  }

  #wake(log: Log): void {
    for (const wake of [...log.listeners]) wake();
  }
}
