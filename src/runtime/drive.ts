import type { AnyActor, AnyMachineSnapshot } from "xstate";
import type {
  Checkpoint,
  Checkpointer,
  CheckpointSource,
  InterruptRecord,
  PendingWrite,
} from "../checkpoint/checkpointer.js";
import { checkpointId } from "../checkpoint/id.js";
import { AbortError } from "../errors/index.js";
import { interruptId } from "./interrupt.js";
import type { RunEnv } from "./run-env.js";
import { compactSnapshot, persistedSnapshotOf } from "./snapshot-format.js";
import type { GraphContext, TaskSeed } from "./task.js";

/** Where a thread's checkpoints go during one run (absent without a checkpointer). */
export interface CheckpointTarget {
  checkpointer: Checkpointer;
  threadId: string;
  ns: string;
  /** The checkpoint the next write follows. */
  parentId: string | null;
  /** What we believe the store's latest is (optimistic concurrency). */
  latestId: string | null;
  /** Source of the next checkpoint written. */
  source: CheckpointSource;
  /** Extra metadata on every checkpoint of this run (a subgraph's parent step). */
  metadata?: Record<string, unknown>;
}

export interface StepOptions {
  recursionLimit: number;
  interruptBefore: readonly string[];
  interruptAfter: readonly string[];
  /** Stop at the first barrier instead of stepping on (updateState). */
  stopAtBarrier?: boolean;
  /** Pending writes found on the checkpoint the run restored from (crash recovery). */
  recovered?: PendingWrite[];
}

/** The pseudo-channel under which a pending write keeps its task's routes. */
const ROUTE = "__route__";

export type DriveResult =
  | { status: "done"; state: Record<string, unknown> }
  | {
      status: "interrupted";
      interrupt: InterruptRecord;
      interrupts: InterruptRecord[];
      state: Record<string, unknown>;
    }
  | { status: "barrier"; state: Record<string, unknown> };

/** A snapshot the driver can act on: no task is running. */
const isSettled = (snap: AnyMachineSnapshot) => snap.status !== "active" || !snap.hasTag("running");

/**
 * Drive a started graph actor to its next resting point: write a checkpoint at
 * every barrier and step on, until the run is done, pauses, or fails. The
 * machine decides everything; the driver only persists and says "go on".
 */
export async function drive(
  actor: AnyActor,
  env: RunEnv,
  target: CheckpointTarget | undefined,
  options: StepOptions,
): Promise<DriveResult> {
  let wake: (() => void) | undefined;
  let failure: unknown;
  const sub = actor.subscribe({
    next: (snap: AnyMachineSnapshot) => {
      if (wake && isSettled(snap)) wake();
    },
    error: (error: unknown) => {
      failure = error;
      wake?.();
    },
  });
  const signal = env.signal;
  const onAbort = () => {
    failure = new AbortError(signal?.reason);
    wake?.();
  };
  signal?.addEventListener("abort", onAbort, { once: true });
  const step = {
    type: "STEP" as const,
    recursionLimit: options.recursionLimit,
    interruptBefore: options.interruptBefore,
    interruptAfter: options.interruptAfter,
  };
  let recovered = options.recovered?.length ? recoveredTasks(options.recovered) : undefined;
  if (target) {
    env.savePendingWrite = async (task, outcome) => {
      if (!env.stepOrigin) return;
      await target.checkpointer.putWrites(target.threadId, target.ns, env.stepOrigin, {
        taskId: task.id,
        node: task.node,
        writes: [...(outcome.writes ?? []), [ROUTE, outcome.next ?? []]],
      });
    };
  }
  try {
    for (;;) {
      if (signal?.aborted) throw new AbortError(signal.reason);
      let snap = actor.getSnapshot() as AnyMachineSnapshot;
      if (!isSettled(snap) && failure === undefined) {
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = undefined;
        snap = actor.getSnapshot() as AnyMachineSnapshot;
      }
      if (failure !== undefined) throw failure;
      if (snap.status === "error") throw snap.error;
      const context = snap.context as GraphContext;
      const value = snap.value;
      if (value === "failed") throw context.error;
      if (value === "done") {
        env.emit?.({ type: "done", ns: env.ns, state: context.values });
        return { status: "done", state: context.values };
      }
      if (value === "barrier") {
        const saved = target ? await save(actor, target, context, env) : undefined;
        env.stepOrigin = saved;
        // The barrier before the input is applied has nothing new to show.
        const beforeInput =
          context.tasks.length > 0 && context.tasks.every((t) => t.kind === "input");
        if (!beforeInput)
          env.emit?.({ type: "values", ns: env.ns, step: context.step, values: context.values });
        if (options.stopAtBarrier) return { status: "barrier", state: context.values };
        actor.send(recovered ? ({ ...step, recovered } as typeof step) : step);
        recovered = undefined;
        continue;
      }
      // Paused: at a static breakpoint, or inside `stepping` with interrupted tasks.
      const interrupts = pendingInterrupts(context, env.ns);
      if (target) await save(actor, target, context, env, interrupts);
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
    if (failure !== undefined || signal?.aborted) actor.stop();
  }
}

/** Pending writes (saved as tasks finished) back into finished-task results. */
function recoveredTasks(writes: PendingWrite[]) {
  const out: Record<string, { writes: Array<[string, unknown]>; next: TaskSeed[] }> = {};
  for (const w of writes) {
    const route = w.writes.find(([k]) => k === ROUTE);
    if (!route) continue; // written at a pause, for inspection only
    out[w.taskId] = { writes: w.writes.filter(([k]) => k !== ROUTE), next: route[1] as TaskSeed[] };
  }
  return out;
}

/** The interrupts a paused machine waits on, first by task order. */
export function pendingInterrupts(context: GraphContext, ns: string): InterruptRecord[] {
  if (context.breakpoint) {
    const { node, timing } = context.breakpoint;
    const id = interruptId(ns, `${context.step}:${node}:${timing}`, 0);
    return [{ id, value: null, node, ns, step: context.step, taskId: "", timing }];
  }
  const out: InterruptRecord[] = [];
  for (const t of context.tasks) {
    if (t.status !== "interrupted") continue;
    if (t.nested) {
      out.push(...t.nested);
      continue;
    }
    const last = t.interrupts[t.interrupts.length - 1]!;
    out.push({
      id: last.id,
      value: last.value,
      node: t.node,
      ns,
      step: context.step,
      taskId: t.id,
      timing: "during",
    });
  }
  return out;
}

/** Persist the actor as a checkpoint; the snapshot's copy of the values is stored once, beside it. */
async function save(
  actor: AnyActor,
  target: CheckpointTarget,
  context: GraphContext,
  env: RunEnv,
  interrupts: InterruptRecord[] = [],
): Promise<string> {
  const { snapshot, values } = compactSnapshot(persistedSnapshotOf(actor));
  const next: string[] = [];
  for (const t of context.tasks) if (t.status !== "done") next.push(t.node);
  const metadata: Checkpoint["metadata"] = { step: context.step, source: target.source };
  // A barrier starts the next step (its own id, left implicit); a pause belongs to the
  // step it interrupted.
  if (interrupts.length > 0 || context.breakpoint) metadata.stepOrigin = env.stepOrigin;
  if (target.metadata) Object.assign(metadata, target.metadata);
  const checkpoint: Checkpoint = {
    id: checkpointId(),
    threadId: target.threadId,
    ns: target.ns,
    parentId: target.parentId,
    snapshot,
    values,
    next,
    interrupts,
    metadata,
    createdAt: new Date().toISOString(),
  };
  await target.checkpointer.put(checkpoint, { expectedLatestId: target.latestId });
  target.parentId = target.latestId = checkpoint.id;
  target.source = "loop";
  if (interrupts.length > 0) {
    for (const t of context.tasks) {
      if (t.status === "done" && t.writes) {
        await target.checkpointer.putWrites(target.threadId, target.ns, checkpoint.id, {
          taskId: t.id,
          node: t.node,
          writes: t.writes,
        });
      }
    }
  }
  return checkpoint.id;
}
