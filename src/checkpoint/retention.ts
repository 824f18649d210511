/** What `planPrune` needs of a checkpoint: its id and metadata (not its state). */
export interface PruneCandidate {
  id: string;
  metadata: Record<string, unknown>;
}

/** What a `prune` keeps: checkpoint ids per namespace. Every namespace not listed goes. */
export type PrunePlan = Map<string, Set<string>>;

/**
 * Decides what `prune` keeps, from the thread's latest top-level checkpoints (newest first,
 * as many as are kept) and each subgraph namespace's latest checkpoint. Pure: every store
 * reads these, asks, then deletes the rest.
 *
 * Why this much and no more: a run or a `getState` reads a thread only through
 * - a top-level checkpoint (the latest, or one named by `checkpoint_id`): kept;
 * - that checkpoint's step origin (`metadata.stepOrigin`, a paused step's barrier): the
 *   resumed step stores its finished tasks' writes against it, so it must exist;
 * - a subgraph namespace's *latest* checkpoint, and only when its `metadata.parentStep` is
 *   the step origin of the checkpoint the parent resumes from (`runNested`,
 *   `viewCheckpoint`); a namespace whose latest belongs to another step is started afresh,
 *   as if it were not there. So a namespace is kept when its latest belongs to a kept
 *   step, with that latest and its own step origin, and nested levels follow the same rule.
 *
 * Step origins are checkpoint ids, unique across namespaces, so the rule needs no parsing
 * of namespace names (whose node and task ids may hold any character).
 */
export function planPrune(
  top: PruneCandidate[],
  namespaces: Array<{ ns: string; latest: PruneCandidate }>,
): PrunePlan {
  const plan: PrunePlan = new Map();
  const origins = new Set<string>();
  const keep = (ns: string, c: PruneCandidate) => {
    const origin = stepOriginOf(c);
    const ids = plan.get(ns) ?? new Set<string>();
    ids.add(c.id).add(origin);
    plan.set(ns, ids);
    origins.add(origin);
  };
  for (const c of top) keep("", c);
  // Nested levels hang off kept steps of their parents: repeat until nothing more is kept.
  let rest = namespaces.filter(({ ns }) => ns !== "");
  for (let grew = true; grew; ) {
    grew = false;
    rest = rest.filter(({ ns, latest }) => {
      const parent = latest.metadata.parentStep;
      if (typeof parent !== "string" || !origins.has(parent)) return true;
      keep(ns, latest);
      grew = true;
      return false;
    });
  }
  return plan;
}

/**
 * The barrier checkpoint a checkpoint's step started from: a pause names it in
 * `metadata.stepOrigin`, a barrier is its own (as `stepOriginOf` in runtime/, which this
 * layer cannot import).
 */
function stepOriginOf(c: PruneCandidate): string {
  return typeof c.metadata.stepOrigin === "string" ? c.metadata.stepOrigin : c.id;
}
