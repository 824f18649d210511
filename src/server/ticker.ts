// A process's background chore on a timer (crons, the store's TTL sweep), quiet about the database.
import { isTransientDatabaseError } from "../checkpoint/index.js";
import { CheckpointerClosedError } from "../errors/index.js";

/**
 * Runs `tick` every `everyMs` until `stop()`, one at a time (a slow tick is not overlapped),
 * on a timer that does not hold the process. A tick that meets the store closed before this
 * process stopped ends the ticking; one that meets the database away (restarting, failing
 * over) waits for the next tick; any other error goes to `report`.
 *
 * @example
 * const sweep = new Ticker(60_000, () => store.sweepExpired(), console.error);
 * sweep.start();
 * await sweep.stop();
 */
export class Ticker {
  readonly #everyMs: number;
  readonly #tick: () => Promise<unknown>;
  readonly #report: (error: unknown) => void;
  #timer: NodeJS.Timeout | undefined;
  #ticking: Promise<void> | undefined;

  constructor(everyMs: number, tick: () => Promise<unknown>, report: (error: unknown) => void) {
    this.#everyMs = everyMs;
    this.#tick = tick;
    this.#report = report;
  }

  start(): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => {
      this.#ticking ??= this.#tick()
        .then(() => undefined)
        .catch((error: unknown) => {
          if (error instanceof CheckpointerClosedError) return void this.stop();
          if (!isTransientDatabaseError(error)) this.#report(error);
        })
        .finally(() => {
          this.#ticking = undefined;
        });
    }, this.#everyMs);
    this.#timer.unref();
  }

  /** Stops the timer and waits for a tick in progress (a tick that stops it must not await this). */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#ticking;
  }
}
