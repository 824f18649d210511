// When a cron fires next: its schedule (cron syntax) read in its time zone, by croner.
import { Cron } from "croner";
import { RequestError } from "../errors.js";

/**
 * The first time after `after` that `schedule` names, read in `timezone` (UTC without one);
 * `null` when none comes before `endTime`. A bad schedule or time zone is a 400 that says
 * what is accepted.
 *
 * @example
 * nextRunAfter("0 9 * * 1-5", "Europe/Berlin", new Date()); // the next weekday, 09:00 in Berlin
 */
export function nextRunAfter(
  schedule: string,
  timezone: string | null,
  after: Date,
  endTime: string | null = null,
): Date | null {
  let next: Date | null;
  try {
    next = new Cron(schedule, { timezone: timezone ?? "UTC", paused: true }).nextRun(after);
  } catch (error) {
    const what = /timezone/i.test((error as Error).message)
      ? `timezone "${timezone}" is not an IANA time zone (e.g. "Europe/Berlin", "America/New_York")`
      : `schedule "${schedule}" is not a cron schedule: five fields (minute hour day month weekday, e.g. "0 9 * * 1-5"), or six with seconds first`;
    throw new RequestError(400, "INVALID_SCHEDULE", `The ${what}.`, {
      fields: [{ path: /timezone/i.test(what) ? "timezone" : "schedule", message: what }],
    });
  }
  if (!next || (endTime !== null && next.getTime() > Date.parse(endTime))) return null;
  return next;
}
