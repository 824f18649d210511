/**
 * S3's two halves apart: the `invoke` to the pause and the `resume` after it, each timed
 * alone (CPU µs per operation, user + system; medians of batches), and optionally a CPU or
 * allocation profile of the resumes only. Threads are paused in an untimed batch first, then
 * resumed in a timed one, so neither half's garbage is counted in the other's time.
 *
 *   npm run -s build
 *   node --import tsx --expose-gc test/bench/resume-breakdown.ts [--batches 31] [--size 200]
 *   node --import tsx test/bench/resume-breakdown.ts --cpu-prof /tmp/resume.cpuprofile
 *   node --import tsx test/bench/resume-breakdown.ts --alloc [--top 40]
 *   (add --invoke to profile the invokes to the pause instead of the resumes)
 *   node --import tsx test/bench/profile-summary.ts /tmp/resume.cpuprofile
 */
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { MemoryCheckpointer } from "stateweaver/checkpoint";
import { printAllocations, type SampleNode } from "./cpu-profile.js";
import * as ours from "./graphs/ours.js";
import { loadAverage, median } from "./measure.js";
import { check } from "./scenario.js";

const args = process.argv.slice(2);
const option = (name: string) => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
};
const batches = Number(option("--batches") ?? 31);
const size = Number(option("--size") ?? 200);
const cpuProf = option("--cpu-prof");
const alloc = args.includes("--alloc");
const top = Number(option("--top") ?? 40);
const profileInvoke = args.includes("--invoke");

const graph = ours.approval(new MemoryCheckpointer());
let thread = 0;

const cpuUs = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};

/** Pause `n` new threads; CPU µs per invoke; their configs. */
async function pause(n: number) {
  const configs = Array.from({ length: n }, () => ({
    configurable: { thread_id: `r-${thread++}` },
  }));
  const start = cpuUs();
  for (const config of configs) {
    const paused = await graph.invoke({ details: "x" }, { config });
    check(paused.status === "interrupted", "paused", paused);
  }
  return { us: (cpuUs() - start) / n, configs };
}

/** Resume each paused thread; CPU µs per resume. */
async function resume(configs: ReadonlyArray<{ configurable: { thread_id: string } }>) {
  const start = cpuUs();
  for (const config of configs) {
    const done = await graph.resume(true, { config });
    check(done.status === "done" && done.state.approved === true, "resumed", done);
  }
  return (cpuUs() - start) / configs.length;
}

for (let i = 0; i < 10; i++) await resume((await pause(size)).configs); // warm-up

if (cpuProf || alloc) {
  const session = new Session();
  session.connect();
  const rounds = 20;
  const paused = [];
  if (!profileInvoke) for (let i = 0; i < rounds; i++) paused.push((await pause(size)).configs);
  if (cpuProf) {
    await session.post("Profiler.enable");
    await session.post("Profiler.setSamplingInterval", { interval: 50 });
    await session.post("Profiler.start");
  } else {
    await session.post("HeapProfiler.enable");
    await session.post("HeapProfiler.startSampling", {
      samplingInterval: 1024,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
  }
  if (profileInvoke) for (let i = 0; i < rounds; i++) paused.push((await pause(size)).configs);
  else for (const configs of paused) await resume(configs);
  if (cpuProf) {
    const { profile } = await session.post("Profiler.stop");
    writeFileSync(cpuProf, JSON.stringify(profile));
    console.log(`wrote ${cpuProf} (${rounds * size} ${profileInvoke ? "invokes" : "resumes"})`);
  } else {
    const { profile } = await session.post("HeapProfiler.stopSampling");
    printAllocations(
      profile.head as unknown as SampleNode,
      rounds * size,
      top,
      profileInvoke ? "invoke" : "resume",
    );
  }
} else {
  const invokes: number[] = [];
  const resumes: number[] = [];
  for (let b = 0; b < batches; b++) {
    globalThis.gc?.();
    const { us, configs } = await pause(size);
    invokes.push(us);
    globalThis.gc?.();
    resumes.push(await resume(configs));
  }
  const show = (xs: number[]) =>
    `${median(xs).toFixed(1)} (${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)})`;
  console.log(`load average ${loadAverage()}; ${batches} batches of ${size}, CPU µs per operation`);
  console.log(`invoke to the pause  ${show(invokes)}`);
  console.log(`resume to the end    ${show(resumes)}`);
}
