/**
 * stateweaver vs LangGraph.js, side by side in one process.
 *
 *   npm run bench                     # table
 *   npm run bench -- --json           # one JSON object per line
 *   npm run bench -- --only S1,S3     # some scenarios
 *   npm run bench -- --quick          # fewer iterations (a smoke run)
 *   npm run bench -- --runs 3         # each scenario three times; the run with the median ratio
 *   npm run bench -- --only S9,S10,S11,S14  # the server rows, ours beside LangGraph's dev server
 *
 * Every scenario builds the same graph in both libraries, warms both up, then times
 * them in alternating batches and reports medians (see measure.ts). Both are measured
 * as published: LangGraph.js's dist and ours (`npm run build`, which `npm run bench`
 * runs first). Under `--conditions=source` the scenarios load our sources through tsx
 * instead, whose helpers (`__name` on every function) cost several percent.
 */
import { setMaxListeners } from "node:events";
import { closeLangGraphServer } from "./langgraph-server-fixture.js";
import type { Scenario, ScenarioResult } from "./scenario.js";
import { s0 } from "./scenarios/s0-xstate-floor.js";
import { s1 } from "./scenarios/s1-chain.js";
import { s2 } from "./scenarios/s2-chain-checkpointed.js";
import { s3 } from "./scenarios/s3-interrupt-resume.js";
import { s4 } from "./scenarios/s4-fan-out.js";
import { s5 } from "./scenarios/s5-long-chain.js";
import { s6 } from "./scenarios/s6-pglite.js";
import { s7 } from "./scenarios/s7-thread-inbox.js";
import { s8 } from "./scenarios/s8-history-pages.js";
import { s9 } from "./scenarios/s9-http-resume.js";
import { s10 } from "./scenarios/s10-first-token.js";
import { s11 } from "./scenarios/s11-sse-clients.js";
import { s12 } from "./scenarios/s12-conversation-storage.js";
import { s13 } from "./scenarios/s13-background-runs.js";
import { s14 } from "./scenarios/s14-resume-burst.js";

const scenarios: Scenario[] = [s0, s1, s2, s3, s4, s5, s6, s7, s8, s9, s10, s11, s12, s13, s14];

// LangGraph.js adds an abort listener per task to one signal on long runs (S5); the default
// limit of 10 makes Node print MaxListenersExceededWarning in the middle of the results.
setMaxListeners(1000);

/** Which stateweaver the scenarios import: the build, or (under --conditions=source) the sources. */
const measured = import.meta.resolve("stateweaver").includes("/dist/")
  ? "build"
  : "sources, via tsx";

const args = process.argv.slice(2);
const json = args.includes("--json");
const quick = args.includes("--quick");
const runsAt = args.indexOf("--runs");
const runs = runsAt >= 0 ? Number(args[runsAt + 1]) : 1;
if (!Number.isInteger(runs) || runs < 1) {
  console.error(`--runs takes a whole number of runs per scenario, e.g. --runs 3`);
  process.exit(2);
}
const onlyAt = args.indexOf("--only");
const only =
  onlyAt >= 0 ? new Set(args[onlyAt + 1]?.split(",").map((s) => s.trim().toUpperCase())) : null;
const selected = scenarios.filter((s) => !only || only.has(s.id));
if (selected.length === 0) {
  console.error(
    `No scenario matches --only ${args[onlyAt + 1]}; known: ${scenarios.map((s) => s.id).join(", ")}`,
  );
  process.exit(2);
}

const log = (line: string) => process.stderr.write(`${line}\n`);
const fmt = (x: number) => (x >= 100 ? x.toFixed(0) : x.toFixed(1));

const started = performance.now();
const results: ScenarioResult[] = [];
for (const entry of selected) {
  log(`${entry.id} ${entry.title}…`);
  const t = performance.now();
  // On a shared machine the ratio itself moves from run to run: with --runs, report the
  // run whose ratio is the median, and every run's ratio beside it.
  const all: ScenarioResult[] = [];
  for (let i = 0; i < runs; i++) all.push(await entry.run({ quick, log }));
  const byRatio = [...all].sort((a, b) => a.ratio - b.ratio);
  const r = byRatio[(byRatio.length - 1) >> 1]!;
  if (runs > 1) r.extra = { ...r.extra, ratios: all.map((x) => x.ratio).join(" ") };
  log(`  ${r.scenario} done in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  results.push(r);
  if (json) {
    const { scenario, ours_us, peer_us, ratio, target, met, title, peer, extra } = r;
    console.log(
      JSON.stringify({ scenario, ours_us, peer_us, ratio, target, met, title, peer, ...extra }),
    );
  }
}
const total = (performance.now() - started) / 1000;

if (!json) {
  const rows = results.map((r) => [
    r.scenario,
    r.title,
    fmt(r.ours_us),
    fmt(r.peer_us),
    r.ratio.toFixed(3),
    `<= ${r.target}`,
    r.met ? "met" : "MISSED",
  ]);
  const header = ["", "scenario", "ours µs/op", "peer µs/op", "ours/peer", "target", ""];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === 1 || i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join("  ");
  console.log(
    `\nstateweaver (${measured}) vs ${"LangGraph.js"} — Node ${process.version}, ${new Date().toISOString().slice(0, 10)}${quick ? " (quick)" : ""}\n`,
  );
  console.log(line(header));
  for (const row of rows) console.log(line(row));
  console.log("");
  for (const r of results) {
    for (const c of r.checks ?? []) {
      console.log(
        `${r.scenario}: ${c.what}: ${c.value} (target <= ${c.target}) ${c.met ? "met" : "MISSED"} — ${c.detail}`,
      );
    }
  }
  console.log("");
  for (const r of results) {
    if (r.peer !== "LangGraph.js") console.log(`${r.scenario}: peer is ${r.peer}.`);
    if (!r.extra) continue;
    console.log(
      `${r.scenario}: ${Object.entries(r.extra)
        .map(([k, v]) => `${k}=${v}`)
        .join(", ")}`,
    );
  }
  console.log(
    `\n${results.filter((r) => r.met).length}/${results.length} scenarios meet their targets; ${total.toFixed(0)} s in all.`,
  );
}

// S9–S11 start LangGraph's dev server in this process; its queue workers poll forever and
// cannot be stopped, so leave once the output has drained.
await closeLangGraphServer();
process.stdout.write("", () => process.exit(process.exitCode ?? 0));
