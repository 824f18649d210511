/**
 * Where S0's gap comes from: S1's ten steps in bare XState machines that add, one at a
 * time, what the compiled graph's chart has (node states nested in `workflow` with a
 * `running` state, steps moved by a raised event instead of `always`, `reenter`, guarded
 * transition lists, two actions per step, the invoked task runner, the graph's context),
 * then the compiled graph itself, as an actor its user starts (`createActor(graph.machine,
 * { input })`) and through `invoke`. Process CPU µs per operation, medians of batches.
 *
 *   npm run -s build
 *   node --import tsx test/bench/chart-shape.ts [--rounds 31]
 */
import {
  type AnyStateMachine,
  assign,
  createActor,
  enqueueActions,
  fromCallback,
  setup,
  toPromise,
} from "xstate";
import * as ours from "./graphs/ours.js";
import { median } from "./measure.js";
import { bareChain } from "./scenarios/s0-xstate-floor.js";

const at = process.argv.indexOf("--rounds");
const rounds = at >= 0 ? Number(process.argv[at + 1]) : 31;
const N = 10;

interface Shape {
  raise?: boolean;
  reenter?: boolean;
  guards?: boolean;
  twoActions?: boolean;
  invoke?: boolean;
  graphContext?: boolean;
}

/** S1's ten steps in a chart shaped like the compiled graph's, as far as `shape` says. */
function nested(shape: Shape): AnyStateMachine {
  const workflow: Record<string, object> = {};
  for (let i = 0; i < N; i++) {
    const target = i + 1 < N ? `#m.workflow.n${i + 1}` : "#m.done";
    const actions = shape.twoActions ? ["merge", "checkpoint"] : ["merge"];
    const finish = {
      target,
      actions,
      ...(shape.reenter && { reenter: true }),
      ...(shape.guards && { guard: { type: "goesTo", params: { to: `n${i + 1}` } } }),
    };
    const on = shape.guards
      ? [{ guard: "paused", target: "#m.done" }, finish, { target: "#m.runtime.barrier" }]
      : [finish];
    workflow[`n${i}`] = {
      initial: "running",
      states: {
        running: shape.raise
          ? { tags: ["running"], entry: "run", on: { "TASKS.DONE": on } }
          : { tags: ["running"], always: on },
        interrupted: { on: { RESUME: "running" } },
      },
    };
  }
  const context = shape.graphContext
    ? {
        n: 0,
        run: { recursionLimit: 25, interruptBefore: [], interruptAfter: [], holds: false },
        values: {},
        step: 0,
        tasks: [],
        joins: {},
        lastRan: [],
        runSteps: 0,
        breakpoint: null,
        passed: [],
      }
    : { n: 0 };
  return setup({
    actors: { taskRunner: fromCallback(() => () => {}) },
    guards: { paused: () => false, goesTo: () => true },
    actions: {
      merge: assign(({ context }) => ({ n: (context as { n: number }).n + 1 })),
      checkpoint: () => {},
      run: enqueueActions(({ enqueue }) => enqueue.raise({ type: "TASKS.DONE" })),
    },
  }).createMachine({
    id: "m",
    context,
    ...(shape.invoke && { invoke: { id: "tasks", src: "taskRunner" } }),
    initial: "workflow",
    states: {
      workflow: { initial: "n0", states: workflow },
      runtime: { initial: "barrier", states: { barrier: {}, fanout: {}, breakpoint: {} } },
      idle: {},
      done: { type: "final" },
      failed: { type: "final" },
    },
  } as never) as unknown as AnyStateMachine;
}

const bare = (machine: AnyStateMachine) => async () => {
  if (createActor(machine).start().getSnapshot().status !== "done") throw new Error("not done");
};
const graph = ours.chain(N);
const rows: Array<[string, () => Promise<void>]> = [
  ["S0's bare machine: flat states, always", bare(bareChain(N))],
  ["node states nested in workflow", bare(nested({}))],
  ["+ steps moved by a raised event", bare(nested({ raise: true }))],
  ["+ reenter", bare(nested({ raise: true, reenter: true }))],
  ["+ guarded transition lists", bare(nested({ raise: true, reenter: true, guards: true }))],
  [
    "+ two actions per step",
    bare(nested({ raise: true, reenter: true, guards: true, twoActions: true })),
  ],
  [
    "+ the invoked task runner",
    bare(nested({ raise: true, reenter: true, guards: true, twoActions: true, invoke: true })),
  ],
  [
    "+ the graph's context",
    bare(
      nested({
        raise: true,
        reenter: true,
        guards: true,
        twoActions: true,
        invoke: true,
        graphContext: true,
      }),
    ),
  ],
  [
    "the graph's actor (createActor with input)",
    async () => {
      const actor = createActor(graph.machine, { input: { n: 0 } }).start();
      if ((await toPromise(actor)).n !== N) throw new Error("wrong n");
    },
  ],
  [
    "graph.invoke (S1)",
    async () => {
      if ((await graph.invoke({ n: 0 })).state.n !== N) throw new Error("wrong n");
    },
  ],
];
for (const [, op] of rows) for (let i = 0; i < 2000; i++) await op();
const cpu = rows.map(() => [] as number[]);
for (let r = 0; r < rounds; r++) {
  for (const [i, [, op]] of rows.entries()) {
    const start = process.cpuUsage();
    for (let k = 0; k < 100; k++) await op();
    const used = process.cpuUsage(start);
    cpu[i]!.push((used.user + used.system) / 100);
  }
}
const floor = median(cpu[0]!);
console.log("CPU µs per operation (median), and multiple of S0's bare machine");
for (const [i, [what]] of rows.entries()) {
  const us = median(cpu[i]!);
  console.log(`${what.padEnd(44)} ${us.toFixed(1).padStart(7)}  ${(us / floor).toFixed(2)}×`);
}
