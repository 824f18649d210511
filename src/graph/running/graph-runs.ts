// Background runs as the graph sees them: the run service port and the per-graph view `graph.runs`.
/**
 * Background runs as the graph layer sees them: the port a run service (`stateweaver/runs`,
 * the server, a worker) implements, and the per-graph view `graph.runs` gives users. The
 * graph layer only declares them; the queue that keeps and executes runs lives above it.
 */

/**
 * Where a run stands: waiting to start, working, or how it ended. `interrupted` means the
 * graph paused for a person, or that a newer run with `multitaskStrategy: "interrupt"`
 * stopped it at a barrier (its progress kept); `cancelled` means it was stopped through
 * `cancel` or rolled back.
 *
 * @example
 * const ended: RunStatus[] = ["success", "error", "interrupted", "cancelled"];
 */
export type RunStatus = "pending" | "running" | "success" | "error" | "interrupted" | "cancelled";

/**
 * What happens to a new run for a thread that already has one pending or working, as in
 * LangGraph's server: `reject` it (the default), `enqueue` it after the others, `interrupt`
 * the working run at its next barrier (keeping what it did) and start, or `rollback` the
 * working run (dropping what it wrote) and start.
 *
 * @example
 * await graph.runs.create("t1", null, { multitaskStrategy: "enqueue" });
 */
export type MultitaskStrategy = "reject" | "enqueue" | "interrupt" | "rollback";

/**
 * One background run, as stored. Times are ISO-8601; `startedAt`/`endedAt` stay `null`
 * until the run starts/ends.
 *
 * @example
 * const run: BackgroundRun = await graph.runs.create("t1", { n: 1 });
 * run.status; // "pending"
 */
export interface BackgroundRun {
  runId: string;
  threadId: string;
  /** The graph (assistant) the run drives: its `name`. */
  graphId: string;
  status: RunStatus;
  multitaskStrategy: MultitaskStrategy;
  createdAt: string;
  updatedAt: string;
  startedAt: string | null;
  endedAt: string | null;
  /** Why the run failed, while `status` is `error`. */
  error: { name: string; message: string } | null;
  metadata: Record<string, unknown>;
}

/**
 * What a run starts from: new input, a `Command` (resume, update, goto) in its JSON form,
 * or `null` to continue from the thread's checkpoint (e.g. past a breakpoint).
 *
 * @example
 * const resume: RunInput = { command: { resume: { decisions: [{ type: "approve" }] } } };
 */
export type RunInput =
  | { input: unknown }
  | { command: { resume?: unknown; update?: Record<string, unknown>; goto?: string | string[] } }
  | null;

/** Options of `graph.runs.create`. */
export interface RunCreateOptions {
  /** What to do if the thread has a run pending or working (default `"reject"`). */
  multitaskStrategy?: MultitaskStrategy;
  /** Kept on the run and merged into the thread's metadata. */
  metadata?: Record<string, unknown>;
  /** The run's id, when the caller chose it (a UUID); otherwise one is made. */
  runId?: string;
  /** Passed to nodes as `runtime.context`; stored with the run until it ends. */
  context?: unknown;
  /** Keys added to the run's `config.configurable` (the server's `langgraph_auth_user`). */
  configurable?: Record<string, unknown>;
  interruptBefore?: string[];
  interruptAfter?: string[];
  /** Start from this checkpoint (time travel) instead of the latest. */
  checkpointId?: string;
  /** Most super-steps the run may take (default 25, as `invoke`'s `recursionLimit`). */
  recursionLimit?: number;
  /** Stream modes a client asked for, kept with the run for whoever executes it. */
  streamModes?: string[];
  /** Whether the client asked for the subgraphs' parts too, kept like `streamModes`. */
  streamSubgraphs?: boolean;
  /**
   * Start no sooner than this many ms from now: the run is `pending` until then (and its
   * thread busy, so `reject` refuses other runs), then goes to a worker like any other.
   */
  delayMs?: number;
}

/** Filters of `runs.list`, newest first. */
export interface RunListOptions {
  threadId?: string;
  status?: RunStatus;
  /** At most this many (default 50). */
  limit?: number;
}

/**
 * The port a run service implements: runs of any hosted graph, by graph id.
 *
 * @example
 * const run = await service.create({ graphId: "ops", threadId: "t1", input: { input: { n: 1 } } });
 * await service.join(run.runId); // { status: "success", … }
 */
export interface RunService {
  /** Enqueue a run; throws `ThreadBusyError` if the thread is busy and the strategy is `reject`. */
  create(
    request: { graphId: string; threadId: string; input: RunInput } & RunCreateOptions,
  ): Promise<BackgroundRun>;
  get(runId: string): Promise<BackgroundRun | undefined>;
  list(options?: RunListOptions): Promise<BackgroundRun[]>;
  /** Wait until the run ends (or `signal` aborts); its final record. */
  join(runId: string, options?: { signal?: AbortSignal }): Promise<BackgroundRun>;
  /**
   * Stop a pending or working run through its signal (`"interrupt"`, the default, keeps what
   * it wrote; `"rollback"` drops it). `undefined` for an unknown run; an ended run is returned
   * as it is.
   */
  cancel(
    runId: string,
    options?: { action?: "interrupt" | "rollback"; wait?: boolean },
  ): Promise<BackgroundRun | undefined>;
}

/**
 * `graph.runs`: background runs of one graph, on a run service the graph was bound to with
 * `graph.withRuns(service)` (as `stateweaver serve` and `stateweaver worker` do).
 *
 * @example
 * const run = await graph.runs.create("t1", { n: 1 }, { multitaskStrategy: "enqueue" });
 * const ended = await graph.runs.join(run.runId);
 */
export interface GraphRuns {
  /** `input` is new input, a `Command`, or `null` (continue from the checkpoint). */
  create(threadId: string, input: unknown, options?: RunCreateOptions): Promise<BackgroundRun>;
  get(runId: string): Promise<BackgroundRun | undefined>;
  /** This graph's runs on the thread, newest first. */
  list(threadId: string, options?: Omit<RunListOptions, "threadId">): Promise<BackgroundRun[]>;
  join(runId: string, options?: { signal?: AbortSignal }): Promise<BackgroundRun>;
  cancel(
    runId: string,
    options?: { action?: "interrupt" | "rollback"; wait?: boolean },
  ): Promise<BackgroundRun | undefined>;
}
