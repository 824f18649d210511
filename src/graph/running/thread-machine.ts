// A graph's machine bound to one thread: actors of it read the thread and write its checkpoints.
import type { AnyActorRef, AnyStateMachine } from "xstate";
import type { Checkpointer, CheckpointTuple } from "../../checkpoint/checkpointer.js";
import { waitingInterrupts } from "../../checkpoint/paused-tasks.js";
import { recoverStep, stepOriginOfTuple } from "../../runtime/recover-step.js";
import { attachRunEnv, type RunEnv } from "../../runtime/run-env.js";
import { expandSnapshot, machineValue } from "../../runtime/snapshot-format.js";
import { DEFAULT_RUN, type GraphContext, type RunOptions } from "../../runtime/task.js";
import { ThreadSession, threadSessionOf } from "../../runtime/thread-session.js";
import type { GraphInternals } from "../compiling/internals.js";
import { restoreThen, type StartableLogic } from "../compiling/user-actor.js";
import { START } from "../definition/constants.js";
import type { CompileOptions } from "../definition/graph-spec.js";

/** The thread a machine is bound to, as read when it was made. */
export interface BoundThread {
  checkpointer: Checkpointer;
  threadId: string;
  /** The thread's latest top-level checkpoint (none: a new thread). */
  tuple: CheckpointTuple | undefined;
  /** Attempts of retried tasks in the latest checkpoint's step (see `retryingAttempts`). */
  priorAttempts: ReadonlyMap<string, number> | undefined;
}

/**
 * The graph's machine, bound to `thread`: the same chart and implementations (it is made
 * from `machine` and shares its state nodes), but an actor of it starts from the thread's
 * latest checkpoint — with `input`, the input is applied on top, as `invoke(input)` does
 * on a thread; without, it continues as `invoke(null)` does (a pause stays paused) — and
 * writes the thread's checkpoints as it runs (see `ThreadSession`). A thread with no
 * checkpoint needs input, as `createActor(graph.machine)` does.
 */
export function threadMachine(
  g: GraphInternals,
  machine: AnyStateMachine,
  options: CompileOptions,
  thread: BoundThread,
): AnyStateMachine {
  const { checkpointer, threadId, tuple } = thread;
  const binding = {
    checkpointer,
    threadId,
    graph: g.spec.name,
    latestId: tuple?.checkpoint.id ?? null,
  };
  const run: RunOptions = {
    ...DEFAULT_RUN,
    interruptBefore: options.interruptBefore ?? [],
    interruptAfter: options.interruptAfter ?? [],
  };
  /** The actor's thread session, made (with its run environment) the first time it is asked for. */
  const sessionOf = (self: AnyActorRef): ThreadSession => {
    const session = threadSessionOf(self);
    if (session) return session;
    const env: RunEnv = {
      config: { configurable: { thread_id: threadId, checkpoint_ns: "" } },
      context: {},
      store: options.store,
      signal: undefined,
      persistent: true,
      ns: "",
      emit: undefined,
      thread: { checkpointer, threadId },
      stepOrigin: tuple ? stepOriginOfTuple(tuple) : undefined,
      priorAttempts: thread.priorAttempts,
      standalone: true,
    };
    attachRunEnv(self, env);
    return new ThreadSession(self, binding, env);
  };
  const withInput = new WeakSet<object>();
  // Made from the graph's machine, not copied: `provide` would build the chart again.
  const bound = Object.create(machine) as AnyStateMachine;
  bound.getInitialSnapshot = (scope, input) => {
    sessionOf(scope.self);
    if (input !== undefined) withInput.add(scope.self);
    if (!tuple) return machine.getInitialSnapshot(scope, input);
    const snapshot = restoredCheckpoint(tuple, run);
    if (input === undefined) return machine.restoreSnapshot(snapshot as never, scope);
    // New input on a thread that has run: as invoke(input), it replaces what was next.
    const update = g.channels.toWrites(input, snapshot.context.values, {
      node: START,
      step: snapshot.context.step,
    });
    return restoreThen(machine, snapshot, scope, {
      type: "INPUT",
      update: Object.fromEntries(update),
    });
  };
  bound.restoreSnapshot = (snapshot, scope) => {
    sessionOf(scope.self);
    return machine.restoreSnapshot(snapshot, scope);
  };
  (bound as unknown as StartableLogic).start = (snapshot, scope) => {
    sessionOf(scope.self).follow(scope.self, withInput.has(scope.self));
    (machine as unknown as StartableLogic).start(snapshot, scope);
  };
  return bound;
}

/**
 * The snapshot the thread's checkpoint holds, in the executor's form: the tasks of an
 * unfinished step back from their pending writes (finished, or paused), and a pause's
 * interrupts in the context for the actor's user.
 */
function restoredCheckpoint(tuple: CheckpointTuple, run: RunOptions) {
  const snapshot = expandSnapshot(tuple.checkpoint, run) as {
    value: unknown;
    context: GraphContext;
  };
  const restored = recoverStep(snapshot, tuple.pendingWrites);
  const interrupts = waitingInterrupts(tuple.checkpoint, tuple.pendingWrites);
  if (interrupts.length > 0) restored.context.interrupts = interrupts;
  return { ...restored, value: machineValue(restored.value) };
}

/**
 * Settles once what an actor of a thread's machine (`graph.machineFor`) has run so far is
 * stored on its thread and the thread released: wait for it after the actor pauses or
 * ends, before the thread is read or resumed elsewhere (the actor stores its checkpoints
 * in the background). At once for an actor on no thread. Rejects with the write or claim
 * error that stopped the actor's run.
 *
 * @example
 * await waitFor(actor, (s) => s.hasTag("interrupted"));
 * await whenSaved(actor);
 * (await graph.getState(config)).next; // ["approve"]
 */
export function whenSaved(actor: AnyActorRef): Promise<void> {
  return threadSessionOf(actor)?.saved() ?? Promise.resolve();
}
