// Reads back, from a thread's checkpoints, the attempts of tasks that were waiting to be retried.
import type { Checkpointer, CheckpointTuple, PendingWrite } from "../../checkpoint/checkpointer.js";
import { TASK_ERROR, type TaskErrorRecord } from "../../runtime/checkpoint-writer.js";
import { stepOriginOfTuple } from "../../runtime/recover-step.js";

/**
 * The attempts of tasks that were waiting to be retried, or had been retried, when their
 * run stopped: aborted or killed mid-wait (read from the pending writes of the barrier the
 * run restarts from), or paused by an interrupt in a later attempt (read from the barrier
 * its step started from); by task id. A task whose last attempt failed for good is not in
 * it: continuing a failed run gives its node a fresh set of attempts.
 *
 * @example
 * const prior = await retryingAttempts(checkpointer, tuple); // Map { "3:fetch:0" => 2 }
 */
export async function retryingAttempts(
  checkpointer: Checkpointer,
  tuple: CheckpointTuple,
): Promise<Map<string, number> | undefined> {
  const { checkpoint } = tuple;
  // A pause stored as pending writes is on its step's barrier: the attempts are there too.
  const origin = stepOriginOfTuple(tuple);
  if (checkpoint.interrupts.length === 0 || origin === checkpoint.id) {
    return attemptsIn(tuple.pendingWrites);
  }
  const step = await checkpointer.get(checkpoint.threadId, checkpoint.ns, origin);
  return step && attemptsIn(step.pendingWrites);
}

function attemptsIn(writes: readonly PendingWrite[]): Map<string, number> | undefined {
  let found: Map<string, number> | undefined;
  for (const write of writes) {
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
