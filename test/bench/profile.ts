/**
 * Run stateweaver's side of one scenario in a loop, for profiling without the peer's
 * samples mixed in:
 *
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof --conditions=source --import tsx \
 *     test/bench/profile.ts S1 [seconds] [--nodes N]
 *   node --import tsx test/bench/profile-summary.ts /tmp/prof/<file>.cpuprofile
 *
 * `--nodes` sets the chain length for S5 (default 50: 200 is too slow to loop on today).
 */
import { PGlite } from "@electric-sql/pglite";
import { MemoryCheckpointer, PGliteCheckpointer } from "stateweaver/checkpoint";
import * as ours from "./graphs/ours.js";
import { check } from "./scenario.js";

const args = process.argv.slice(2);
const id = (args[0] ?? "S1").toUpperCase();
const seconds = Number(args[1] ?? 5);
const nodesAt = args.indexOf("--nodes");
const nodes = nodesAt >= 0 ? Number(args[nodesAt + 1]) : 50;

let thread = 0;
const config = () => ({ configurable: { thread_id: `p-${thread++}` } });

async function approvalCycle(graph: ReturnType<typeof ours.approval>) {
  const c = config();
  const paused = await graph.invoke({ details: "x" }, { config: c });
  check(paused.status === "interrupted", "paused", paused);
  const done = await graph.resume(true, { config: c });
  check(done.status === "done" && done.state.approved === true, "resumed", done);
}

async function makeOp(): Promise<() => Promise<void>> {
  switch (id) {
    case "S1": {
      const g = ours.chain(10);
      return async () => check((await g.invoke({ n: 0 })).state.n === 10, "S1", null);
    }
    case "S2": {
      const g = ours.chain(10, new MemoryCheckpointer());
      return async () =>
        check((await g.invoke({ n: 0 }, { config: config() })).state.n === 10, "S2", null);
    }
    case "S3": {
      const g = ours.approval(new MemoryCheckpointer());
      return () => approvalCycle(g);
    }
    case "S4": {
      const g = ours.fanOut(50);
      return async () => check((await g.invoke({ items: [] })).state.count === 50, "S4", null);
    }
    case "S5": {
      const g = ours.chain(nodes, new MemoryCheckpointer());
      return async () => {
        const r = await g.invoke({ n: 0 }, { config: config(), recursionLimit: 1000 });
        check(r.state.n === nodes, "S5", r.state);
      };
    }
    case "S6": {
      const db = new PGlite("memory://");
      const g = ours.approval(new PGliteCheckpointer({ db }));
      return () => approvalCycle(g);
    }
    default:
      throw new Error(`unknown scenario ${id}; use S1…S6`);
  }
}

const op = await makeOp();
await op();
const end = performance.now() + seconds * 1000;
let ops = 0;
const start = performance.now();
while (performance.now() < end) {
  await op();
  ops++;
}
console.log(`${id}: ${ops} ops, ${(((performance.now() - start) * 1000) / ops).toFixed(0)} µs/op`);
process.exit(0);
