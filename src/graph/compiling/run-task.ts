// Runs one task of a step: calls the node and turns what it returns into writes and next tasks.
import { toJsonValue } from "../../checkpoint/serde.js";
import {
  GraphValidationError,
  InterruptReplayError,
  InterruptSwallowedError,
  InvalidConfigError,
  isStateweaverError,
  NodeError,
} from "../../errors/index.js";
import {
  currentTask,
  isGraphInterrupt,
  isParentCommand,
  ParentCommand,
  reachInterrupt,
  type Scratchpad,
} from "../../runtime/interrupt.js";
import { isThenable, type MaybePromise } from "../../runtime/maybe-promise.js";
import type { NodeRuntime } from "../../runtime/node-runtime.js";
import type { RunEnv } from "../../runtime/run-env.js";
import type { StepCancellation } from "../../runtime/step-cancellation.js";
import type { TaskOutcome, TaskRecord, TaskSeed } from "../../runtime/task.js";
import { isWriteList } from "../../runtime/write-list.js";
import { Command, type GotoTarget, isCommand, isSend, type Send } from "../definition/command.js";
import { END, START } from "../definition/constants.js";
import type { ConditionalEdgeSpec } from "../definition/graph-spec.js";
import type { GraphInternals } from "./internals.js";
import { errorRecord, TaskAttempts, taskEnd, taskStart } from "./task-attempts.js";
import { TaskRuntime } from "./task-runtime.js";

/** Custom events go nowhere when nobody streams. */
const ignore = () => {};

/** A task with no answers for the graphs it called (most): one shared, never written, object. */
const NO_ANSWERS: Readonly<Record<string, unknown>> = Object.freeze({});

/**
 * Run one task of a step: call the node (or take the input/update payload),
 * turn its result into writes, and route. An interrupt ends the task as
 * `interrupted`; any other throw fails the run with a `NodeError`. A node and
 * routers that return plain values finish the task synchronously (no promise
 * is made): most steps of most graphs never wait on anything.
 */
export function runTask(
  g: GraphInternals,
  env: RunEnv,
  task: TaskRecord,
  values: Record<string, unknown>,
  step: number,
  cancellation: StepCancellation,
): MaybePromise<TaskOutcome> {
  const emit = env.emit;
  const pad: Scratchpad = {
    node: task.node,
    taskId: task.id,
    ns: env.ns,
    step,
    reached: task.interrupts.slice(),
    resumes: task.resumes,
    calls: 0,
    raised: false,
    runtime: undefined as never,
    env,
    graphCalls: 0,
    nestedAnswers: task.nestedAnswers ?? NO_ANSWERS,
  };
  let runtime: TaskRuntime = new TaskRuntime(
    {
      interrupt: (value) => {
        if (!env.persistent) {
          throw new InvalidConfigError(
            `Node "${task.node}" called interrupt(), but the graph has no checkpointer to keep the paused run. Compile it with compile({ checkpointer }) (e.g. new MemoryCheckpointer()).`,
          );
        }
        return reachInterrupt(pad, value);
      },
      config: env.config,
      context: env.context,
      store: env.store,
      writer: emit
        ? (data) => emit({ type: "custom", ns: env.ns, step, node: task.node, data })
        : ignore,
      node: task.node,
      step,
      taskId: task.id,
    },
    cancellation,
  );
  (pad as { runtime: NodeRuntime }).runtime = runtime;
  // Which attempt this is, for task events and errors (a retry policy counts them).
  let attempts: TaskAttempts | undefined;

  /** What the node's result comes to: writes, then routes. */
  const finish = (result: unknown): MaybePromise<TaskOutcome> => {
    if (task.kind === "node" || task.kind === "send") {
      if (pad.raised) throw new InterruptSwallowedError(task.node);
      if (pad.calls < pad.resumes.length) {
        throw new InterruptReplayError(
          `Node "${task.node}" returned after reaching ${pad.calls} interrupt(s), but ${pad.resumes.length} had been answered. A node must reach its interrupts in the same order on every run; do not skip interrupts conditionally.`,
        );
      }
    }
    let update: unknown = result;
    let goto: unknown;
    if (isCommand(result)) {
      if (result.graph === Command.PARENT) {
        if (env.ns === "") {
          throw new GraphValidationError(
            `Node "${task.node}" returned Command({ graph: Command.PARENT }), but graph "${g.spec.name}" was not called by another graph. Use it only in subgraphs.`,
          );
        }
        throw new ParentCommand(result.goto, result.update);
      }
      update = result.update;
      goto = result.goto;
    }
    let writes = isWriteList(update)
      ? g.channels.toWriteList(update.writes, values, { node: task.node, step })
      : g.channels.toWrites(update, values, { node: task.node, step });
    if (pad.sent) writes = [...sentWrites(g, pad.sent, values, task.node, step), ...writes];
    if (emit && (task.kind === "node" || task.kind === "send")) {
      emit(taskEnd(env, task, step, attempts?.attempt ?? 1, { writes }));
    }
    if (emit && writes.length > 0 && task.kind !== "input") {
      emit({
        type: "updates",
        ns: env.ns,
        step,
        node: task.node,
        // A subgraph node shows its output (its final values, in this graph's keys), as LangGraph's do.
        update:
          isWriteList(update) && update.shown
            ? g.channels.pick(update.shown)
            : Object.fromEntries(writes),
        writes,
      });
    }
    const from = task.kind === "input" ? START : task.node;
    const done = (next: TaskSeed[]): TaskOutcome => {
      for (const seed of next)
        if (seed.kind === "send") seed.arg = toJsonValue(seed.arg, `Send("${seed.node}") argument`);
      return { id: task.id, status: "done", writes, next, interrupts: pad.reached };
    };
    const next = route(g, from, goto, writes, values, runtime);
    return isThenable(next) ? next.then(done) : done(next);
  };

  /** A throw from the node: a pause, a parent's command, or the run's failure. */
  const caught = (error: unknown): MaybePromise<TaskOutcome> => {
    if (isGraphInterrupt(error) && error.scratchpad === pad) {
      if (emit)
        emit(taskEnd(env, task, step, attempts?.attempt ?? 1, { interrupts: error.nested ?? [] }));
      return {
        id: task.id,
        status: "interrupted",
        writes: null,
        next: null,
        interrupts: pad.reached,
        nested: error.nested,
      };
    }
    if (isParentCommand(error)) {
      return finish(new Command({ goto: error.goto as GotoTarget, update: error.update }));
    }
    if (emit && !isGraphInterrupt(error)) {
      emit(taskEnd(env, task, step, attempts?.attempt ?? 1, { error: errorRecord(error) }));
    }
    if (isStateweaverError(error) || isGraphInterrupt(error)) throw error;
    throw new NodeError(task.node, step, error, attempts?.attempt ?? 1);
  };

  if (task.kind === "input") {
    const { update, goto } = task.arg as { update: unknown; goto?: GotoTarget };
    return finish(
      goto === undefined
        ? update
        : new Command({ update: update as Record<string, unknown>, goto }),
    );
  }
  if (task.kind === "update") {
    return finish(
      task.goto
        ? new Command({ update: task.arg as Record<string, unknown>, goto: task.goto })
        : task.arg,
    );
  }
  const fn = g.nodeFns.get(task.node)!;
  const arg = task.kind === "send" ? task.arg : values;
  const policy = g.policies.size > 0 ? g.policies.get(task.node) : undefined;
  if (policy) {
    attempts = new TaskAttempts(task, step, pad, cancellation, policy);
    runtime = attempts.runtimeOf(runtime);
    (pad as { runtime: NodeRuntime }).runtime = runtime;
    return attempts.run(fn, arg, finish, caught);
  }
  if (emit) emit(taskStart(env, task, step, arg, 1));
  let result: unknown;
  try {
    result = currentTask.run(pad, fn, arg, runtime);
  } catch (error) {
    return caught(error);
  }
  return isThenable(result) ? Promise.resolve(result).then(finish, caught) : finish(result);
}

/** What a node wrote while it ran (`typedUi`), each as its own write, in order. */
function sentWrites(
  g: GraphInternals,
  sent: ReadonlyArray<[string, unknown]>,
  values: Record<string, unknown>,
  node: string,
  step: number,
): Array<[string, unknown]> {
  return sent.flatMap((write) =>
    g.channels.toWrites(Object.fromEntries([write]), values, { node, step }),
  );
}

/** Where a finished task goes: `Command.goto`, static edges, then conditional edges. */
function route(
  g: GraphInternals,
  from: string,
  goto: unknown,
  writes: Array<[string, unknown]>,
  values: Record<string, unknown>,
  runtime: NodeRuntime,
): MaybePromise<TaskSeed[]> {
  const next: TaskSeed[] = [];
  if (goto !== undefined) {
    const ends = from === START ? undefined : g.spec.nodes.get(from)?.ends;
    for (const target of toTargets(goto)) {
      const node = isSend(target) ? target.node : target;
      if (node === END) continue;
      if (from !== START && !ends?.includes(node)) {
        throw new GraphValidationError(
          ends
            ? `Node "${from}" returned Command goto "${node}", which is not in its ends [${ends.join(", ")}]. Add it: addNode("${from}", fn, { ends: [..., "${node}"] }).`
            : `Node "${from}" returned Command goto "${node}" but declares no ends. Declare every target: addNode("${from}", fn, { ends: ["${node}"] }).`,
        );
      }
      next.push(seed(g, target, `Command goto from "${from}"`));
    }
  }
  // A Command given as input goes only where it says (START's own edges stay unused).
  if (from === START && goto !== undefined) return next;
  const edges = g.edgesFrom.get(from);
  if (edges) for (const to of edges) if (to !== END) next.push({ node: to, kind: "node" });
  const conditional = g.conditionalFrom.get(from);
  if (!conditional) return next;
  const local = g.channels.apply(values, writes);
  /** Ask the routers from the i-th on; an async router makes the rest wait for it. */
  const ask = (i: number): MaybePromise<TaskSeed[]> => {
    for (; i < conditional.length; i++) {
      const edge = conditional[i]!;
      const routed = edge.router(local, runtime);
      if (isThenable(routed)) {
        const at = i;
        return Promise.resolve(routed).then((r) => {
          follow(edge, r);
          return ask(at + 1);
        });
      }
      follow(edge, routed);
    }
    return next;
  };
  const follow = (edge: ConditionalEdgeSpec, routed: unknown) => {
    for (const target of toTargets(routed)) {
      if (isSend(target)) {
        next.push(seed(g, target, `Router of "${from}"`));
        continue;
      }
      const node = edge.pathMap ? edge.pathMap[String(target)] : target;
      if (node === undefined) {
        throw new GraphValidationError(
          `The router of "${from}" returned "${String(target)}", which is not in its pathMap (${Object.keys(edge.pathMap!).join(", ")}). Return one of those keys or add it to the pathMap.`,
        );
      }
      if (node !== END) next.push(seed(g, node, `Router of "${from}"`));
    }
  };
  return ask(0);
}

function toTargets(value: unknown): Array<string | Send> {
  if (value === undefined || value === null) return [];
  return (Array.isArray(value) ? value : [value]) as Array<string | Send>;
}

function seed(g: GraphInternals, target: string | Send, who: string): TaskSeed {
  const node = isSend(target) ? target.node : target;
  if (typeof node !== "string" || !g.nodeFns.has(node)) {
    throw new GraphValidationError(
      `${who} sent the run to unknown node "${String(node)}". Known nodes: ${[...g.nodeFns.keys()].join(", ")}.`,
    );
  }
  return isSend(target) ? { node, kind: "send", arg: target.arg } : { node, kind: "node" };
}
