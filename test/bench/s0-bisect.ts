/**
 * The gap between `chart-shape.ts`'s last approximation (a bare chart of S1's shape) and
 * the compiled graph's actor, bisected: the approximation with each step a round trip to
 * the invoked runner (as the compiled chart's steps are), then the compiled graph with its
 * runner answering from a table (no node runs), with the task bookkeeping, and whole.
 * Process CPU and wall µs per operation, medians of batches taken in turn (the order
 * reversed every round).
 *
 *   npm run -s build
 *   node --import tsx --expose-gc test/bench/s0-bisect.ts [--rounds 21]
 */
import { type AnyStateMachine, createActor, fromCallback, toPromise } from "xstate";
import { chartLike, FULL_SHAPE } from "./chart-like.js";
import * as ours from "./graphs/ours.js";
import { loadAverage, median } from "./measure.js";
import { bareChain } from "./scenarios/s0-xstate-floor.js";

const at = process.argv.indexOf("--rounds");
const rounds = at >= 0 ? Number(process.argv[at + 1]) : 21;
const N = 10;

/**
 * The compiled chain's runner, answering each `RUN` with what the real one would (the
 * node's write and where it goes) without running anything: routing, writes in JSON form,
 * the task's scratchpad and runtime are left out.
 */
export const tableRunner = fromCallback<{
  type: "RUN";
  context: { values: { n: number }; tasks: Array<{ id: string; node: string }> };
}>(({ receive, sendBack }) => {
  receive(({ context }) => {
    const task = context.tasks[0]!;
    const i = task.node === "__start__" ? -1 : Number(task.node.slice(1));
    const n = i < 0 ? 0 : context.values.n + 1;
    const next = i + 1 < N ? [{ node: `n${i + 1}`, kind: "node" }] : [];
    sendBack({
      type: "TASKS.DONE",
      output: [{ id: task.id, status: "done", writes: [["n", n]], next, interrupts: [] }],
    });
  });
  return () => {};
});

if (process.argv[1]?.endsWith("s0-bisect.ts")) await main();

async function main() {
  const bare = (machine: AnyStateMachine) => async () => {
    if (createActor(machine).start().getSnapshot().status !== "done") throw new Error("not done");
  };
  const graph = ours.chain(N);
  const machine = graph.machine as AnyStateMachine;
  const actorOf = (m: AnyStateMachine) => async () => {
    const actor = createActor(m, { input: { n: 0 } }).start();
    if ((await toPromise(actor)).n !== N) throw new Error("wrong n");
  };
  const rows: Array<[string, () => Promise<void>]> = [
    ["S0's bare machine", bare(bareChain(N))],
    ["chart-shape's approximation (raised steps)", bare(chartLike(FULL_SHAPE))],
    ["+ each step a round trip to the runner", bare(chartLike({ ...FULL_SHAPE, roundTrip: true }))],
    [
      "+ the input's microsteps and step (raise)",
      bare(chartLike({ ...FULL_SHAPE, roundTrip: true, inputPhase: true, plainRaise: true })),
    ],
    [
      "  … raised by enqueueActions, as compiled",
      bare(chartLike({ ...FULL_SHAPE, roundTrip: true, inputPhase: true })),
    ],
    [
      "compiled graph, runner answering from a table",
      actorOf(machine.provide({ actors: { taskRunner: tableRunner } } as never)),
    ],
    ["compiled graph's actor", actorOf(machine)],
    [
      "graph.invoke (S1)",
      async () => {
        if ((await graph.invoke({ n: 0 })).state.n !== N) throw new Error("wrong n");
      },
    ],
  ];
  for (const [, op] of rows) for (let i = 0; i < 2000; i++) await op();
  const cpu = rows.map(() => [] as number[]);
  const wall = rows.map(() => [] as number[]);
  console.log(`load average before: ${loadAverage()}`);
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? rows.map((_, i) => i) : rows.map((_, i) => rows.length - 1 - i);
    for (const i of order) {
      const op = rows[i]![1];
      const start = process.cpuUsage();
      const t0 = performance.now();
      for (let k = 0; k < 200; k++) await op();
      const ms = performance.now() - t0;
      const used = process.cpuUsage(start);
      cpu[i]!.push((used.user + used.system) / 200);
      wall[i]!.push((ms * 1000) / 200);
    }
  }
  const floorCpu = median(cpu[0]!);
  const floorWall = median(wall[0]!);
  console.log(`load average after: ${loadAverage()}`);
  console.log(`${"".padEnd(46)}  CPU µs  × S0   wall µs  × S0`);
  for (const [i, [what]] of rows.entries()) {
    const c = median(cpu[i]!);
    const w = median(wall[i]!);
    console.log(
      `${what.padEnd(46)} ${c.toFixed(1).padStart(7)} ${(c / floorCpu).toFixed(2).padStart(5)} ${w.toFixed(1).padStart(9)} ${(w / floorWall).toFixed(2).padStart(5)}`,
    );
  }
}
