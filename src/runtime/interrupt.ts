import { AsyncLocalStorage } from "node:async_hooks";
import { hash } from "node:crypto";
import type { InterruptRecord } from "../checkpoint/checkpointer.js";
import { toJsonValue } from "../checkpoint/serde.js";
import { brandClass, hasBrand, isBrandedInstance } from "../control/brand.js";
import { InterruptReplayError, StateweaverError } from "../errors/index.js";
import type { NodeRuntime } from "./node-runtime.js";
import type { RunEnv } from "./run-env.js";
import type { ReachedInterrupt } from "./task.js";
import { isWriteList, WriteList } from "./write-list.js";

/**
 * A task's interrupt bookkeeping while it runs: which interrupts it reached
 * before (from the checkpoint), which have answers, and how far this run got.
 */
export interface Scratchpad {
  readonly node: string;
  readonly taskId: string;
  readonly ns: string;
  readonly step: number;
  /** Interrupts reached on earlier runs of this task, in order. */
  readonly reached: ReachedInterrupt[];
  readonly resumes: readonly unknown[];
  /** Index of the next interrupt() call. */
  calls: number;
  /** Set when interrupt() threw its signal; a normal return afterwards means someone caught it. */
  raised: boolean;
  readonly runtime: NodeRuntime<any>;
  /** The run this task belongs to (nested graph calls inherit its thread and signal). */
  readonly env: RunEnv;
  /** How many graphs this task has called so far (each gets its own namespace). */
  graphCalls: number;
  /** Answers for interrupts pending in graphs this task calls, by interrupt id. */
  readonly nestedAnswers: Readonly<Record<string, unknown>>;
  /** Writes the node made while running (`typedUi`'s), applied before what it returns. */
  sent?: Array<[string, unknown]>;
}

/**
 * The control signal `interrupt()` throws to pause a task. Never catch it: if you
 * must catch errors around an interrupt, rethrow when `isGraphInterrupt(error)`.
 */
export class GraphInterrupt extends Error {
  readonly scratchpad: Scratchpad;
  /** Set when the pause happened inside a graph this task called. */
  readonly nested: InterruptRecord[] | undefined;
  constructor(scratchpad: Scratchpad, nested?: InterruptRecord[]) {
    // A control signal, not a failure: skip the stack trace, which costs more than the pause.
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(`Graph interrupt in node "${scratchpad.node}" (a control signal; do not catch it).`);
    Error.stackTraceLimit = limit;
    this.name = "GraphInterrupt";
    this.scratchpad = scratchpad;
    this.nested = nested;
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class on the right of instanceof (a subclass too)
    return isBrandedInstance(this, value);
  }
}

const GRAPH_INTERRUPT = brandClass(GraphInterrupt, "GraphInterrupt");

/**
 * The control signal a subgraph's `Command({ graph: Command.PARENT })` throws:
 * it ends the subgraph run and becomes the calling task's own `Command`.
 */
export class ParentCommand extends Error {
  readonly goto: unknown;
  /** The update for the parent: an object, or an ordered `WriteList`. */
  readonly update: unknown;
  constructor(goto: unknown, update: unknown) {
    super("Command.PARENT from a subgraph (a control signal; do not catch it).");
    this.name = "ParentCommand";
    this.goto = goto;
    this.update = update;
  }

  /** The same command, preceded by `earlier` writes of the child run (as one ordered list). */
  after(earlier: ReadonlyArray<[string, unknown]>): ParentCommand {
    if (earlier.length === 0) return this;
    const own = isWriteList(this.update)
      ? this.update.writes
      : Object.entries((this.update ?? {}) as Record<string, unknown>);
    return new ParentCommand(this.goto, new WriteList([...earlier, ...own]));
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class on the right of instanceof (a subclass too)
    return isBrandedInstance(this, value);
  }
}

const PARENT_COMMAND = brandClass(ParentCommand, "ParentCommand");

/**
 * True for the control signal thrown by `interrupt()`, whichever copy of stateweaver threw it.
 *
 * @example
 * try { risky(); } catch (e) { if (isGraphInterrupt(e)) throw e; log(e); }
 */
export function isGraphInterrupt(error: unknown): error is GraphInterrupt {
  return hasBrand(error, GRAPH_INTERRUPT);
}

/** True for the signal a subgraph's `Command({ graph: Command.PARENT })` throws, from any copy. */
export function isParentCommand(error: unknown): error is ParentCommand {
  return hasBrand(error, PARENT_COMMAND);
}

// Shared by every copy of stateweaver in the process (a registered symbol on globalThis), so
// `interrupt()` imported from one copy finds the task that another copy's runner is running.
const CURRENT_TASK = Symbol.for("stateweaver.currentTask");
const processWide = globalThis as { [CURRENT_TASK]?: AsyncLocalStorage<Scratchpad> };

/** The running task, found by the free `interrupt()` and by nested graph calls. */
export const currentTask: AsyncLocalStorage<Scratchpad> =
  processWide[CURRENT_TASK] ?? new AsyncLocalStorage<Scratchpad>();
processWide[CURRENT_TASK] = currentTask;

/** Where an interrupt happens: which thread, namespace and step (the barrier it started from). */
export type InterruptScope = Pick<RunEnv, "ns" | "thread" | "stepOrigin">;

/**
 * Id of the k-th interrupt of a task: unique across threads and checkpoints (the thread
 * and the step's barrier checkpoint are part of it), and the same every time the task
 * replays that step.
 */
export function interruptId(scope: InterruptScope, taskId: string, k: number): string {
  const thread = scope.thread?.threadId ?? "";
  return hash("sha1", `${thread}|${scope.stepOrigin ?? ""}|${scope.ns}|${taskId}|${k}`).slice(
    0,
    24,
  );
}

/** Whether `key` has the shape of an id made by `interruptId` (24 hex digits). */
export function isInterruptId(key: string): boolean {
  return INTERRUPT_ID.test(key);
}

const INTERRUPT_ID = /^[0-9a-f]{24}$/;

/** The k-th interrupt() call of a task: replay an answer, or pause. */
export function reachInterrupt<R>(pad: Scratchpad, payload: unknown): R {
  const value = toJsonValue(payload, "interrupt value");
  const k = pad.calls++;
  const earlier = pad.reached[k];
  if (earlier) {
    if (JSON.stringify(earlier.value) !== JSON.stringify(value)) {
      throw new InterruptReplayError(
        `Node "${pad.node}" reached interrupt #${k + 1} with a different payload than when it paused (${JSON.stringify(value)} now, ${JSON.stringify(earlier.value)} before). A node re-runs from its start on resume, so it must reach its interrupts in the same order with the same payloads; move anything that varies after the interrupt.`,
      );
    }
  } else {
    pad.reached.push({ id: interruptId(pad.env, pad.taskId, k), value });
  }
  if (k < pad.resumes.length) return pad.resumes[k] as R;
  pad.raised = true;
  throw new GraphInterrupt(pad);
}

/**
 * Pause the running node and hand `value` to the caller; on resume the node
 * runs again from its start and this call returns the resume value.
 * Needs a checkpointer. Found through AsyncLocalStorage; in environments
 * without it use `runtime.interrupt(value)`.
 *
 * @example
 * .addNode("approval", () => ({ approved: interrupt({ question: "Approve?" }) }))
 */
export function interrupt<R = any>(value: unknown): R {
  const pad = currentTask.getStore();
  if (!pad) {
    throw new StateweaverError(
      "INTERRUPT_OUTSIDE_NODE",
      "interrupt() was called outside a running graph node. Call it from a node function (or code it awaits), or use the runtime.interrupt passed to the node.",
    );
  }
  return pad.runtime.interrupt<R>(value);
}
