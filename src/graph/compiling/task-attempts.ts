// The attempts of one task with a retry policy or timeout: retries, backoff, and the events they emit.
import { AbortError, NodeError, NodeTimeoutError } from "../../errors/index.js";
import {
  currentTask,
  isGraphInterrupt,
  isParentCommand,
  type Scratchpad,
} from "../../runtime/interrupt.js";
import type { MaybePromise } from "../../runtime/maybe-promise.js";
import type { RunEnv } from "../../runtime/run-env.js";
import type { StepCancellation } from "../../runtime/step-cancellation.js";
import type { TaskOutcome, TaskRecord } from "../../runtime/task.js";
import type { RunEvent } from "../../stream/run-events.js";
import { type NodePolicy, retryDelay } from "../definition/retry-policy.js";
import type { NodeFn } from "../definition/types.js";
import type { TaskRuntime } from "./task-runtime.js";

/**
 * The attempts of one task whose node has a retry policy or a timeout. Each attempt gets
 * its own abort signal (a timeout aborts that attempt only, never the step's other tasks)
 * and starts from the task's interrupts as they were. Before waiting to retry, the failed
 * attempt is saved against the step's checkpoint (`env.saveTaskError`, marked as
 * retrying): a run stopped mid-wait, or a process that died there, continues the count
 * from it when the thread is continued, so `maxAttempts` is a budget, not a per-process count.
 */
export class TaskAttempts {
  /** The attempt running now, from 1 (or after the attempts saved before a restart). */
  attempt: number;
  #signal: AbortSignal | undefined;
  readonly #task: TaskRecord;
  readonly #step: number;
  readonly #pad: Scratchpad;
  readonly #env: RunEnv;
  readonly #cancellation: StepCancellation;
  readonly #policy: NodePolicy;

  constructor(
    task: TaskRecord,
    step: number,
    pad: Scratchpad,
    cancellation: StepCancellation,
    policy: NodePolicy,
  ) {
    this.#task = task;
    this.#step = step;
    this.#pad = pad;
    this.#env = pad.env;
    this.#cancellation = cancellation;
    this.#policy = policy;
    this.attempt = (pad.env.priorAttempts?.get(task.id) ?? 0) + 1;
  }

  /** The current attempt's signal (a timeout aborts that attempt only), else the step's. */
  get signal(): AbortSignal {
    return this.#signal ?? this.#cancellation.signal;
  }

  /** The node's runtime, with `signal` the current attempt's. */
  runtimeOf(runtime: TaskRuntime): TaskRuntime {
    return runtime.withSignalFrom(this);
  }

  /** Run attempts until one returns, pauses, or fails for good; then hand over as `runTask` would. */
  async run(
    fn: NodeFn<any, any>,
    arg: unknown,
    finish: (result: unknown) => MaybePromise<TaskOutcome>,
    caught: (error: unknown) => MaybePromise<TaskOutcome>,
  ): Promise<TaskOutcome> {
    const retry = this.#policy.retry;
    for (;;) {
      let result: unknown;
      try {
        result = await this.#once(fn, arg);
      } catch (error) {
        const stopping = this.#cancellation.cancelled || this.#env.signal?.aborted;
        if (
          isGraphInterrupt(error) ||
          isParentCommand(error) ||
          stopping ||
          !retry ||
          this.attempt >= retry.maxAttempts ||
          !retry.retryOn(error)
        ) {
          return caught(error);
        }
        const wait = retryDelay(retry, this.attempt);
        this.#env.emit?.(
          taskEnd(this.#env, this.#task, this.#step, this.attempt, {
            error: errorRecord(error),
            retryInMs: wait,
          }),
        );
        const failed = new NodeError(this.#task.node, this.#step, error, this.attempt);
        this.#env.saveTaskError?.(this.#task, Object.assign(failed, { retrying: true }));
        await sleep(wait, this.#cancellation.signal);
        this.attempt++;
        continue;
      }
      return finish(result);
    }
  }

  /** One attempt: the node called afresh, raced against the timeout if there is one. */
  #once(fn: NodeFn<any, any>, arg: unknown): Promise<unknown> {
    const pad = this.#pad;
    // An attempt starts where the task started: no interrupt reached, no graph called yet.
    pad.reached.splice(this.#task.interrupts.length);
    pad.calls = 0;
    pad.raised = false;
    pad.graphCalls = 0;
    pad.sent = undefined;
    const timeout = this.#policy.timeout;
    let controller: AbortController | undefined;
    let unfollow: (() => void) | undefined;
    if (timeout !== undefined) {
      controller = new AbortController();
      const step = this.#cancellation.signal;
      if (step.aborted) controller.abort(step.reason);
      else {
        const follow = () => controller!.abort(step.reason);
        step.addEventListener("abort", follow, { once: true });
        unfollow = () => step.removeEventListener("abort", follow);
      }
      this.#signal = controller.signal;
    }
    this.#env.emit?.(taskStart(this.#env, this.#task, this.#step, arg, this.attempt));
    // A node that blocks the thread cannot be stopped (no timer fires while it runs), so
    // the time is also checked when it returns: a late result is refused, not kept.
    const started = timeout === undefined ? 0 : performance.now();
    let running: Promise<unknown>;
    try {
      running = Promise.resolve(currentTask.run(pad, fn, arg, pad.runtime));
    } catch (error) {
      running = Promise.reject(error);
    }
    if (timeout === undefined) return running;
    return new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(() => {
        const error = new NodeTimeoutError(this.#task.node, timeout);
        controller!.abort(error);
        reject(error);
      }, timeout);
      running.then(
        (value) => {
          clearTimeout(timer);
          unfollow?.();
          if (performance.now() - started > timeout) {
            const error = new NodeTimeoutError(this.#task.node, timeout, { late: true });
            controller!.abort(error);
            reject(error);
            return;
          }
          resolve(value);
        },
        (error: unknown) => {
          clearTimeout(timer);
          unfollow?.();
          reject(error);
        },
      );
    });
  }
}

/** Wait `ms`, or until the step is cancelled (the run was stopped or failed). */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal.aborted) {
      reject(new AbortError(signal.reason));
      return;
    }
    const stop = () => {
      clearTimeout(timer);
      reject(new AbortError(signal.reason));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", stop);
      resolve();
    }, ms);
    signal.addEventListener("abort", stop, { once: true });
  });
}

/** What the stream shows of an error. */
export function errorRecord(error: unknown): { name: string; message: string } {
  return error instanceof Error
    ? { name: error.name, message: error.message }
    : { name: "Error", message: String(error) };
}

export function taskStart(
  env: RunEnv,
  task: TaskRecord,
  step: number,
  input: unknown,
  attempt: number,
): RunEvent {
  return { type: "task-start", ns: env.ns, step, node: task.node, taskId: task.id, input, attempt };
}

export function taskEnd(
  env: RunEnv,
  task: TaskRecord,
  step: number,
  attempt: number,
  outcome: Pick<
    Extract<RunEvent, { type: "task-end" }>,
    "writes" | "interrupts" | "error" | "retryInMs"
  >,
): RunEvent {
  return {
    type: "task-end",
    ns: env.ns,
    step,
    node: task.node,
    taskId: task.id,
    attempt,
    ...outcome,
  };
}
