import type { CompiledGraph } from "../index.js";
import type { QueuedRun } from "./run.js";

/**
 * Drop what a stopped run wrote (`multitaskStrategy: "rollback"`, `cancel({ action:
 * "rollback" })`): rewind its thread to the checkpoint before the run's first. Runs go one
 * at a time per thread, so every checkpoint after that one is the run's (each names it in
 * `metadata.runId`).
 *
 * @example
 * await rewindRun(graph, run); // the thread reads as before the run
 */
export async function rewindRun(graph: CompiledGraph<any, any>, run: QueuedRun): Promise<void> {
  const checkpointer = graph.checkpointer;
  if (!checkpointer) return;
  // Newest first: the run's checkpoints, then the one it started from.
  let rewindTo: string | null | undefined;
  let cursor: string | undefined;
  pages: for (;;) {
    const page = await checkpointer.list(run.threadId, { limit: 50, before: cursor });
    for (const checkpoint of page) {
      if (checkpoint.metadata.runId !== run.runId) {
        if (rewindTo === undefined) return; // the run stored nothing
        break pages;
      }
      rewindTo = checkpoint.parentId;
    }
    if (page.length < 50) break;
    cursor = page.at(-1)!.id;
  }
  if (rewindTo === undefined) return;
  await (
    checkpointer as unknown as { rewindThread(t: string, to: string | null): Promise<number> }
  ).rewindThread(run.threadId, rewindTo);
}
