/**
 * A/B of two builds of stateweaver in one process: the same scenarios built from each
 * checkout's `dist/`, timed in alternating batches (A, B, B, A, …), wall and process CPU
 * time (user + system, the steadier figure on a shared machine) per operation.
 *
 *   npm run -s build    # in each checkout (tsc -p tsconfig.build.json is enough)
 *   node --import tsx --expose-gc test/bench/ab-builds.ts /tmp/perf-base . --only S1,S3 --rounds 15
 *
 * Prints, per scenario, the median µs/op of each side and B/A, with the spread of the
 * per-round ratios (min–max), and B/A of each side's lower decile (p10): on a machine
 * other work shares, the quickest batches are the ones least disturbed. Both builds share
 * one `xstate` (one node_modules).
 */
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { checkoutArgs } from "./checkout-args.js";
import * as ours from "./graphs/ours.js";
import { median } from "./measure.js";

const { dirs, option } = checkoutArgs(
  "usage: ab-builds.ts <checkout A> <checkout B> [--only S1,S3] [--rounds 15]",
  2,
  2,
);
const only = (option("--only") ?? "S1,S2,S3,S4,S5").split(",");
const rounds = Number(option("--rounds") ?? 15);

type Op = () => Promise<void>;
/** One build's module, loaded by path (its types are not this checkout's). */
type Module = any;

async function load(dir: string): Promise<{ core: Module; checkpoint: Module; side: string }> {
  const at = (p: string) => pathToFileURL(join(resolve(dir), "dist/src", p)).href;
  return {
    core: await import(at("index.js")),
    checkpoint: await import(at("checkpoint/index.js")),
    side: dir === dirs[0] ? "a" : "b",
  };
}

function check(ok: boolean, what: string): void {
  if (!ok) throw new Error(`wrong result: ${what}`);
}

/** The bench's graphs (test/bench/graphs/ours.ts), built from one build's modules. */
function scenarios({
  core,
  checkpoint,
  side,
}: {
  core: Module;
  checkpoint: Module;
  side: string;
}): Map<string, Op> {
  const chain = (length: number, checkpointer?: unknown) =>
    ours.chain(length, checkpointer as never, core);
  let thread = 0;
  // Unique per process: the PostgreSQL side's tables outlive it.
  const config = () => ({ configurable: { thread_id: `ab-${process.pid}-${thread++}` } });
  const ops = new Map<string, Op>();
  const s1 = chain(10);
  ops.set("S1", async () => check((await s1.invoke({ n: 0 })).state.n === 10, "S1"));
  const s2 = chain(10, new checkpoint.MemoryCheckpointer());
  ops.set("S2", async () =>
    check((await s2.invoke({ n: 0 }, { config: config() })).state.n === 10, "S2"),
  );
  const cycle = (checkpointer: unknown): Op => {
    const graph = ours.approval(checkpointer as never, core);
    return async () => {
      const c = config();
      const paused = await graph.invoke({ details: "x" }, { config: c });
      check(paused.status === "interrupted", "S3 paused");
      const done = await graph.resume(true, { config: c });
      check(done.status === "done" && done.state.approved === true, "S3 resumed");
    };
  };
  ops.set("S3", cycle(new checkpoint.MemoryCheckpointer()));
  // The S3 cycle on the SQL stores (S6's workload; S3pg on the local PostgreSQL, each side
  // with tables of its own).
  const pglite = new checkpoint.PGliteCheckpointer("memory://");
  stores.push(pglite);
  ops.set("S3pglite", cycle(pglite));
  const url = process.env.STATEWEAVER_PG_URL;
  if (url) {
    const tablePrefix = `bench_ab_${side}_`;
    const postgres = new checkpoint.PostgresCheckpointer({ connectionString: url, tablePrefix });
    stores.push(postgres);
    ops.set("S3pg", cycle(postgres));
  }
  const s4 = ours.fanOut(50, core);
  ops.set("S4", async () => check((await s4.invoke({ items: [] })).state.count === 50, "S4"));
  const s5 = chain(50, new checkpoint.MemoryCheckpointer());
  ops.set("S5", async () => {
    const r = await s5.invoke(
      { n: 0 },
      { config: config(), recursionLimit: 1000, durability: "sync" },
    );
    check(r.state.n === 50, "S5");
  });
  return ops;
}

/** The stores the scenarios opened, closed at the end. */
const stores: Array<{ close(): Promise<void> }> = [];

/** µs per operation, wall and CPU, over `n` operations. */
async function batch(op: Op, n: number): Promise<{ wall: number; cpu: number }> {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await op();
  const wall = ((performance.now() - t0) * 1000) / n;
  const used = process.cpuUsage(cpu0);
  return { wall, cpu: (used.user + used.system) / n };
}

const fmt = (x: number) => x.toFixed(x < 10 ? 2 : 0).padStart(7);
const A = scenarios(await load(dirs[0]!));
const B = scenarios(await load(dirs[1]!));
console.log(`A = ${dirs[0]}, B = ${dirs[1]}; ${rounds} rounds; µs per operation (median)`);
console.log(
  "scen   A wall   B wall  B/A wall (min–max)     A cpu    B cpu  B/A cpu (min–max)    p10 wall  p10 cpu",
);
for (const id of only) {
  const a = A.get(id)!;
  const b = B.get(id)!;
  const size = id === "S5" || id === "S4" ? 10 : 40;
  for (let i = 0; i < 10 * size; i++) {
    await a();
    await b();
  }
  const wall: Record<"a" | "b", number[]> = { a: [], b: [] };
  const cpu: Record<"a" | "b", number[]> = { a: [], b: [] };
  const wallRatios: number[] = [];
  const cpuRatios: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const first = r % 2 === 0;
    const x = await batch(first ? a : b, size);
    const y = await batch(first ? b : a, size);
    const [ra, rb] = first ? [x, y] : [y, x];
    wall.a.push(ra.wall);
    wall.b.push(rb.wall);
    cpu.a.push(ra.cpu);
    cpu.b.push(rb.cpu);
    wallRatios.push(rb.wall / ra.wall);
    cpuRatios.push(rb.cpu / ra.cpu);
  }
  const spread = (xs: number[]) =>
    `${(median(xs) as number).toFixed(3)} (${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)})`;
  const p10 = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 10)]!;
  const lower = (side: typeof wall) => (p10(side.b) / p10(side.a)).toFixed(3).padStart(8);
  console.log(
    `${id.padEnd(4)} ${fmt(median(wall.a))}  ${fmt(median(wall.b))}  ${spread(wallRatios).padEnd(20)} ${fmt(median(cpu.a))}  ${fmt(median(cpu.b))}  ${spread(cpuRatios).padEnd(20)} ${lower(wall)} ${lower(cpu)}`,
  );
}
for (const store of stores) await store.close();
