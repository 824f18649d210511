import type { ConformanceRow } from "../../src/testing/checkpointer-conformance.js";

/** SQL that overwrites one stored row's payload, as damage on disk would. */
export function damageStatement(row: ConformanceRow, prefix = "stateweaver_"): string {
  return row.taskId === undefined
    ? `update ${prefix}checkpoints set payload = $4 where thread_id = $1 and ns = $2 and id = $3`
    : `update ${prefix}writes set payload = $5 where thread_id = $1 and ns = $2 and checkpoint_id = $3 and task_id = $4`;
}

export function damageParams(row: ConformanceRow, payload: string): unknown[] {
  const { threadId, ns, checkpointId, taskId } = row;
  return taskId === undefined
    ? [threadId, ns, checkpointId, payload]
    : [threadId, ns, checkpointId, taskId, payload];
}
