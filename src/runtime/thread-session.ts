// A graph actor its user drives, writing to a thread: the checkpoints and claims invoke's driver makes.
import { randomUUID } from "node:crypto";
import type { AnyActorRef, AnyMachineSnapshot, InspectionEvent, Subscription } from "xstate";
import type { Checkpointer } from "../checkpoint/checkpointer.js";
import { CheckpointWriter } from "./checkpoint-writer.js";
import { pendingInterrupts } from "./drive.js";
import type { RunEnv } from "./run-env.js";
import { storedValue } from "./snapshot-format.js";
import { type GraphContext, opensUpdate } from "./task.js";

/** The thread an actor writes to, and what it knew of it when it was made. */
export interface ThreadBinding {
  checkpointer: Checkpointer;
  threadId: string;
  /** The graph's name, for the thread's record. */
  graph: string;
  /** The thread's latest top-level checkpoint as the actor's logic read it (`null`: new thread). */
  latestId: string | null;
}

const sessions = new WeakMap<object, ThreadSession>();

/** The thread session of a graph actor made from a thread's machine, if it is one. */
export function threadSessionOf(actor: object): ThreadSession | undefined {
  return sessions.get(actor);
}

/**
 * The thread side of a graph actor created by its user from a thread's machine
 * (`graph.machineFor(config)`). Nobody drives such an actor from outside, so it cannot
 * await its store the way `invoke` does; instead it runs in stretches — from its start,
 * or from a `RESUME`, to its next rest (a pause, the end, a failure, a stop) — and each
 * stretch is one run as `invoke` makes it: the thread is claimed first (no node runs, and
 * nothing is stored, until the claim holds; a refused claim fails the actor with the
 * store's typed error, `ThreadBusyError` or `ConcurrentUpdateError`), every barrier is
 * checkpointed, finished siblings' writes and failed tasks' errors are stored against
 * their step, the pause is stored with its interrupts, and the thread is released
 * (marked `"error"` if the run failed).
 */
export class ThreadSession {
  readonly #binding: ThreadBinding;
  readonly #env: RunEnv;
  /** The stretch running now, if any. */
  #writer: CheckpointWriter | undefined;
  /** The last checkpoint this actor stored or read: the next claim expects it to be the latest. */
  #latestId: string | null;
  #source: "input" | "loop" = "loop";
  /** The last stretch stored and its thread released, or the failure that stopped it. */
  #released: Promise<void> = Promise.resolve();
  /** Told when the stretch running now ends (see `saved`). */
  #waiting: Array<() => void> = [];
  /** The stretch's first step waits for its claim. */
  #claimUnchecked = false;
  /** A write of the stretch failed: its next step fails with that error. */
  #writeFailed = false;
  #inspection: Subscription | undefined;

  constructor(actor: object, binding: ThreadBinding, env: RunEnv) {
    sessions.set(actor, this);
    this.#binding = binding;
    this.#env = env;
    this.#latestId = binding.latestId;
    env.atBarrier = (context, kind) => {
      if (opensUpdate(context)) return;
      env.stepOrigin = this.#open().barrier(context, kind, env.stepOrigin);
    };
    env.beforeTasks = () => {
      const writer = this.#open();
      if (this.#claimUnchecked || this.#writeFailed || writer.lagging) {
        this.#claimUnchecked = false;
        return writer.flush();
      }
      return undefined;
    };
    env.savePendingWrite = (task, outcome) => {
      if (env.stepOrigin) void this.#writer?.taskFinished(env.stepOrigin, task, outcome);
    };
    env.saveTaskError = (task, error) => {
      if (env.stepOrigin) void this.#writer?.taskFailed(env.stepOrigin, task, error);
    };
    // A failed run is the actor's error, which XState does not show its inspectors.
    env.failed = (error) => {
      this.#inspection?.unsubscribe();
      this.#close({ failed: error });
    };
  }

  /**
   * Follow `actor` (before it starts) to see it rest. Through its system's inspection rather
   * than `subscribe`: an observer of ours would change how XState reports the actor's
   * error to its user.
   */
  follow(actor: AnyActorRef, startsWithInput: boolean): void {
    if (startsWithInput) this.#source = "input";
    this.#inspection = actor.system.inspect({
      next: (event: InspectionEvent) => {
        if (event.type === "@xstate.snapshot" && event.actorRef === actor) {
          this.#saw(event.snapshot as AnyMachineSnapshot);
        }
      },
    });
  }

  /** A stretch, begun now if none runs: its writes go behind its claim. */
  #open(): CheckpointWriter {
    if (this.#writer) return this.#writer;
    const { checkpointer, threadId, graph } = this.#binding;
    const expected = this.#latestId;
    const writer = new CheckpointWriter(checkpointer, threadId, "", {
      parentId: expected,
      latestId: expected,
      source: this.#source,
      thread: { graph },
    });
    this.#source = "loop";
    this.#writeFailed = false;
    writer.onFailure(() => {
      if (this.#writer === writer) this.#writeFailed = true;
    });
    // The next claim must not race the last release; a failed stretch does not hold it up.
    const released = this.#released.catch(() => {});
    writer.after(released.then(() => writer.claim(randomUUID(), expected)));
    this.#claimUnchecked = true;
    this.#writer = writer;
    return writer;
  }

  #saw(snapshot: AnyMachineSnapshot): void {
    if (snapshot.status === "active") {
      if (!this.#writer || !snapshot.hasTag("interrupted") || snapshot.hasTag("running")) return;
      const context = snapshot.context as GraphContext;
      const interrupts = pendingInterrupts(context, this.#env);
      const { stepOrigin } = this.#env;
      // As invoke's driver stores it: pending writes of the step's barrier, or a checkpoint.
      if (this.#writer.pausesInPlace(context, stepOrigin)) {
        this.#writer.pause(stepOrigin!, context, interrupts);
      } else {
        this.#writer.checkpoint(storedValue(snapshot.value), context, stepOrigin, interrupts);
      }
      this.#close({});
      return;
    }
    this.#inspection?.unsubscribe();
    this.#close(snapshot.status === "error" ? { failed: snapshot.error } : {});
  }

  /**
   * Settles once what the actor has run so far is stored and its thread released: at
   * once when it rests, else when the stretch running now ends. Rejects with the write
   * (or claim) error that stopped the stretch.
   */
  saved(): Promise<void> {
    if (!this.#writer) return this.#released;
    return new Promise<void>((resolve) => this.#waiting.push(resolve)).then(() => this.#released);
  }

  /** End the stretch: what it queued is stored, then the thread is released. */
  #close(ended: { failed?: unknown }): void {
    const writer = this.#writer;
    if (!writer) return;
    this.#writer = undefined;
    this.#latestId = writer.latestId;
    // close() stores what is queued and releases; flush() then reports a write that failed.
    const released = writer.close(ended).then(() => writer.flush());
    // Nobody need wait for it (see `saved`): its failure is not an unhandled rejection.
    released.catch(() => {});
    this.#released = released;
    const waiting = this.#waiting;
    this.#waiting = [];
    for (const resolve of waiting) resolve();
  }
}
