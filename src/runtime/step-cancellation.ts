/**
 * Cancels the tasks of one step when the run stops under them, or when the caller's
 * signal aborts. Their `AbortSignal` is made on first use: most nodes never read it,
 * and making one costs more than running a simple node. It follows the caller's signal
 * through an 'abort' listener that `end()` removes, rather than `AbortSignal.any`, whose
 * source keeps every dependant until it aborts itself (on Node 20): a server's
 * long-lived signal passed to every call would collect one per step.
 */
export class StepCancellation {
  readonly #caller: AbortSignal | undefined;
  #controller: AbortController | undefined;
  #unfollow: (() => void) | undefined;
  #cancelled = false;
  #ended = false;

  /** `caller` is the run's own signal (`invoke(…, { signal })`), which aborts the tasks too. */
  constructor(caller: AbortSignal | undefined) {
    this.#caller = caller;
  }

  get cancelled(): boolean {
    return this.#cancelled;
  }

  /** What node code sees as `runtime.signal`. */
  get signal(): AbortSignal {
    if (!this.#controller) {
      const controller = new AbortController();
      this.#controller = controller;
      const caller = this.#caller;
      if (this.#cancelled) controller.abort();
      else if (caller?.aborted) controller.abort(caller.reason);
      else if (caller && !this.#ended) {
        const follow = () => controller.abort(caller.reason);
        caller.addEventListener("abort", follow, { once: true });
        this.#unfollow = () => caller.removeEventListener("abort", follow);
      }
    }
    return this.#controller.signal;
  }

  /** The run stopped under the step: abort its tasks' signal. */
  cancel(): void {
    this.#cancelled = true;
    this.end();
    this.#controller?.abort();
  }

  /** Every task of the step finished: stop following the caller's signal (aborts nothing). */
  end(): void {
    this.#ended = true;
    this.#unfollow?.();
    this.#unfollow = undefined;
  }
}
