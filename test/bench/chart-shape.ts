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
import { type AnyStateMachine, createActor, toPromise } from "xstate";
import { chartLike } from "./chart-like.js";
import * as ours from "./graphs/ours.js";
import { median } from "./measure.js";
import { bareChain } from "./scenarios/s0-xstate-floor.js";

const at = process.argv.indexOf("--rounds");
const rounds = at >= 0 ? Number(process.argv[at + 1]) : 31;
const N = 10;

const bare = (machine: AnyStateMachine) => async () => {
  if (createActor(machine).start().getSnapshot().status !== "done") throw new Error("not done");
};
const graph = ours.chain(N);
const rows: Array<[string, () => Promise<void>]> = [
  ["S0's bare machine: flat states, always", bare(bareChain(N))],
  ["node states nested in workflow", bare(chartLike({}))],
  ["+ steps moved by a raised event", bare(chartLike({ raise: true }))],
  ["+ reenter", bare(chartLike({ raise: true, reenter: true }))],
  ["+ guarded transition lists", bare(chartLike({ raise: true, reenter: true, guards: true }))],
  [
    "+ two actions per step",
    bare(chartLike({ raise: true, reenter: true, guards: true, twoActions: true })),
  ],
  [
    "+ the invoked task runner",
    bare(chartLike({ raise: true, reenter: true, guards: true, twoActions: true, invoke: true })),
  ],
  [
    "+ the graph's context",
    bare(
      chartLike({
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
