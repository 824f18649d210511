import type { BackgroundRun, RunInput, RunStatus } from "../graph/running/graph-runs.js";

export type {
  BackgroundRun,
  GraphRuns,
  MultitaskStrategy,
  RunCreateOptions,
  RunInput,
  RunListOptions,
  RunService,
  RunStatus,
} from "../graph/running/graph-runs.js";

/** The statuses a run never leaves. */
export const FINAL_RUN_STATUSES: ReadonlySet<RunStatus> = new Set([
  "success",
  "error",
  "interrupted",
  "cancelled",
]);

/** The statuses of a run that holds its thread's turn: one at a time per thread. */
export const ACTIVE_RUN_STATUSES: readonly RunStatus[] = ["pending", "running"];

/**
 * What a worker needs to execute a run, stored with it as JSON until one takes it.
 *
 * @example
 * const request: RunRequest = { input: { input: { n: 1 } }, streamModes: ["values"] };
 */
export interface RunRequest {
  input: RunInput;
  context?: unknown;
  /**
   * Keys added to the run's `config.configurable` (besides `thread_id`), e.g. the server's
   * `langgraph_auth_user`: the authenticated user who started the run.
   */
  configurable?: Record<string, unknown>;
  interruptBefore?: string[];
  interruptAfter?: string[];
  checkpointId?: string;
  /** Most super-steps the run may take (`InvokeOptions.recursionLimit`). */
  recursionLimit?: number;
  /** The stream modes a client asked for (the server's wire names); executors may ignore them. */
  streamModes?: string[];
  /** Whether the subgraphs' parts are streamed too (`StreamOptions.subgraphs`). */
  streamSubgraphs?: boolean;
  /** LangGraph's per-run `webhook`: an http(s) URL the run is posted to when it ends. */
  webhook?: string;
  /**
   * Set when the run's resume was recorded as review decisions (naming the run) before the
   * run was created, as the server does for a resume it checked against what waits:
   * workers then need not look them up. `toolReviews`: whether one answers a tool review
   * (the tools' results are recorded after the run).
   */
  decisionsRecorded?: { toolReviews: boolean };
}

/**
 * A run as its queue keeps it: the public record plus what workers need. `attempt` counts
 * the times a worker took it (more than one when a worker died holding it);
 * `cancelAction` is set while a stop was asked for and the run has not ended yet.
 *
 * @example
 * const stopping = run.status === "running" && run.cancelAction !== null;
 */
export interface QueuedRun extends BackgroundRun {
  request: RunRequest;
  attempt: number;
  cancelAction: StopAction | null;
}

/**
 * Something a run reported while it worked (e.g. a stream chunk), kept so a client that
 * joins late sees it too. `seq` counts from 1 per run.
 *
 * @example
 * const event: RunEvent = { seq: 1, event: "values", data: { n: 1 } };
 */
export interface RunEvent {
  seq: number;
  event: string;
  data: unknown;
}

/**
 * Why a working run is being stopped: `cancel` (through `runs.cancel`; it ends `cancelled`),
 * `interrupt` (a newer run's multitask strategy; it ends `interrupted`, its progress kept) or
 * `rollback` (it ends `cancelled` and what it wrote is dropped).
 */
export type StopAction = "cancel" | "interrupt" | "rollback";

/** The public record of a queued run (without what only workers read). */
export function publicRun(run: QueuedRun): BackgroundRun {
  const { request: _request, attempt: _attempt, cancelAction: _cancel, ...record } = run;
  return record;
}
