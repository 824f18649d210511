import { InvalidConfigError } from "../errors/index.js";
import type { RunEvent } from "./run-events.js";
import { STREAM_MODES, type StreamMode } from "./stream-parts.js";

/**
 * Runs `start` with an emitter and yields what `map` makes of each event, in order, as the
 * run goes; returns the run's result, or throws its error, once every event is yielded.
 *
 * @example
 * return runStream((emit) => runner.run(plan, options, emit), (e) => (e.type === "values" ? [e] : []));
 */
export async function* runStream<T, R>(
  start: (emit: (event: RunEvent) => void) => Promise<R>,
  map: (event: RunEvent) => readonly T[],
): AsyncGenerator<T, R> {
  const queue: T[] = [];
  let notify: (() => void) | undefined;
  let finished = false;
  const emit = (event: RunEvent) => {
    const out = map(event);
    if (out.length === 0) return;
    queue.push(...out);
    notify?.();
  };
  const run = start(emit).finally(() => {
    finished = true;
    notify?.();
  });
  run.catch(() => {});
  for (;;) {
    while (queue.length > 0) yield queue.shift()!;
    if (finished) return await run;
    await new Promise<void>((resolve) => {
      notify = resolve;
    });
    notify = undefined;
  }
}

/** The modes a `streamMode` option asks for; an unknown one is an `InvalidConfigError`. */
export function streamModes(value: StreamMode | readonly StreamMode[]): ReadonlySet<StreamMode> {
  const list = typeof value === "string" ? [value] : value;
  if (!Array.isArray(list) || list.length === 0) {
    throw new InvalidConfigError(
      `streamMode must be a stream mode or a non-empty list of them (${STREAM_MODES.join(", ")}).`,
    );
  }
  for (const mode of list) {
    if (!STREAM_MODES.includes(mode)) {
      throw new InvalidConfigError(
        `Unknown streamMode "${String(mode)}". Use one or more of: ${STREAM_MODES.join(", ")}.`,
      );
    }
  }
  return new Set(list);
}
