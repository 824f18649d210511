import type { Checkpointer } from "../checkpoint/checkpointer.js";
import type { Store } from "../store/index.js";
import type { RunEvent } from "../stream/run-events.js";
import type { RunConfig } from "./node-runtime.js";
import type { GraphContext, TaskOutcome, TaskRecord } from "./task.js";

/**
 * What a run needs that is not state: the caller's config, context and abort
 * signal, and where events go. It is kept beside the actor (keyed by its actor
 * system) and never in the machine's context, so snapshots stay pure JSON.
 */
export interface RunEnv {
  config: RunConfig;
  context: unknown;
  /** The long-term store nodes see as `runtime.store`. */
  store?: Store | undefined;
  signal: AbortSignal | undefined;
  /** A checkpointer is configured: values must be JSON, interrupts are allowed. */
  persistent: boolean;
  /** Checkpoint namespace of this graph's run (`""` at top level). */
  ns: string;
  emit: ((event: RunEvent) => void) | undefined;
  /**
   * The thread this run persists to; nested graph calls persist there too, under their
   * namespace, and name the same run (`runId`, a background run's) in their pending writes.
   */
  thread: { checkpointer: Checkpointer; threadId: string; runId?: string } | undefined;
  /** Id of the barrier checkpoint the current step started from: ties subgraph runs to this step. */
  stepOrigin: string | undefined;
  /**
   * Called as the run enters a barrier, before it steps on: the driver queues the
   * barrier's checkpoint there (unless `kind` says the pause or an earlier run stores it)
   * and streams its values.
   */
  atBarrier?: ((context: GraphContext, kind: BarrierKind) => void) | undefined;
  /**
   * Called before a step's tasks start; a promise makes them wait for it (the store to catch
   * up with an async run, or a turn of the event loop after many synchronous steps).
   */
  beforeTasks?: (() => Promise<void> | undefined) | undefined;
  /** Store a finished task's writes against the step's barrier checkpoint (set when persistent). */
  savePendingWrite?: ((task: TaskRecord, outcome: TaskOutcome) => void | Promise<void>) | undefined;
  /**
   * Attempts of this step's tasks that failed and were being retried when the run last
   * stopped (read from the restored checkpoint's pending writes), by task id.
   */
  priorAttempts?: ReadonlyMap<string, number> | undefined;
  /** Store a failed task's error against the step's barrier checkpoint (set when persistent). */
  saveTaskError?: ((task: TaskRecord, error: unknown) => void) | undefined;
  /**
   * The actor was made by its user (`createActor(graph.machine, …)`, or a parent machine's
   * `invoke`), not by invoke/resume/stream: nobody drives it from outside, so a failed run
   * is the actor's own error and a pause is answered by the user's `RESUME`.
   */
  standalone?: boolean;
  /**
   * Told when an actor its user made fails, just before the failure becomes the actor's
   * error (which XState reports to the actor's observers only): a thread-bound actor
   * stores it (see `ThreadSession`).
   */
  failed?: ((error: unknown) => void) | undefined;
}

/**
 * What a barrier is to the thread's checkpoints: `"step"`, stored as the run enters it;
 * `"breakpoint"`, where the run stops at a static breakpoint, stored once as that pause
 * (no checkpoint of its own, as in LangGraph); `"continued"`, that pause's barrier a run
 * goes on from, already stored, so the step it starts belongs to that checkpoint.
 *
 * @example
 * env.atBarrier = (context, kind) => { if (kind === "step") writer.checkpoint("barrier", context, origin); };
 */
export type BarrierKind = "step" | "breakpoint" | "continued";

// Keyed by the graph's actor, not its actor system: graphs a parent machine invokes share
// the parent's system, and each needs an environment of its own.
const envs = new WeakMap<object, RunEnv>();

/** Give a graph actor (before it starts) the environment invoke/resume/stream run it in. */
export function attachRunEnv(actor: object, env: RunEnv): void {
  envs.set(actor, env);
}

/**
 * The environment of a graph actor; an actor its user made has none attached, and gets the
 * standalone one: no thread, no stream, and its paused run kept in its persisted snapshot.
 */
export function runEnvOf(actor: object): RunEnv {
  let env = envs.get(actor);
  if (!env) {
    env = standaloneEnv();
    envs.set(actor, env);
  }
  return env;
}

function standaloneEnv(): RunEnv {
  return {
    config: { configurable: { checkpoint_ns: "" } },
    context: {},
    store: undefined,
    signal: undefined,
    // The actor's persisted snapshot keeps a paused run, as a checkpoint does.
    persistent: true,
    ns: "",
    emit: undefined,
    thread: undefined,
    stepOrigin: undefined,
    standalone: true,
  };
}
