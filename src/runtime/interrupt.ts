import { AsyncLocalStorage } from "node:async_hooks";
import { hash } from "node:crypto";
import type { InterruptRecord } from "../checkpoint/checkpointer.js";
import { toJsonValue } from "../checkpoint/serde.js";
import { InterruptReplayError, StateweaverError } from "../errors/index.js";
import type { NodeRuntime } from "../graph/types.js";
import type { RunEnv } from "./run-env.js";
import type { ReachedInterrupt } from "./task.js";

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
}

/**
 * The control signal a subgraph's `Command({ graph: Command.PARENT })` throws:
 * it ends the subgraph run and becomes the calling task's own `Command`.
 */
export class ParentCommand extends Error {
  readonly goto: unknown;
  readonly update: Record<string, unknown> | undefined;
  constructor(goto: unknown, update: Record<string, unknown> | undefined) {
    super("Command.PARENT from a subgraph (a control signal; do not catch it).");
    this.name = "ParentCommand";
    this.goto = goto;
    this.update = update;
  }
}

/** True for the control signal thrown by `interrupt()`. */
export function isGraphInterrupt(error: unknown): error is GraphInterrupt {
  return error instanceof GraphInterrupt;
}

/** The running task, found by the free `interrupt()` and by nested graph calls. */
export const currentTask = new AsyncLocalStorage<Scratchpad>();

/** Stable id of the k-th interrupt of a task: the same on every replay. */
export function interruptId(ns: string, taskId: string, k: number): string {
  return hash("sha1", `${ns}|${taskId}|${k}`).slice(0, 24);
}

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
    pad.reached.push({ id: interruptId(pad.ns, pad.taskId, k), value });
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
