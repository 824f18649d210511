// A subgraph run's checkpoints as its history lists them: one per step.
import type { Checkpoint } from "../../checkpoint/checkpointer.js";

/**
 * A subgraph run's checkpoints as its history lists them: one per step, newest first, as
 * LangGraph.js lists a child's. A step of ours can leave more than one checkpoint in
 * threads written before pauses were stored as LangGraph stores them (an `interrupt()`'s
 * pause as pending writes of its barrier, a static breakpoint as that barrier): the
 * barrier and a pause checkpoint, or a breakpoint's barrier, its pause and the barrier
 * passed again; and an update applied to a paused step. Only the newest of a step is listed
 * (the pause, with its interrupts; an update, which is an entry of its own, aside), and
 * `parentId` skips the ones left out, so the parent links stay within the list. Only a
 * checkpoint's own parent of the same step is left out: a run started afresh in the same
 * namespace (a fork re-running the parent's step) keeps its own chain.
 *
 * Fed newest first (as `Checkpointer.list` pages come); it holds one checkpoint back until
 * the next one shows, so an entry's parent is known before it is yielded.
 *
 * @example
 * for await (const { checkpoint, parentId } of oneCheckpointPerStep(pages)) view(checkpoint, parentId);
 */
export async function* oneCheckpointPerStep(
  newestFirst: AsyncIterable<Checkpoint>,
): AsyncGenerator<{ checkpoint: Checkpoint; parentId: string | null }> {
  let held: Checkpoint | undefined;
  let parentId: string | null = null;
  for await (const checkpoint of newestFirst) {
    // An older checkpoint of the held one's step, in its own chain: left out, its parent
    // inherited. An update is an entry of its own, as each of LangGraph's updates is.
    if (
      held &&
      held.metadata.source !== "update" &&
      checkpoint.id === parentId &&
      checkpoint.metadata.step === held.metadata.step
    ) {
      parentId = checkpoint.parentId;
      continue;
    }
    if (held) yield { checkpoint: held, parentId };
    held = checkpoint;
    parentId = checkpoint.parentId;
  }
  if (held) yield { checkpoint: held, parentId };
}
