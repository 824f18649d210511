// Whether a snapshot fits this graph before it is restored: every node it names must exist.
import type { Checkpoint } from "../../checkpoint/checkpointer.js";
import { CheckpointMismatchError } from "../../errors/index.js";
import type { GraphContext, TaskRecord } from "../../runtime/task.js";
import { END, START } from "../definition/constants.js";
import type { GraphInternals } from "./internals.js";

/** The lifecycle states of `stepping` that are not graph nodes. */
const STEPPING_STATES = new Set([START, "__fanout__"]);

/**
 * Check that a restored snapshot fits this graph before an actor is made from it:
 * every node it names (the state it rests in, its tasks and their routes) must exist.
 * XState would otherwise fail inside `createActor` and rethrow from a timer, which kills
 * the process however the caller handles the error.
 */
export function assertFitsGraph(
  g: GraphInternals,
  checkpoint: Checkpoint,
  snapshot: { value: unknown; context: GraphContext },
): void {
  const unknown = unknownNodeIn(g, snapshot);
  if (unknown !== undefined) {
    throw new CheckpointMismatchError(g.spec.name, checkpoint.threadId, checkpoint.id, unknown);
  }
}

/** The first node a snapshot names that this graph does not have, if any. */
export function unknownNodeIn(
  g: GraphInternals,
  snapshot: { value: unknown; context: GraphContext },
): string | undefined {
  const { value } = snapshot;
  if (typeof value === "object" && value !== null) {
    const stepping = (value as { stepping?: unknown }).stepping;
    const state = typeof stepping === "object" && stepping ? Object.keys(stepping)[0] : undefined;
    if (state === undefined) return String(Object.keys(value)[0] ?? "<none>");
    if (!STEPPING_STATES.has(state) && !g.nodeFns.has(state)) return state;
  } else if (typeof value !== "string" || !RESTING.has(value)) {
    return String(value);
  }
  for (const t of snapshot.context.tasks) {
    if (!isKnownTask(g, t)) return t.node;
    for (const s of t.next ?? []) if (!g.nodeFns.has(s.node)) return s.node;
  }
  return undefined;
}

const RESTING = new Set(["idle", "barrier", "breakpoint", "done", "failed"]);

function isKnownTask(g: GraphInternals, t: TaskRecord): boolean {
  if (t.kind === "input") return t.node === START;
  if (t.kind === "update") return t.node === END || g.nodeFns.has(t.node);
  return g.nodeFns.has(t.node);
}
