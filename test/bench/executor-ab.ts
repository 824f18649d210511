/**
 * Issue 18's measurement: the star executor (A) against the edge-carrying prototype (B) on
 * the stateweaver side of S1–S5, both in one process, alternating batches (measure.ts).
 *
 *   npm run -s build && node --import tsx --expose-gc test/bench/executor-ab.ts [--rounds 3]
 *
 * Each graph is compiled twice, under STATEWEAVER_EXECUTOR_CHART=star and =edges (compile
 * reads it once). Prints per scenario the medians over batches in µs/op, of wall time and of
 * the process's CPU time (user + system: on a loaded machine, time spent waiting for a core
 * is not in it), and B/A of each median, per round and the median over rounds.
 */
import { MemoryCheckpointer } from "stateweaver/checkpoint";
import * as ours from "./graphs/ours.js";
import { median, type Op, type PairOptions } from "./measure.js";
import { check } from "./scenario.js";

type Variant = "star" | "edges";

function compiled<T>(variant: Variant, build: () => T): T {
  process.env.STATEWEAVER_EXECUTOR_CHART = variant;
  try {
    return build();
  } finally {
    delete process.env.STATEWEAVER_EXECUTOR_CHART;
  }
}

interface Workload {
  id: string;
  options: PairOptions;
  op(variant: Variant): Op;
}

let thread = 0;
const config = () => ({ configurable: { thread_id: `ab-${thread++}` } });
const SMALL: PairOptions = { warmup: 300, batches: 21, batchSize: 20 };

const workloads: Workload[] = [
  {
    id: "S1",
    options: SMALL,
    op(v) {
      const g = compiled(v, () => ours.chain(10));
      return async () => {
        const r = await g.invoke({ n: 0 });
        check(r.status === "done" && r.state.n === 10, "S1", r);
      };
    },
  },
  {
    id: "S2",
    options: SMALL,
    op(v) {
      const g = compiled(v, () => ours.chain(10, new MemoryCheckpointer()));
      return async () => {
        const r = await g.invoke({ n: 0 }, { config: config() });
        check(r.status === "done" && r.state.n === 10, "S2", r);
      };
    },
  },
  {
    id: "S3",
    options: SMALL,
    op(v) {
      const g = compiled(v, () => ours.approval(new MemoryCheckpointer()));
      return async () => {
        const c = config();
        const paused = await g.invoke({ details: "Transfer $500" }, { config: c });
        check(paused.status === "interrupted", "S3 paused", paused);
        const done = await g.resume(true, { config: c });
        check(done.status === "done" && done.state.approved === true, "S3 done", done);
      };
    },
  },
  {
    id: "S4",
    options: { warmup: 30, batches: 15, batchSize: 5 },
    op(v) {
      const g = compiled(v, () => ours.fanOut(50));
      return async () => {
        const r = await g.invoke({ items: [] });
        check(r.status === "done" && r.state.count === 50, "S4", r);
      };
    },
  },
  {
    id: "S5",
    options: { warmup: 3, batches: 9, batchSize: 2 },
    op(v) {
      const g = compiled(v, () => ours.chain(200, new MemoryCheckpointer()));
      return async () => {
        const r = await g.invoke(
          { n: 0 },
          { config: config(), durability: "sync", recursionLimit: 1000 },
        );
        check(r.status === "done" && r.state.n === 200, "S5", r);
      };
    },
  },
];

const args = process.argv.slice(2);
const roundsAt = args.indexOf("--rounds");
const rounds = roundsAt >= 0 ? Number(args[roundsAt + 1]) : 3;
const fmt = (x: number) => (x >= 100 ? x.toFixed(0) : x.toFixed(1));

/** One batch of `n` operations: µs/op of wall time and of CPU time. */
async function batch(op: Op, n: number): Promise<[number, number]> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  for (let i = 0; i < n; i++) await op();
  const wall = ((performance.now() - start) * 1000) / n;
  const used = process.cpuUsage(cpu);
  return [wall, (used.user + used.system) / n];
}

/** Warm both up, then alternate batches (A B, B A, …); medians of wall and CPU µs/op per side. */
async function pair(a: Op, b: Op, o: PairOptions) {
  for (let i = 0; i < o.warmup; i++) {
    await a();
    await b();
  }
  const sides = { a: [[], []] as number[][], b: [[], []] as number[][] };
  for (let k = 0; k < o.batches; k++) {
    const order = k % 2 === 0 ? (["a", "b"] as const) : (["b", "a"] as const);
    for (const side of order) {
      const [wall, cpu] = await batch(side === "a" ? a : b, o.batchSize);
      sides[side][0]!.push(wall);
      sides[side][1]!.push(cpu);
    }
  }
  return {
    a: { wall: median(sides.a[0]!), cpu: median(sides.a[1]!) },
    b: { wall: median(sides.b[0]!), cpu: median(sides.b[1]!) },
  };
}

console.log(`executor A/B, Node ${process.version}, ${rounds} rounds; A = star, B = edges`);
const onlyAt = args.indexOf("--only");
const only = onlyAt >= 0 ? new Set(args[onlyAt + 1]!.split(",")) : null;
for (const w of workloads.filter((x) => !only || only.has(x.id))) {
  const a = w.op("star");
  const b = w.op("edges");
  const rows = {
    wallA: [] as number[],
    wallB: [] as number[],
    cpuA: [] as number[],
    cpuB: [] as number[],
  };
  const wallRatio: number[] = [];
  const cpuRatio: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const m = await pair(a, b, w.options);
    rows.wallA.push(m.a.wall);
    rows.wallB.push(m.b.wall);
    rows.cpuA.push(m.a.cpu);
    rows.cpuB.push(m.b.cpu);
    wallRatio.push(m.b.wall / m.a.wall);
    cpuRatio.push(m.b.cpu / m.a.cpu);
  }
  const list = (xs: number[]) => xs.map((x) => x.toFixed(3)).join(" ");
  console.log(
    `${w.id} wall: A ${fmt(median(rows.wallA))} µs/op, B ${fmt(median(rows.wallB))} µs/op, B/A ${median(wallRatio).toFixed(3)} (rounds: ${list(wallRatio)})`,
  );
  console.log(
    `${w.id} cpu:  A ${fmt(median(rows.cpuA))} µs/op, B ${fmt(median(rows.cpuB))} µs/op, B/A ${median(cpuRatio).toFixed(3)} (rounds: ${list(cpuRatio)})`,
  );
}
