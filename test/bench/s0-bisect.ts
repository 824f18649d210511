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
import {
  type AnyStateMachine,
  assign,
  createActor,
  enqueueActions,
  fromCallback,
  raise,
  sendTo,
  setup,
  toPromise,
} from "xstate";
import * as ours from "./graphs/ours.js";
import { loadAverage, median } from "./measure.js";
import { bareChain } from "./scenarios/s0-xstate-floor.js";

const at = process.argv.indexOf("--rounds");
const rounds = at >= 0 ? Number(process.argv[at + 1]) : 21;
const N = 10;

/**
 * chart-shape.ts's fullest approximation; `roundTrip` sends each step to the runner and
 * back; `inputPhase` starts in `idle` as the compiled chart does: the root's entry raises
 * INPUT, which enters the barrier, whose entry raises the first step's event, and the
 * input's own step (`s`) runs before n0.
 */
export function approximation(
  roundTrip: boolean,
  inputPhase = false,
  /** `plainRaise`: the input phase raises with `raise`, not `enqueueActions`; `steps`: how many. */
  variant: { plainRaise?: boolean; steps?: number } = {},
): AnyStateMachine {
  const workflow: Record<string, object> = {};
  const names = Array.from({ length: variant.steps ?? N }, (_, i) => `n${i}`);
  if (inputPhase) names.unshift("s");
  for (const [i, name] of names.entries()) {
    const target = i + 1 < names.length ? `#m.workflow.${names[i + 1]}` : "#m.done";
    const finish = {
      target,
      actions: ["merge", "checkpoint"],
      reenter: true,
      guard: { type: "goesTo", params: { to: names[i + 1] ?? "end" } },
    };
    workflow[name] = {
      initial: "running",
      states: {
        running: {
          tags: ["running"],
          entry: "run",
          on: {
            "TASKS.DONE": [
              { guard: "paused", target: "#m.done" },
              finish,
              { target: "#m.runtime.barrier" },
            ],
          },
        },
        interrupted: { on: { RESUME: "running" } },
      },
    };
  }
  const runner = fromCallback<{ type: "RUN" }>(({ receive, sendBack }) => {
    receive(() => sendBack({ type: "TASKS.DONE" }));
    return () => {};
  });
  return setup({
    actors: { taskRunner: runner },
    guards: { paused: () => false, goesTo: () => true },
    actions: {
      merge: assign(({ context }) => ({ n: (context as { n: number }).n + 1 })),
      checkpoint: () => {},
      startRun: variant.plainRaise
        ? raise({ type: "INPUT" })
        : enqueueActions(({ enqueue }) => enqueue.raise({ type: "INPUT" })),
      dispatch: variant.plainRaise
        ? raise({ type: "RUN.s" })
        : enqueueActions(({ enqueue }) => enqueue.raise({ type: "RUN.s" })),
      run: roundTrip
        ? sendTo("tasks", { type: "RUN" })
        : enqueueActions(({ enqueue }) => enqueue.raise({ type: "TASKS.DONE" })),
    },
  }).createMachine({
    id: "m",
    context: {
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
    },
    invoke: { id: "tasks", src: "taskRunner" },
    initial: inputPhase ? "idle" : "workflow",
    ...(inputPhase && { entry: "startRun", on: { INPUT: ".runtime.barrier" } }),
    states: {
      workflow: { initial: "n0", states: workflow },
      runtime: {
        initial: "barrier",
        states: {
          barrier: inputPhase
            ? { entry: ["checkpoint", "dispatch"], on: { "RUN.s": "#m.workflow.s" } }
            : {},
          fanout: {},
          breakpoint: {},
        },
      },
      idle: {},
      done: { type: "final" },
      failed: { type: "final" },
    },
  } as never) as unknown as AnyStateMachine;
}

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
    ["chart-shape's approximation (raised steps)", bare(approximation(false))],
    ["+ each step a round trip to the runner", bare(approximation(true))],
    [
      "+ the input's microsteps and step (raise)",
      bare(approximation(true, true, { plainRaise: true })),
    ],
    ["  … raised by enqueueActions, as compiled", bare(approximation(true, true))],
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
