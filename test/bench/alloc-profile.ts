/**
 * Bytes allocated per operation of stateweaver's side of S1 or S3, by the function that
 * allocated them: V8's sampling heap profiler, keeping the samples of objects the GC has
 * already collected (which `node --heap-prof` drops), so short-lived garbage counts too.
 *
 *   npm run -s build
 *   node --import tsx test/bench/alloc-profile.ts S3 [--top 40] [--ops 3000]
 */
import { Session } from "node:inspector/promises";
import { MemoryCheckpointer } from "stateweaver/checkpoint";
import { printAllocations, type SampleNode } from "./cpu-profile.js";
import * as ours from "./graphs/ours.js";
import { check } from "./scenario.js";

const args = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const at = args.indexOf(name);
  return at >= 0 ? Number(args[at + 1]) : fallback;
};
const id = (args[0] ?? "S3").toUpperCase();
const top = option("--top", 40);
const ops = option("--ops", 3000);

let thread = 0;
const approval = ours.approval(new MemoryCheckpointer());
const chain = ours.chain(10);
const op =
  id === "S3"
    ? async () => {
        const config = { configurable: { thread_id: `alloc-${thread++}` } };
        await approval.invoke({ details: "x" }, { config });
        const done = await approval.resume(true, { config });
        check(done.status === "done", "S3 resumed", done);
      }
    : async () => check((await chain.invoke({ n: 0 })).state.n === 10, "S1", null);

for (let i = 0; i < ops; i++) await op(); // warm-up
const session = new Session();
session.connect();
await session.post("HeapProfiler.enable");
await session.post("HeapProfiler.startSampling", {
  samplingInterval: 1024,
  includeObjectsCollectedByMajorGC: true,
  includeObjectsCollectedByMinorGC: true,
});
for (let i = 0; i < ops; i++) await op();
const { profile } = await session.post("HeapProfiler.stopSampling");

printAllocations(profile.head as unknown as SampleNode, ops, top, id);
