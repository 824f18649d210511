import type { StateSnapshot } from "../graph/state-snapshot.js";

/** One step of a thread's history as the inbox's timeline shows it. */
export interface TimelineEntry {
  step: number;
  checkpointId: string;
  createdAt: string | undefined;
  /** The nodes whose step produced this checkpoint. */
  nodes: string[];
  /** What changed from the checkpoint before: appended items of a list, else the new value. */
  writes: Record<string, unknown>;
  /** The nodes that run next from here. */
  next: string[];
}

/**
 * The timeline of a history page (newest first): each checkpoint with the nodes that led to
 * it (the tasks of the checkpoint before) and what changed. Checkpoints store values, not a
 * step's writes, so what changed is read from the values: a list that grew shows only its
 * new items, so a conversation's timeline stays the size of its messages.
 *
 * @example
 * const page = []; for await (const s of graph.getStateHistory(config, { limit: 100 })) page.push(s);
 * timelineOf(page)[0]; // { step: 3, nodes: ["tools"], writes: { messages: [toolMessage] }, … }
 */
export function timelineOf(history: StateSnapshot[]): TimelineEntry[] {
  return history.map((s, i) => {
    const before = history[i + 1];
    const written = s.metadata?.writes;
    return {
      step: s.metadata?.step ?? 0,
      checkpointId: s.config.configurable?.checkpoint_id ?? "",
      createdAt: s.createdAt,
      nodes: written ? Object.keys(written) : (before?.tasks.map((t) => t.name) ?? []),
      writes: written ?? changes(before?.values ?? {}, s.values),
      next: s.next,
    };
  });
}

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
