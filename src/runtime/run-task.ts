import { assertJson } from "../checkpoint/serde.js";
import {
  GraphValidationError,
  InterruptReplayError,
  InterruptSwallowedError,
  InvalidConfigError,
  NodeError,
  StateweaverError,
} from "../errors/index.js";
import { Command, type GotoTarget, Send } from "../graph/command.js";
import { END, START } from "../graph/constants.js";
import type { GraphInternals } from "../graph/internals.js";
import type { NodeRuntime } from "../graph/types.js";
import {
  currentTask,
  GraphInterrupt,
  ParentCommand,
  reachInterrupt,
  type Scratchpad,
} from "./interrupt.js";
import type { RunEnv } from "./run-env.js";
import type { StepCancellation } from "./step-cancellation.js";
import type { TaskOutcome, TaskRecord, TaskSeed } from "./task.js";

/** Custom events go nowhere when nobody streams. */
const ignore = () => {};

/**
 * A node result that is an ordered list of writes rather than an object: how a
 * subgraph hands its nodes' writes to the parent, one by one, so each passes
 * through the parent's reducers exactly as it happened (no list is appended twice).
 */
export class WriteList {
  readonly writes: ReadonlyArray<[string, unknown]>;
  constructor(writes: ReadonlyArray<[string, unknown]>) {
    this.writes = writes;
  }
}

/**
 * Run one task of a step: call the node (or take the input/update payload),
 * turn its result into writes, and route. An interrupt ends the task as
 * `interrupted`; any other throw fails the run with a `NodeError`.
 */
export async function runTask(
  g: GraphInternals,
  env: RunEnv,
  task: TaskRecord,
  values: Record<string, unknown>,
  step: number,
  cancellation: StepCancellation,
): Promise<TaskOutcome> {
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
    persistent: env.persistent,
    runtime: undefined as never,
    env,
    graphCalls: 0,
    nestedAnswers: task.nestedAnswers ?? {},
  };
  const runtime: NodeRuntime = {
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
    get signal() {
      return cancellation.signal;
    },
    writer: emit
      ? (data) => emit({ type: "custom", ns: env.ns, step, node: task.node, data })
      : ignore,
    node: task.node,
    step,
    taskId: task.id,
  };
  (pad as { runtime: NodeRuntime }).runtime = runtime;

  let result: unknown;
  if (task.kind === "input") {
    const { update, goto } = task.arg as { update: unknown; goto?: GotoTarget };
    result =
      goto === undefined
        ? update
        : new Command({ update: update as Record<string, unknown>, goto });
  } else if (task.kind === "update") {
    result = task.arg;
  } else {
    const fn = g.nodeFns.get(task.node)!;
    try {
      result = await currentTask.run(pad, fn, task.kind === "send" ? task.arg : values, runtime);
    } catch (error) {
      if (error instanceof GraphInterrupt && error.scratchpad === pad) {
        return {
          id: task.id,
          status: "interrupted",
          writes: null,
          next: null,
          interrupts: pad.reached,
          nested: error.nested,
        };
      }
      if (error instanceof ParentCommand) {
        result = new Command({ goto: error.goto as GotoTarget, update: error.update });
      } else if (error instanceof StateweaverError || error instanceof GraphInterrupt) {
        throw error;
      } else {
        throw new NodeError(task.node, step, error);
      }
    }
    if (pad.raised) throw new InterruptSwallowedError(task.node);
    if (pad.calls < pad.resumes.length) {
      throw new InterruptReplayError(
        `Node "${task.node}" returned after reaching ${pad.calls} interrupt(s), but ${pad.resumes.length} had been answered. A node must reach its interrupts in the same order on every run; do not skip interrupts conditionally.`,
      );
    }
  }

  let update: unknown = result;
  let goto: unknown;
  if (result instanceof Command) {
    if (result.graph === Command.PARENT) {
      if (env.ns === "") {
        throw new GraphValidationError(
          `Node "${task.node}" returned Command({ graph: Command.PARENT }), but graph "${g.spec.name}" was not called by another graph. Use it only in subgraphs.`,
        );
      }
      throw new ParentCommand(result.goto, result.update as Record<string, unknown> | undefined);
    }
    update = result.update;
    goto = result.goto;
  }
  const writes =
    update instanceof WriteList
      ? g.channels.toWriteList(update.writes, values, { node: task.node, step })
      : g.channels.toWrites(update, values, { node: task.node, step });
  if (env.persistent && writes.length > 0) {
    for (const [key, value] of writes) assertJson(value, `state.${key}`);
  }
  if (emit && writes.length > 0 && task.kind !== "input") {
    emit({
      type: "updates",
      ns: env.ns,
      step,
      node: task.node,
      update: Object.fromEntries(writes),
    });
  }
  const from = task.kind === "input" ? START : task.node;
  const next = await route(g, from, goto, writes, values, runtime);
  if (env.persistent)
    for (const seed of next)
      if (seed.kind === "send") assertJson(seed.arg, `Send("${seed.node}") argument`);
  return { id: task.id, status: "done", writes, next, interrupts: pad.reached };
}

/** Where a finished task goes: `Command.goto`, static edges, then conditional edges. */
async function route(
  g: GraphInternals,
  from: string,
  goto: unknown,
  writes: Array<[string, unknown]>,
  values: Record<string, unknown>,
  runtime: NodeRuntime,
): Promise<TaskSeed[]> {
  const next: TaskSeed[] = [];
  if (goto !== undefined) {
    const ends = from === START ? undefined : g.spec.nodes.get(from)?.ends;
    for (const target of toTargets(goto)) {
      const node = target instanceof Send ? target.node : target;
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
  const edges = g.edgesFrom.get(from);
  if (edges) for (const to of edges) if (to !== END) next.push({ node: to, kind: "node" });
  const conditional = g.conditionalFrom.get(from);
  if (conditional) {
    const local = g.channels.apply(values, writes);
    for (const edge of conditional) {
      const routed = await edge.router(local, runtime);
      for (const target of toTargets(routed)) {
        if (target instanceof Send) {
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
    }
  }
  return next;
}

function toTargets(value: unknown): Array<string | Send> {
  if (value === undefined || value === null) return [];
  return (Array.isArray(value) ? value : [value]) as Array<string | Send>;
}

function seed(g: GraphInternals, target: string | Send, who: string): TaskSeed {
  const node = target instanceof Send ? target.node : target;
  if (typeof node !== "string" || !g.nodeFns.has(node)) {
    throw new GraphValidationError(
      `${who} sent the run to unknown node "${String(node)}". Known nodes: ${[...g.nodeFns.keys()].join(", ")}.`,
    );
  }
  return target instanceof Send ? { node, kind: "send", arg: target.arg } : { node, kind: "node" };
}
