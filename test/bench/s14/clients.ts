/**
 * S14's 200 SDK clients, in a process of their own (test/bench/s14-breakdown.ts starts it),
 * so the server's process spends its CPU on the server alone.
 *
 *   node --import tsx test/bench/s14/clients.ts <apiUrl> <threads>
 *
 * Warms the server up (20 threads paused and resumed), pauses `threads` threads, prints
 * `{ "paused": n }`, waits for a line on stdin, resumes them all at once with the same
 * calls as S14 (`runs.wait` with `command: { resume }`) and prints `{ "ms": [...] }`, each
 * call's time from the burst's start to its return.
 */
import { createInterface } from "node:readline";
import { pauseThreads, resumeAll, sdk } from "../scenarios/s14-resume-burst.js";

const [apiUrl, count] = process.argv.slice(2);
const n = Number(count);
const client = sdk(apiUrl!);
await resumeAll(client, await pauseThreads(client, 20)); // warm-up
const threads = await pauseThreads(client, n);
console.log(JSON.stringify({ paused: threads.length }));
const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
await lines.next();
console.log(JSON.stringify({ ms: await resumeAll(client, threads) }));
process.exit(0);
