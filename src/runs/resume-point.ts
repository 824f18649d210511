import { isPauseWrite, waitingInterrupts } from "../checkpoint/paused-tasks.js";
import type { CompiledGraph } from "../index.js";
import type { QueuedRun, RunInput } from "./run.js";

/**
 * Where a taken run starts. A first attempt starts from its own input. A later one (its
 * worker died) looks at the thread: if the latest checkpoint is the run's own (its metadata
 * names the run), the run got that far, so it continues from there with `null` input — or,
 * if that checkpoint is final or paused, it had already ended and only its status is due
 * (as it had when the run stored a pause against the latest, another run's checkpoint).
 * Otherwise nothing of it was stored, and it starts from its input again.
 *
 * @example
 * const point = await resumePoint(graph, run); // { input: null } after a takeover
 */
export async function resumePoint(
  graph: CompiledGraph<any, any>,
  run: QueuedRun,
): Promise<{ input: RunInput; ended?: "success" | "interrupted" }> {
  const own = run.request.input;
  const checkpointer = graph.checkpointer;
  if (run.attempt <= 1 || !checkpointer) return { input: own };
  // The dead attempt's claim on the thread is this run's: free it for this attempt now
  // rather than waiting for it to expire.
  await checkpointer.releaseThread(run.threadId, run.runId);
  const latest = await checkpointer.getLatest(run.threadId);
  if (!latest) return { input: own };
  const interrupts = waitingInterrupts(latest.checkpoint, latest.pendingWrites);
  // A pause is stored against the checkpoint its step started from, which may be another run's.
  const pausedHere = latest.pendingWrites.some((w) => w.runId === run.runId && isPauseWrite(w));
  if (pausedHere && interrupts.length > 0) return { input: null, ended: "interrupted" };
  if (latest.checkpoint.metadata.runId !== run.runId) return { input: own };
  const { next } = latest.checkpoint;
  if (interrupts.length > 0) return { input: null, ended: "interrupted" };
  if (next.length === 0) return { input: null, ended: "success" };
  return { input: null };
}
