import { AgentConfigError } from "../errors/index.js";
import { currentTask } from "../runtime/interrupt.js";
import type { DeadlineExpiry, ReviewDeadline } from "./review.js";

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const DURATION = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)$/;

/**
 * Milliseconds of a duration written as a number of ms or as `"<n><unit>"` with unit ms, s,
 * m, h or d (`"90s"`, `"30m"`, `"2h"`, `"1.5d"`); `undefined` when it is neither, or not
 * positive.
 *
 * @example
 * parseDuration("2h"); // 7200000
 */
export function parseDuration(value: unknown): number | undefined {
  if (typeof value === "number") return Number.isFinite(value) && value > 0 ? value : undefined;
  if (typeof value !== "string") return undefined;
  const m = DURATION.exec(value.trim());
  if (!m) return undefined;
  const ms = Number(m[1]) * UNIT_MS[m[2]!]!;
  return ms > 0 ? ms : undefined;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** Checks a policy's `deadline` (`where` names it in errors); throws `AgentConfigError`. */
export function resolveDeadline(
  where: string,
  deadline: unknown,
): { afterMs: number; onExpiry: DeadlineExpiry } {
  if (!isObject(deadline)) {
    throw new AgentConfigError(
      `${where} must be { after, onExpiry }, e.g. { after: "2h", onExpiry: "wait" }.`,
    );
  }
  const afterMs = parseDuration(deadline.after);
  if (afterMs === undefined) {
    throw new AgentConfigError(
      `${where}.after is ${JSON.stringify(deadline.after)}; give a positive number of milliseconds or a duration such as "90s", "30m", "2h" or "1d".`,
    );
  }
  return { afterMs, onExpiry: resolveExpiry(`${where}.onExpiry`, deadline.onExpiry) };
}

function resolveExpiry(where: string, onExpiry: unknown): DeadlineExpiry {
  const usage = `use { reject: { message } }, { handOff: { group, message? } } or "wait"`;
  if (onExpiry === "wait") return "wait";
  if (!isObject(onExpiry) || Object.keys(onExpiry).length !== 1) {
    throw new AgentConfigError(`${where} is ${JSON.stringify(onExpiry)}; ${usage}.`);
  }
  const message = (v: unknown) => (isObject(v) ? v.message : undefined);
  if ("reject" in onExpiry) {
    const text = message(onExpiry.reject);
    if (!isObject(onExpiry.reject) || (text !== undefined && typeof text !== "string")) {
      throw new AgentConfigError(`${where}.reject must be { message?: string }.`);
    }
    return { reject: text === undefined ? {} : { message: text } };
  }
  if ("handOff" in onExpiry) {
    const handOff = onExpiry.handOff;
    const text = message(handOff);
    if (!isObject(handOff) || typeof handOff.group !== "string" || handOff.group.trim() === "") {
      throw new AgentConfigError(
        `${where}.handOff must name the group that takes the review over: { handOff: { group: "oncall" } }.`,
      );
    }
    if (text !== undefined && typeof text !== "string") {
      throw new AgentConfigError(`${where}.handOff.message must be a string.`);
    }
    return { handOff: { group: handOff.group, ...(text !== undefined && { message: text }) } };
  }
  throw new AgentConfigError(`${where} is ${JSON.stringify(onExpiry)}; ${usage}.`);
}

/**
 * The deadline of a review whose calls have these policy deadlines: the earliest one, with
 * its `onExpiry`. Its time is fixed when the review is first raised: when the node replays
 * the review on resume, the time recorded then is used again, so the interrupt's payload
 * does not change (a changed payload is an `InterruptReplayError`).
 */
export function reviewDeadlineOf(
  deadlines: ReadonlyArray<{ afterMs: number; onExpiry: DeadlineExpiry } | undefined>,
): ReviewDeadline | undefined {
  let soonest: { afterMs: number; onExpiry: DeadlineExpiry } | undefined;
  for (const d of deadlines) if (d && (!soonest || d.afterMs < soonest.afterMs)) soonest = d;
  if (!soonest) return undefined;
  const pad = currentTask.getStore();
  // The interrupt this review is about to reach, if an earlier run of the task reached it.
  const earlier = pad?.reached[pad.calls]?.value as { deadline?: { at?: unknown } } | undefined;
  const at =
    typeof earlier?.deadline?.at === "string"
      ? earlier.deadline.at
      : new Date(Date.now() + soonest.afterMs).toISOString();
  return { at, onExpiry: soonest.onExpiry };
}
