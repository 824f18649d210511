/**
 * Summarise a V8 `.cpuprofile` (from `node --cpu-prof`): the functions with the
 * most self time, and the files they live in.
 *
 *   node --import tsx test/bench/profile-summary.ts <file.cpuprofile> [--top 25] [--fn a,b,c]
 *
 * `--fn` also prints the inclusive (total) time of the named functions.
 */
import { readFileSync } from "node:fs";

import type { Profile } from "./cpu-profile.js";

const args = process.argv.slice(2);
const file = args.find(
  (a, i) => !a.startsWith("--") && args[i - 1] !== "--top" && args[i - 1] !== "--fn",
);
const topAt = args.indexOf("--top");
const top = topAt >= 0 ? Number(args[topAt + 1]) : 25;
const fnAt = args.indexOf("--fn");
const names = fnAt >= 0 ? new Set(args[fnAt + 1]!.split(",")) : undefined;
if (!file) {
  console.error("usage: profile-summary.ts <file.cpuprofile> [--top N] [--fn a,b,c]");
  process.exit(2);
}

const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));

// Self time per node from the sample stream (timeDeltas[i] is the time before sample i).
const selfUs = new Map<number, number>();
for (let i = 0; i < profile.samples.length; i++) {
  const id = profile.samples[i]!;
  selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
}
const total = profile.endTime - profile.startTime;

function shortUrl(url: string): string {
  const at = url.indexOf("node_modules/");
  if (at >= 0) return url.slice(at + "node_modules/".length);
  // Our own files, from any checkout, sources or build.
  const ours = url.search(/\/(dist\/)?(src|machines)\//);
  if (ours >= 0) return url.slice(ours + 1).replace(/^dist\//, "");
  return url.replace(/^file:\/\//, "") || "(native)";
}

const byFunction = new Map<string, number>();
const byFile = new Map<string, number>();
for (const [id, us] of selfUs) {
  const frame = byId.get(id)!.callFrame;
  const where = shortUrl(frame.url);
  const key = `${frame.functionName || "(anonymous)"}  ${where}:${frame.lineNumber + 1}`;
  byFunction.set(key, (byFunction.get(key) ?? 0) + us);
  const pkg =
    where.startsWith("src/") || where.startsWith("machines/") ? where : where.split("/")[0]!;
  byFile.set(pkg, (byFile.get(pkg) ?? 0) + us);
}

// Inclusive time of the functions named with --fn (each sample counted once per function).
if (names) {
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const inclusive = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const f = byId.get(cur)!.callFrame;
      const key = `${f.functionName || "(anonymous)"}  ${shortUrl(f.url)}:${f.lineNumber + 1}`;
      if (!names.has(f.functionName) || seen.has(key)) continue;
      seen.add(key);
      inclusive.set(key, (inclusive.get(key) ?? 0) + us);
    }
  }
  console.log("\nInclusive time of the --fn functions:");
  for (const [key, us] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(
      `${((100 * us) / total).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(7)} ms  ${key}`,
    );
  }
}

console.log(`\nTotal ${(total / 1000).toFixed(0)} ms. Top ${top} functions by self time:`);
for (const [key, us] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top)) {
  console.log(
    `${((100 * us) / total).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(7)} ms  ${key}`,
  );
}
console.log("\nSelf time by package / source file:");
for (const [key, us] of [...byFile].sort((a, b) => b[1] - a[1]).slice(0, 15)) {
  console.log(
    `${((100 * us) / total).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(7)} ms  ${key}`,
  );
}
