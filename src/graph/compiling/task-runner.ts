// The machine's task runner actor: runs a step's tasks and reports their outcomes to the machine.
import { fromCallback } from "xstate";
import { isThenable, type MaybePromise } from "../../runtime/maybe-promise.js";
import { type RunEnv, runEnvOf } from "../../runtime/run-env.js";
import { StepCancellation } from "../../runtime/step-cancellation.js";
import {
  type GraphContext,
  opensUpdate,
  type TaskOutcome,
  type TaskRecord,
} from "../../runtime/task.js";
import type { GraphInternals } from "./internals.js";
import { runTask } from "./run-task.js";

/** What a lifecycle state asks the task runner for: one node's pending tasks, or (no node) all of them. */
interface RunRequest {
  type: "RUN";
  node: string | undefined;
  context: GraphContext;
  /** The graph actor asking: its run environment is the tasks'. */
  graph: object;
}

/**
 * The run's one task runner (invoked as `tasks` for the whole run): it runs the
 * pending tasks a lifecycle state asks for, concurrently, and answers with all
 * their outcomes, or with the first failure. When every task finished without
 * waiting on anything, it answers at once, in the same macrostep's wake.
 * Stopping the run cancels what is still running.
 */
export function taskRunner(g: GraphInternals) {
  return fromCallback<RunRequest>(({ receive, sendBack }) => {
    let running: StepCancellation | undefined;
    receive(({ node, context, graph }) => {
      const env = runEnvOf(graph);
      // The machine asks again only after an answer; a request it left behind is void.
      running?.cancel();
      const step = new StepCancellation(env.signal);
      running = step;
      const done = (output: TaskOutcome[]) => {
        if (step.cancelled) return;
        running = undefined;
        step.end();
        sendBack({ type: "TASKS.DONE", output });
      };
      const failed = (error: unknown) => {
        if (step.cancelled) return;
        running = undefined;
        // The run fails: the step's other tasks are void, so stop them now.
        step.cancel();
        sendBack({ type: "TASKS.ERROR", error });
      };
      const start = () => {
        if (step.cancelled) return;
        let output: MaybePromise<TaskOutcome[]>;
        try {
          output = runPendingTasks(g, env, context, node, step);
        } catch (error) {
          failed(error);
          return;
        }
        if (isThenable(output)) output.then(done, failed);
        else done(output);
      };
      // Most steps start at once; some wait for the store or give the event loop a turn.
      const wait = env.beforeTasks?.();
      if (wait) wait.then(start, failed);
      else start();
    });
    return () => running?.cancel();
  });
}

/**
 * Run one node's pending tasks (or, without a node, all of the step's)
 * concurrently: all of them start; the first failure, in task order among those
 * that fail at once, is the step's.
 */
function runPendingTasks(
  g: GraphInternals,
  env: RunEnv,
  context: GraphContext,
  node: string | undefined,
  step: StepCancellation,
): MaybePromise<TaskOutcome[]> {
  // With siblings in the step, save each finished task's writes at once: if the process
  // dies before the barrier, a restart runs only the tasks that had not finished. An
  // update's tasks are no run's progress (and their ids could name the thread's next tasks).
  const save = context.tasks.length > 1 && !opensUpdate(context) ? env.savePendingWrite : undefined;
  const saved = (t: TaskRecord, outcome: TaskOutcome): MaybePromise<TaskOutcome> => {
    // A task finishing after its step was cancelled (the run failed) ignored its signal.
    if (!save || outcome.status !== "done" || step.cancelled) return outcome;
    const written = save(t, outcome);
    return isThenable(written) ? written.then(() => outcome) : outcome;
  };
  // A failed task's error is kept against the step too, so getState can show it.
  const recordFailure = (t: TaskRecord, error: unknown) => {
    if (!step.cancelled) env.saveTaskError?.(t, error);
  };
  const outcomes: Array<MaybePromise<TaskOutcome>> = [];
  let waits = false;
  let failure: { error: unknown } | undefined;
  for (const t of context.tasks) {
    if (t.status !== "pending" || (node !== undefined && t.node !== node)) continue;
    let outcome: MaybePromise<TaskOutcome>;
    try {
      const ran = runTask(g, env, t, context.values, context.step, step);
      outcome = isThenable(ran)
        ? ran.then(
            (o) => saved(t, o),
            (error: unknown) => {
              recordFailure(t, error);
              throw error;
            },
          )
        : saved(t, ran);
    } catch (error) {
      recordFailure(t, error);
      failure ??= { error };
      continue;
    }
    if (isThenable(outcome)) waits = true;
    outcomes.push(outcome);
  }
  if (failure) {
    // Those still running are void; keep their late failures from going unhandled.
    for (const o of outcomes) if (isThenable(o)) o.then(undefined, () => {});
    throw failure.error;
  }
  return waits ? Promise.all(outcomes) : (outcomes as TaskOutcome[]);
}
