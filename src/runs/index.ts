/**
 * Runs: work that drives a graph on one thread, with a status, a join and a cancel.
 * Today they run in this process (`InProcessRunRegistry`).
 *
 * @example
 * import { InProcessRunRegistry } from "../runs/index.js";
 */
export { InProcessRunRegistry } from "./in-process-run-registry.js";
export {
  FINAL_RUN_STATUSES,
  type RunEvent,
  type RunRecord,
  type RunStatus,
  type RunWork,
} from "./run.js";
