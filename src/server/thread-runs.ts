// A thread's runs one after another, as a thread's streams relay them (joinStream, v2).
import type { BackgroundRun } from "../runs/index.js";
import type { ServerContext } from "./server-context.js";

/** How often the streams look for a new run when no change was heard (another process's). */
const POLL_MS = 1000;

/**
 * Each run of the thread not in `done`, oldest first among its latest `window`, then each
 * that starts, until `signal` aborts or the runs close; each yielded run is added to `done`.
 * Between runs it waits, woken by a change on the thread here (or by `listen`'s wake, for a
 * stream with more to send) or by a poll for other processes' runs, and yields `undefined`
 * after each wait that found no new run, so the caller can send what woke it.
 *
 * @example
 * for await (const run of threadRuns(ctx, threadId, { window: 100, done, signal })) if (run) await relay(run);
 */
export async function* threadRuns(
  ctx: ServerContext,
  threadId: string,
  options: {
    window: number;
    done: Set<string>;
    signal: AbortSignal;
    /** Another source of wake-ups: called with the wake, returns how to stop listening. */
    listen?: (wake: () => void) => () => void;
  },
): AsyncGenerator<BackgroundRun | undefined> {
  const { window, done, signal } = options;
  let wake: (() => void) | undefined;
  const wakeUp = () => wake?.();
  const unheard = ctx.events.subscribe((e) => {
    if (e.threadId === threadId) wakeUp();
  });
  const unlisten = options.listen?.(wakeUp) ?? (() => {});
  signal.addEventListener("abort", wakeUp, { once: true });
  try {
    while (!signal.aborted && !ctx.runs.closed) {
      const runs = (await ctx.runs.list({ threadId, limit: window })).reverse();
      const next = runs.find((r) => !done.has(r.runId));
      if (next) {
        done.add(next.runId);
        yield next;
        continue;
      }
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, POLL_MS).unref?.();
      });
      wake = undefined;
      if (!signal.aborted) yield undefined;
    }
  } finally {
    unheard();
    unlisten();
    signal.removeEventListener("abort", wakeUp);
  }
}
