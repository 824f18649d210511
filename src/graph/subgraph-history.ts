import type { Checkpoint } from "../checkpoint/checkpointer.js";

/**
 * A subgraph run's checkpoints as its history lists them: one per step, newest first, as
 * LangGraph.js lists a child's. A step of ours can leave more than one checkpoint: the
 * barrier that starts it, the pause it came to (an interrupt or a breakpoint) and, once a
 * breakpoint is continued, the barrier passed again. Only the newest of a step is listed
 * (the pause, with its interrupts; past a breakpoint, the barrier it went on from), and
 * `parentId` names the entry listed after it, so the parent links stay within the list.
 *
 * Fed newest first (as `Checkpointer.list` pages come); it holds one checkpoint back until
 * the next step's shows, so an entry's parent is known before it is yielded.
 *
 * @example
 * for await (const { checkpoint, parentId } of oneCheckpointPerStep(pages)) view(checkpoint, parentId);
 */
export async function* oneCheckpointPerStep(
  newestFirst: AsyncIterable<Checkpoint>,
): AsyncGenerator<{ checkpoint: Checkpoint; parentId: string | null }> {
  let held: Checkpoint | undefined;
  for await (const checkpoint of newestFirst) {
    if (held && checkpoint.metadata.step === held.metadata.step) continue;
    if (held) yield { checkpoint: held, parentId: checkpoint.id };
    held = checkpoint;
  }
  if (held) yield { checkpoint: held, parentId: held.parentId };
}
