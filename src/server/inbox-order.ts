import type { InboxItem } from "./inbox-items.js";

/**
 * The inbox's order: items with a deadline first, the soonest (or most overdue) on top;
 * then the rest, newest first. Stable for equal keys, so a page does not reshuffle.
 *
 * @example
 * items.sort(byTimeLeft);
 */
export function byTimeLeft(a: InboxItem, b: InboxItem): number {
  const at = (i: InboxItem) => (i.deadline ? Date.parse(i.deadline.at) : Number.POSITIVE_INFINITY);
  const [da, db] = [at(a), at(b)];
  if (da !== db) return da < db ? -1 : 1;
  return Date.parse(b.waitingSince) - Date.parse(a.waitingSince);
}
