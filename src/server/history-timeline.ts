import type { StateSnapshot } from "../graph/running/state-snapshot.js";
import type { Decision } from "./decisions.js";

/**
 * One step of a thread as the inbox's timeline shows it: the nodes that ran (or wait to
 * run), what they wrote, and the decision that let them run.
 *
 * @example
 * const entry: TimelineEntry = { step: 3, checkpointId: "c4", createdAt: "2026-01-01T00:00:03.000Z",
 *   status: "ran", nodes: ["humanInTheLoop/afterModel"], writes: {}, next: ["tools"],
 *   pausedAt: "c3", decisions: [], finished: false };
 */
export interface TimelineEntry {
  /** The step's number: the step of the checkpoint it wrote (one more than the one before). */
  step: number;
  /** The checkpoint the step wrote; for a step that has not run yet, the latest checkpoint. */
  checkpointId: string;
  createdAt: string | undefined;
  /**
   * `"ran"`: the step is over; `"waiting"`: paused for a person (an interrupt inside a node,
   * or a breakpoint before it); `"next"`: runs next (the thread is running, or failed here).
   */
  status: "ran" | "waiting" | "next";
  /** The nodes of the step, in the graph's own names. */
  nodes: string[];
  /** What changed: appended items of a list, else the new value. */
  writes: Record<string, unknown>;
  /** The nodes that run after this step (empty after the last step of a finished run). */
  next: string[];
  /** The checkpoint the step paused at before it ran (the one a decision names), if it did. */
  pausedAt?: string;
  /** The reviewers' answers that let the step run, oldest first (a node may ask twice). */
  decisions: Decision[];
  /** The step ended the run: nothing runs after it and nothing waits. */
  finished: boolean;
}

/**
 * The timeline of a thread, oldest first: one entry per step, in order. `history` is a
 * history page as `getStateHistory` yields it (newest first); `decisions` the thread's
 * recorded decisions, each shown under the step it let run.
 *
 * Each entry's writes are read from the values, not from `metadata.writes` (which holds
 * each node's whole update): a list that grew shows only its new items (a conversation's timeline stays the
 * size of its messages). A pause (inside a node or before it) and its resume write
 * checkpoints of their own at the same step number; they are folded into the step that
 * runs on the answer (`pausedAt`, `decisions`), so step numbers do not repeat and the model
 * step that proposed a tool call always comes before the review that answered it.
 *
 * @example
 * const page = []; for await (const s of graph.getStateHistory(config, { limit: 100 })) page.push(s);
 * timelineOf(page, decisions).at(-1); // { step: 6, status: "ran", nodes: ["model"], finished: true, … }
 */
export function timelineOf(
  history: readonly StateSnapshot[],
  decisions: readonly Decision[] = [],
): TimelineEntry[] {
  const oldestFirst = [...history].reverse();
  const answered = (checkpoints: readonly StateSnapshot[]) =>
    checkpoints.flatMap((c) => decisions.filter((d) => d.checkpointId === idOf(c)));
  const entries: TimelineEntry[] = [];
  // The checkpoint a step starts from, and those written again at its step number since:
  // a pause inside a node (twice, if it asks twice) or before it, and the resume.
  let from: StateSnapshot | undefined;
  let again: StateSnapshot[] = [];
  for (const s of oldestFirst) {
    if (from === undefined) {
      from = s;
      continue;
    }
    if (stepOf(s) === stepOf(from)) {
      again.push(s);
      continue;
    }
    const startedAt = again.at(-1) ?? from;
    const stepDecisions = answered([from, ...again]);
    const pause = [from, ...again].findLast((c) => c.interrupts.length > 0);
    // `metadata.writes` (by node, as LangGraph records them) names the nodes that wrote;
    // what changed is still read from the values, so a list shows only its new items.
    const written = s.metadata?.writes;
    entries.push({
      step: stepOf(s),
      checkpointId: idOf(s),
      createdAt: s.createdAt,
      status: "ran",
      nodes: written ? Object.keys(written) : startedAt.tasks.map((t) => t.name),
      writes: changes(from.values, s.values),
      next: s.next,
      ...(pause && { pausedAt: idOf(pause) }),
      decisions: stepDecisions,
      finished: false,
    });
    from = s;
    again = [];
  }
  const latest = again.at(-1) ?? from;
  if (from && latest && latest.next.length > 0) {
    // The step that has not run yet: what it waits for, or that it runs next.
    const waiting = latest.interrupts.length > 0;
    entries.push({
      step: stepOf(latest) + 1,
      checkpointId: idOf(latest),
      createdAt: latest.createdAt,
      status: waiting ? "waiting" : "next",
      nodes: latest.next,
      // A pause part-way through a step shows what its finished tasks wrote so far.
      writes: changes(from.values, latest.values),
      next: [],
      ...(waiting && { pausedAt: idOf(latest) }),
      decisions: answered([from, ...again]),
      finished: false,
    });
  } else if (entries.length > 0) {
    entries.at(-1)!.finished = true;
  }
  return entries;
}

const stepOf = (s: StateSnapshot) => s.metadata?.step ?? 0;
const idOf = (s: StateSnapshot) => s.config.configurable?.checkpoint_id ?? "";

function changes(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(after)) {
    const was = before[key];
    const now = after[key];
    if (Array.isArray(was) && Array.isArray(now) && grew(was, now)) {
      if (now.length > was.length) out[key] = now.slice(was.length);
    } else if (!Object.hasOwn(before, key) || JSON.stringify(was) !== JSON.stringify(now)) {
      out[key] = now;
    }
  }
  return out;
}

/** Whether `now` starts with `was` (checked at its last item: lists in state grow at the end). */
function grew(was: unknown[], now: unknown[]): boolean {
  if (now.length < was.length) return false;
  if (was.length === 0) return true;
  const i = was.length - 1;
  return was[i] === now[i] || JSON.stringify(was[i]) === JSON.stringify(now[i]);
}
