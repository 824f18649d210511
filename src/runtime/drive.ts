import type { AnyActor, AnyEventObject, AnyMachineSnapshot } from "xstate";
import type { InterruptRecord } from "../checkpoint/checkpointer.js";
import { AbortError, StateweaverError } from "../errors/index.js";
import type { RunEvent } from "../stream/run-events.js";
import type { CheckpointWriter } from "./checkpoint-writer.js";
import { type InterruptScope, interruptId } from "./interrupt.js";
import type { RunEnv } from "./run-env.js";
import { storedValue } from "./snapshot-format.js";
import { type GraphContext, opensUpdate, type TaskRecord } from "./task.js";

export interface DriveOptions {
  /** Return at the first barrier the run holds at instead of stepping on (updateState). */
  stopAtBarrier?: boolean;
  /** The event that sets the run going (INPUT, RESUME, UPDATE), sent once the driver listens. */
  first?: AnyEventObject;
  /**
   * The values a streamed run shows when it pauses in a step some of whose tasks finished
   * (their writes applied, as the step's barrier will apply them), or `undefined` to show
   * none. LangGraph.js streams these before the pause; the graph layer supplies them, as
   * only it knows the reducers.
   */
  pauseValues?: (context: GraphContext) => Record<string, unknown> | undefined;
}

export type DriveResult =
  | { status: "done"; state: Record<string, unknown> }
  | {
      status: "interrupted";
      interrupt: InterruptRecord;
      interrupts: InterruptRecord[];
      state: Record<string, unknown>;
    }
  | { status: "barrier"; state: Record<string, unknown> };

/** How many steps of synchronous nodes a run takes before it lets the event loop run. */
export const MAX_UNBROKEN_STEPS = 64;

/** A snapshot the driver can act on: no task is running. */
const isSettled = (snap: AnyMachineSnapshot) => snap.status !== "active" || !snap.hasTag("running");

/**
 * Drive a started graph actor to its next resting point: until the run is
 * done, pauses, or fails. The machine decides everything. At each barrier
 * (entered, or passed along an edge) it calls `env.atBarrier`, where the driver
 * queues that barrier's checkpoint and streams its values, and steps on by
 * itself — unless the run holds there (`context.run.holds`: updateState), when
 * the driver waits for the writes and sends `STEP`. Under durability `"sync"`
 * (`run.waitsForWrites`) each step's tasks start once the writes are stored.
 * Every queued write is stored before this returns.
 */
export async function drive(
  actor: AnyActor,
  env: RunEnv,
  writer: CheckpointWriter | undefined,
  options: DriveOptions = {},
): Promise<DriveResult> {
  let wake: (() => void) | undefined;
  let failure: unknown;
  const fail = (error: unknown) => {
    failure ??= error;
    // A task that finishes after this (ignoring its abort signal) must not store its writes.
    writer?.seal();
    wake?.();
  };
  const sub = actor.subscribe({
    next: (snap: AnyMachineSnapshot) => {
      if (wake && isSettled(snap)) wake();
    },
    error: fail,
  });
  const signal = env.signal;
  const onAbort = () => fail(new AbortError(signal?.reason));
  signal?.addEventListener("abort", onAbort, { once: true });
  // The last barrier the run entered (its context): the driver checkpoints any other it rests at.
  let entered: GraphContext | undefined;
  // Barriers passed since the event loop last ran: a run of synchronous nodes never awaits.
  let unbroken = 0;
  env.atBarrier = (context, kind) => {
    entered = context;
    unbroken++;
    if (opensUpdate(context)) return;
    if (writer) {
      const head = writer.head;
      env.stepOrigin = writer.barrier(context, kind, env.stepOrigin);
      // A breakpoint's checkpoint is announced when its pause is stored. The one a run
      // continues from is announced again, as LangGraph's debug stream repeats it.
      if (kind === "step") {
        env.emit?.(checkpointEvent(env, context, env.stepOrigin!, head.id, []));
      } else if (kind === "continued" && head.id !== null) {
        env.emit?.(checkpointEvent(env, context, head.id, head.parentId, []));
      }
    }
    // The barrier before the input is applied has nothing new to show (looked at only when streaming).
    if (env.emit && !(context.tasks.length > 0 && context.tasks.every((t) => t.kind === "input")))
      env.emit({ type: "values", ns: env.ns, step: context.step, values: context.values });
  };
  const run = (actor.getSnapshot() as AnyMachineSnapshot).context.run as GraphContext["run"];
  const holds = run.holds;
  // Held runs and durability "sync" wait for each write.
  const waits = holds || run.waitsForWrites === true;
  // Before a step's tasks start: wait for the store if the run got too far ahead of it,
  // and let the event loop run if the run has kept it for MAX_UNBROKEN_STEPS steps.
  env.beforeTasks = () => {
    if (writer?.lagging || (writer && run.waitsForWrites)) {
      unbroken = 0;
      return writer.flush();
    }
    if (unbroken < MAX_UNBROKEN_STEPS) return undefined;
    unbroken = 0;
    return new Promise<void>((resolve) => setImmediate(resolve));
  };
  if (writer) {
    writer.onFailure(fail);
    env.savePendingWrite = (task, outcome) => {
      if (!env.stepOrigin) return;
      const written = writer.taskFinished(env.stepOrigin, task, outcome);
      // Held runs wait for each write; the others only for the last, before returning.
      return waits ? written : undefined;
    };
    env.saveTaskError = (task, error) => {
      if (env.stepOrigin) writer.taskFailed(env.stepOrigin, task, error);
    };
  }
  try {
    if (options.first) actor.send(options.first);
    for (;;) {
      if (signal?.aborted) throw new AbortError(signal.reason);
      let snap = actor.getSnapshot() as AnyMachineSnapshot;
      if (!isSettled(snap) && failure === undefined) {
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = undefined;
        unbroken = 0;
        snap = actor.getSnapshot() as AnyMachineSnapshot;
      }
      if (failure !== undefined) throw failure;
      if (snap.status === "error") throw snap.error;
      const context = snap.context as GraphContext;
      const value = storedValue(snap.value);
      if (value === "failed") throw context.error;
      if (value === "done") {
        await writer?.finish();
        env.emit?.({ type: "done", ns: env.ns, state: context.values });
        return { status: "done", state: context.values };
      }
      if (value === "barrier") {
        // A barrier the run did not enter (restored, or updated in place) is this run's
        // too: checkpoint it as well. Either way the run waits here for STEP.
        if (entered !== context) env.atBarrier(context, "step");
        if (holds) await writer?.flush();
        // The flush let the run be aborted or fail meanwhile: then STEP would start a step anyway.
        if (failure !== undefined || signal?.aborted) continue;
        if (options.stopAtBarrier) return { status: "barrier", state: context.values };
        actor.send({ type: "STEP" });
        // A decision the chart has no transition for would leave the run here forever.
        if (actor.getSnapshot() === snap) {
          throw new StateweaverError(
            "RUN_STUCK",
            `The run cannot leave the barrier at step ${context.step} (next: ${context.tasks.map((t) => t.node).join(", ") || "<none>"}). This is a bug in stateweaver; please report it with the graph's definition.`,
          );
        }
        continue;
      }
      // Paused: at a static breakpoint, or inside `stepping` with interrupted tasks.
      const interrupts = pendingInterrupts(context, env);
      if (writer) {
        if (writer.pausesInPlace(context, env.stepOrigin)) {
          // No checkpoint, as in LangGraph: the pause is pending writes of the step's barrier.
          writer.pause(env.stepOrigin!, context, interrupts);
        } else {
          const parentId = writer.latestId;
          const id = writer.checkpoint(value, context, env.stepOrigin, interrupts);
          env.emit?.(checkpointEvent(env, context, id, parentId, interrupts));
        }
        await writer.finish();
      }
      if (env.emit && options.pauseValues) {
        const values = options.pauseValues(context);
        if (values) env.emit({ type: "values", ns: env.ns, step: context.step, values });
      }
      env.emit?.({ type: "interrupt", ns: env.ns, interrupts });
      return {
        status: "interrupted",
        interrupt: interrupts[0]!,
        interrupts,
        state: context.values,
      };
    }
  } finally {
    sub.unsubscribe();
    signal?.removeEventListener("abort", onAbort);
    env.atBarrier = undefined;
    env.beforeTasks = undefined;
    if (failure !== undefined || signal?.aborted) actor.stop();
    // A failed run still leaves what it checkpointed before the failure in the store.
    if (writer) await writer.flush().catch(() => {});
  }
}

/** What the stream's `checkpoints` mode shows of a checkpoint just queued. */
function checkpointEvent(
  env: RunEnv,
  context: GraphContext,
  id: string,
  parentId: string | null,
  interrupts: InterruptRecord[],
): RunEvent {
  const next: string[] = [];
  for (const t of context.tasks) if (t.status !== "done") next.push(t.node);
  return {
    type: "checkpoint",
    ns: env.ns,
    step: context.step,
    threadId: env.thread?.threadId ?? "",
    id,
    parentId,
    values: context.values,
    next,
    interrupts,
  };
}

/** The interrupts a paused machine waits on, first by task order. */
export function pendingInterrupts(context: GraphContext, scope: InterruptScope): InterruptRecord[] {
  const { ns } = scope;
  if (context.breakpoint) {
    const { node, timing } = context.breakpoint;
    const id = interruptId(scope, `${context.step}:${node}:${timing}`, 0);
    return [{ id, value: null, node, ns, step: context.step, taskId: "", timing }];
  }
  const out: InterruptRecord[] = [];
  for (const t of context.tasks) {
    if (t.status === "interrupted") out.push(...taskInterrupts(t, context.step, ns));
  }
  return out;
}

/** What a paused task waits on: its last interrupt, or those pending in the graph it called. */
export function taskInterrupts(t: TaskRecord, step: number, ns: string): InterruptRecord[] {
  if (t.nested) return t.nested;
  const last = t.interrupts[t.interrupts.length - 1]!;
  return [
    { id: last.id, value: last.value, node: t.node, ns, step, taskId: t.id, timing: "during" },
  ];
}
