// What a graph's machine does when its user, not invoke/resume, restores an actor of it and starts it.
import type {
  AnyActorRef,
  AnyActorScope,
  AnyEventObject,
  AnyMachineSnapshot,
  AnyStateMachine,
} from "xstate";
import { SnapshotMismatchError } from "../../errors/index.js";
import { type RunEnv, runEnvOf } from "../../runtime/run-env.js";
import { storedValue } from "../../runtime/snapshot-format.js";
import type { GraphContext } from "../../runtime/task.js";
import type { GraphInternals } from "./internals.js";
import { unknownNodeIn } from "./snapshot-fit.js";

/**
 * Snapshots restored into an actor, with what the actor does first once started: `null` to
 * go on from where the snapshot rests, or an event (a thread's machine given new input).
 */
const restored = new WeakMap<object, AnyEventObject | null>();

/**
 * Give the graph's machine what an actor its user restores needs: a snapshot that names
 * nodes this graph lacks fails the actor with a typed `SnapshotMismatchError` (not XState's
 * "Child state … does not exist"), and a restored actor goes on by itself once started —
 * a persisted snapshot taken mid-step re-runs that step's unfinished tasks, as a restored
 * checkpoint does, and one resting at a barrier steps on. invoke/resume restore actors
 * too, but drive them themselves: for those nothing changes.
 */
export function hookUserActors(g: GraphInternals, machine: AnyStateMachine): void {
  const restore = machine.restoreSnapshot.bind(machine);
  machine.restoreSnapshot = (snapshot, scope) => {
    const s = snapshot as unknown as { value: unknown; context: GraphContext };
    const unknown = unknownNodeIn(g, { value: storedValue(s.value), context: s.context });
    if (unknown !== undefined) throw new SnapshotMismatchError(g.spec.name, unknown);
    const state = restore(snapshot, scope);
    restored.set(state, null);
    return state;
  };
  // XState calls a logic's start with the actor's scope too (StateMachine's own ignores it).
  const startable = machine as unknown as StartableLogic;
  const start = startable.start.bind(machine);
  startable.start = (snapshot, scope) => {
    start(snapshot, scope);
    const first = restored.get(snapshot);
    if (first === undefined) return;
    restored.delete(snapshot);
    const env = runEnvOf(scope.self);
    if (!env.standalone) return;
    if (first) scope.self.send(first);
    else goOn(snapshot, scope.self, env);
  };
}

/** How XState starts any actor logic: with the snapshot and the actor's scope. */
export interface StartableLogic {
  start(snapshot: AnyMachineSnapshot, scope: AnyActorScope): void;
}

/** Restore `snapshot` into the actor `scope` belongs to, to take `first` once it starts. */
export function restoreThen(
  machine: AnyStateMachine,
  snapshot: unknown,
  scope: Parameters<AnyStateMachine["restoreSnapshot"]>[1],
  first: AnyEventObject,
): AnyMachineSnapshot {
  const state = machine.restoreSnapshot(snapshot as never, scope) as AnyMachineSnapshot;
  restored.set(state, first);
  return state;
}

/** A restored actor's run goes on from where its snapshot rests. */
function goOn(snapshot: AnyMachineSnapshot, self: AnyActorRef, env: RunEnv): void {
  if (snapshot.status !== "active") return;
  const context = snapshot.context as GraphContext;
  const value = storedValue(snapshot.value);
  if (value === "barrier") {
    // As invoke continuing from a barrier: checkpoint it for this run, then step on.
    env.atBarrier?.(context, "step");
    self.send({ type: "STEP" });
    return;
  }
  if (!snapshot.hasTag("running")) return;
  // Taken mid-step: what the step's tasks did is lost with the process that ran them (a
  // node's result is only kept once its step ends), so they run again, as from a checkpoint.
  const stepping = (value as { stepping: Record<string, unknown> }).stepping;
  const node = Object.keys(stepping)[0]!;
  const runner = snapshot.children.tasks as AnyActorRef;
  runner.send({
    type: "RUN",
    node: node === "__fanout__" ? undefined : node,
    context,
    graph: self,
  });
}
