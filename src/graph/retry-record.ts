import type { CheckpointTuple } from "../checkpoint/checkpointer.js";
import { TASK_ERROR, type TaskErrorRecord } from "../runtime/checkpoint-writer.js";

/**
 * The attempts of tasks that were waiting to be retried when their run stopped (aborted,
 * or its process died), read from the pending writes of the checkpoint the run restarts
 * from; by task id. A task whose last attempt failed for good is not in it: continuing a
 * failed run gives its node a fresh set of attempts.
 *
 * @example
 * const prior = retryingAttempts(tuple); // Map { "3:fetch:0" => 2 }
 */
export function retryingAttempts(tuple: CheckpointTuple): Map<string, number> | undefined {
  let found: Map<string, number> | undefined;
  for (const write of tuple.pendingWrites) {
    for (const [key, value] of write.writes) {
      if (key !== TASK_ERROR) continue;
      const record = value as TaskErrorRecord;
      if (record.retrying && typeof record.attempts === "number") {
        found ??= new Map();
        found.set(write.taskId, record.attempts);
      }
    }
  }
  return found;
}
