/**
 * Cancels the tasks of one step when the run stops under them. Their
 * `AbortSignal` is made on first use: most nodes never read it, and making one
 * costs more than running a simple node.
 */
export class StepCancellation {
  readonly #caller: AbortSignal | undefined;
  #controller: AbortController | undefined;
  #signal: AbortSignal | undefined;
  #cancelled = false;

  /** `caller` is the run's own signal (`invoke(…, { signal })`), which aborts the tasks too. */
  constructor(caller: AbortSignal | undefined) {
    this.#caller = caller;
  }

  get cancelled(): boolean {
    return this.#cancelled;
  }

  /** What node code sees as `runtime.signal`. */
  get signal(): AbortSignal {
    if (!this.#signal) {
      this.#controller = new AbortController();
      if (this.#cancelled) this.#controller.abort();
      const own = this.#controller.signal;
      this.#signal = this.#caller ? AbortSignal.any([own, this.#caller]) : own;
    }
    return this.#signal;
  }

  cancel(): void {
    this.#cancelled = true;
    this.#controller?.abort();
  }
}
