// The options of invoke/resume/stream and what they return.
import type { InspectionEvent, Observer } from "xstate";
import type { InterruptRecord } from "../../checkpoint/checkpointer.js";
import type { Durability } from "../../runtime/checkpoint-writer.js";
import type { StreamMode, StreamPart } from "../../stream/stream-parts.js";
import type { RunConfig, State } from "../definition/types.js";

/** An XState inspection observer (what `createActor(…, { inspect })` takes). */
export type InspectionObserver = Observer<InspectionEvent> | ((event: InspectionEvent) => void);

/** Options of `invoke`, `resume` and `stream`. */
export interface InvokeOptions<C = unknown> {
  config?: RunConfig;
  /** Maximum super-steps for this call (default 25). */
  recursionLimit?: number;
  signal?: AbortSignal;
  /** Passed to nodes as `runtime.context`; never checkpointed. */
  context?: C;
  /**
   * Observe the graph's actors as they run, e.g. with the Stately Inspector
   * (`createBrowserInspector().inspect`) or any XState inspection observer.
   */
  inspect?: InspectionObserver;
  /** Breakpoints for this call, on top of the compiled ones. */
  interruptBefore?: readonly string[];
  interruptAfter?: readonly string[];
  /**
   * When checkpoints must be stored: `"async"` (the default) writes each one while
   * the next step runs, and all before the call returns; `"sync"` starts a step
   * only once the checkpoint before it is stored. See `Durability`.
   */
  durability?: Durability;
  /**
   * JSON merged into the thread's metadata (key by key), which `searchThreads` and
   * `graph.threads.search` can filter on.
   *
   * @example
   * await graph.invoke(input, { config, metadata: { user: "u1", ticket: 42 } });
   */
  metadata?: Record<string, unknown>;
  /**
   * The id of the run this call is (e.g. a background run's): the thread is claimed under
   * it and every checkpoint the call writes names it in `metadata.runId`, so a worker that
   * takes over a run can tell how far it got. Without it, each call is a run of its own.
   */
  runId?: string;
}

/** The outcome of a run: finished, or paused waiting for `resume`. */
export type RunResult<S extends State = State> =
  | { status: "done"; state: S }
  | { status: "interrupted"; interrupt: InterruptRecord; interrupts: InterruptRecord[]; state: S };

/**
 * Options of `stream` and `streamEvents`: those of `invoke`, plus what to stream.
 * Without `streamMode`, `stream` yields its default `StreamEvent`s.
 *
 * @example
 * graph.stream(input, { config, streamMode: ["updates", "messages"], subgraphs: true });
 */
export interface StreamOptions<C = unknown> extends InvokeOptions<C> {
  /** One mode or several; each part says which it belongs to (`part.mode`). */
  streamMode?: StreamMode | readonly StreamMode[];
  /** Also stream the parts of subgraph runs (their `ns` names them). Default false. */
  subgraphs?: boolean;
}

/**
 * What `streamEvents` returns: the run's outcome with the parts streamed up to it.
 *
 * @example
 * const r = await agent.streamEvents(input, { config });
 * if (r.status === "interrupted") show(r.interrupt, r.events);
 */
export type StreamEventsResult<S extends State = State> =
  | { status: "done"; state: S; events: StreamPart[] }
  | {
      status: "interrupted";
      interrupt: InterruptRecord;
      interrupts: InterruptRecord[];
      state: S;
      events: StreamPart[];
    };
