import type { CompiledGraph } from "../index.js";
import type { QueuedRun } from "./run.js";

/** Checkpoints read per page while looking for where the run started. */
const PAGE = 50;

/**
 * Drop what a stopped run wrote (`multitaskStrategy: "rollback"`, `cancel({ action:
 * "rollback" })`): rewind its thread to the checkpoint that was latest when the run
 * started, removing the run's checkpoints and the pending writes it stored on the ones
 * kept. Runs go one at a time per thread, so the run's checkpoints are the newest, each
 * naming it in `metadata.runId`. A run that stored no checkpoint may still have stored
 * the writes of tasks it finished: the rewind to the current latest removes those.
 *
 * @example
 * await rewindRun(graph, run); // the thread reads as before the run
 */
export async function rewindRun(graph: CompiledGraph<any, any>, run: QueuedRun): Promise<void> {
  const checkpointer = graph.checkpointer;
  if (!checkpointer) return;
  // Newest first: the run's checkpoints, then the one it started from (none: a new thread).
  let rewindTo: string | null;
  let cursor: string | undefined;
  for (;;) {
    const page = await checkpointer.list(run.threadId, { limit: PAGE, before: cursor });
    const start = page.find((checkpoint) => checkpoint.metadata.runId !== run.runId);
    if (start) {
      rewindTo = start.id;
      break;
    }
    if (page.length < PAGE) {
      // An empty thread: the run stored nothing (its writes would need a checkpoint).
      if (cursor === undefined && page.length === 0) return;
      rewindTo = null;
      break;
    }
    cursor = page.at(-1)!.id;
  }
  await checkpointer.rewindThread(run.threadId, rewindTo, { runId: run.runId });
}
