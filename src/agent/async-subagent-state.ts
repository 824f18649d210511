/**
 * What the parent agent keeps about its async subagent tasks: one record per task, in its
 * own state under `asyncTasks`, so the ids survive restarts with the thread.
 */

/**
 * Where a task stands, as the parent last saw it: a background run's status (`pending`,
 * `running`, `success`, `error`, `interrupted`, `cancelled`).
 *
 * @example
 * const seen: AsyncTaskStatus = "running";
 */
export type AsyncTaskStatus =
  | "pending"
  | "running"
  | "success"
  | "error"
  | "interrupted"
  | "cancelled";

/**
 * One async subagent task. Its id is the id of the thread it runs on (a new thread per
 * task); `runId` is the run working on it now (a new one after each update).
 *
 * @example
 * const task: AsyncTask = state.asyncTasks[taskId];
 * task.status; // "running"
 */
export interface AsyncTask {
  taskId: string;
  /** The async subagent's name. */
  agentName: string;
  threadId: string;
  runId: string;
  status: AsyncTaskStatus;
  /** ISO-8601 times: created, last checked, last changed (status or a new run). */
  createdAt: string;
  checkedAt: string;
  updatedAt: string;
}

/** The state key the tasks live under. */
export const ASYNC_TASKS = "asyncTasks";

/**
 * The reducer of `asyncTasks`: merges records by task id, so two tools in one step that
 * each write a task both land.
 *
 * @example
 * mergeAsyncTasks({ a: taskA }, { b: taskB }); // { a: taskA, b: taskB }
 */
export function mergeAsyncTasks(
  existing: Readonly<Record<string, AsyncTask>> | undefined,
  update: Readonly<Record<string, AsyncTask>> | undefined,
): Record<string, AsyncTask> {
  return { ...(existing ?? {}), ...(update ?? {}) };
}
