/**
 * The CPU of S14's server process, split by what it was doing, from a V8 CPU profile of the
 * burst (test/bench/s14-breakdown.ts --profile <dir>).
 *
 *   node --import tsx test/bench/s14/cpu-split.ts <file.cpuprofile> [--user-ms 1400 --system-ms 60] [--top 40]
 *
 * Each sample goes to one component: the innermost frame on its stack that belongs to a
 * known one (a native leaf such as a socket write or JSON.parse counts as its own; anything
 * else to the nearest frame with a file). Then, inclusive, the time under each of our own
 * functions (a sample counted once per function). Idle samples are left out; shares are of
 * the busy samples. With `--cpu-ms` (the process's CPU over the burst, measured apart), each
 * share is also given in ms of that CPU: samples count wall time while the thread runs or
 * is descheduled, so on a loaded machine the shares, not the profile's ms, are the figure.
 * A syscall leaf is where a loaded machine's preemption lands most (a socket write wakes
 * its reader, which may take the core at once), so with `--user-ms` and `--system-ms` (the
 * process's user and system CPU over the burst, `process.cpuUsage()`), the syscall
 * components share the system CPU and the rest the user CPU.
 */
import { readFileSync } from "node:fs";

import type { CallFrame, Profile } from "../cpu-profile.js";

const args = process.argv.slice(2);
const option = (name: string) => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
};
const file = args.find((a, i) => !a.startsWith("--") && !args[i - 1]?.startsWith("--"));
if (!file) {
  console.error("usage: cpu-split.ts <file.cpuprofile> [--cpu-ms N] [--top N]");
  process.exit(2);
}
const userMs = option("--user-ms") ? Number(option("--user-ms")) : undefined;
const systemMs = Number(option("--system-ms") ?? 0);
const isSyscall = (name: string) => name.includes("(syscalls)");
const top = Number(option("--top") ?? 40);

const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

const SOCKET_CALLS = new Set([
  "writev",
  "writeBuffer",
  "writeUtf8String",
  "writeLatin1String",
  "writeAsciiString",
  "shutdown",
  "getpeername",
  "close",
  "readStop",
  "readStart",
  "onStreamRead",
]);

/** The component a frame belongs to, or undefined to look further out. */
function component(frame: CallFrame, stack: CallFrame[]): string | undefined {
  const { url, functionName: fn } = frame;
  if (fn === "(garbage collector)") return "GC";
  if (fn === "(idle)") return "(idle)";
  if (fn === "(program)") return "V8 and native, unattributed (program)";
  if (url === "") {
    if (fn === "parse" || fn === "stringify") return "JSON encode/decode (JSON.parse/stringify)";
    if (SOCKET_CALLS.has(fn))
      return stack.some((f) => /\/(pg|pg-protocol)\//.test(f.url))
        ? "socket I/O to PostgreSQL (syscalls)"
        : "socket I/O to HTTP clients (syscalls)";
    if (fn === "execute" || fn === "dispatch") {
      const caller = stack.find((f) => f.url !== "");
      if (caller?.url.includes("undici")) return "web Request/Response (undici)";
      return "Node HTTP (parser, outgoing)";
    }
    if (fn === "digest" || fn === "update" || fn === "randomUUID") return "crypto (hash, uuid)";
    return undefined;
  }
  if (url.includes("@electric-sql/pglite")) return "PGlite";
  if (url.includes("node_modules/zod")) return "zod validation";
  if (url.includes("@hono/node-server")) return "Hono's Node adapter";
  if (url.includes("node_modules/hono")) return "Hono routing and context";
  if (
    /node_modules\/(pg|pg-protocol|pg-pool|pg-types|postgres-date|postgres-array|pg-cursor)\//.test(
      url,
    )
  )
    return "pg driver";
  if (url.includes("graphile-worker")) return "graphile-worker";
  if (url.includes("node_modules/xstate")) return "graph runtime (xstate)";
  if (
    url.includes("undici") ||
    url.includes("internal/webstreams") ||
    url.includes("internal/webidl")
  )
    return "web Request/Response (undici)";
  if (/node:(_http|internal\/http|http)/.test(url)) return "Node HTTP (parser, outgoing)";
  if (/node:(net|internal\/stream_base_commons|internal\/streams|stream)/.test(url))
    return "Node streams and sockets (JS)";
  if (url.includes("internal/crypto")) return "crypto (hash, uuid)";
  if (url.includes("internal/abort_controller") || url.includes("internal/event_target"))
    return "AbortSignal and events";
  if (url.includes("node_modules/"))
    return `other package: ${url.split("node_modules/")[1]!.split("/")[0]}`;
  const src = url.match(/\/(src\/.*)$/)?.[1];
  if (src) {
    if (src.startsWith("src/audit/") || src.includes("decision-audit")) return "audit log";
    if (/src\/server\/(auth|csrf|security-headers)/.test(src))
      return "auth, CSRF, security headers";
    if (src.startsWith("src/server/sse") || src.includes("run-event-log"))
      return "SSE / wait machinery";
    if (src.startsWith("src/runs/")) return "run queue and runs (ours)";
    if (src.startsWith("src/checkpoint/")) return "checkpointer (ours)";
    if (src.startsWith("src/server/")) return `server (ours): ${src.replace(/^src\/server\//, "")}`;
    return `runtime (ours): ${src.replace(/^src\//, "")}`;
  }
  if (url.startsWith("node:")) return `node internals: ${url.slice(5)}`;
  return undefined;
}

const shares = new Map<string, number>();
const inclusive = new Map<string, number>();
let busy = 0;
for (let i = 0; i < profile.samples.length; i++) {
  const us = profile.timeDeltas[i] ?? 0;
  const stack: CallFrame[] = [];
  for (let id: number | undefined = profile.samples[i]; id !== undefined; id = parent.get(id))
    stack.push(byId.get(id)!.callFrame);
  // The profiler's own work (Profiler.stop writing the profile out) is not the server's.
  if (stack.some((f) => f.url === "node:inspector")) continue;
  let name: string | undefined;
  for (let at = 0; at < stack.length && !name; at++) name = component(stack[at]!, stack.slice(at));
  name ??= "other";
  if (name === "(idle)") continue;
  busy += us;
  shares.set(name, (shares.get(name) ?? 0) + us);
  if (isSyscall(name)) continue; // inclusive rows are shares of the user CPU
  const seen = new Set<string>();
  for (const f of stack) {
    const src = f.url.match(/\/(src\/.*)$/)?.[1];
    if (!src) continue;
    const key = `${f.functionName || "(anonymous)"}  ${src.replace(/^dist\//, "")}:${f.lineNumber + 1}`;
    if (seen.has(key)) continue;
    seen.add(key);
    inclusive.set(key, (inclusive.get(key) ?? 0) + us);
  }
}

let syscallUs = 0;
for (const [name, us] of shares) if (isSyscall(name)) syscallUs += us;
/** A component's share of the measured CPU, in ms. */
const cpuOf = (name: string, us: number) =>
  isSyscall(name) ? (systemMs * us) / syscallUs : (userMs! * us) / (busy - syscallUs);
const row = (us: number, name?: string) =>
  `${((100 * us) / busy).toFixed(1).padStart(5)}%` +
  (userMs !== undefined && name !== undefined
    ? `  ${cpuOf(name, us).toFixed(0).padStart(6)} ms CPU`
    : "") +
  `  ${(us / 1000).toFixed(0).padStart(6)} ms sampled`;
console.log(`${file}: ${(busy / 1000).toFixed(0)} ms of busy samples`);
console.log("\nBy component (innermost known frame):");
for (const [name, us] of [...shares].sort((a, b) => b[1] - a[1]))
  console.log(`${row(us, name)}  ${name}`);
console.log(`\nInclusive, our functions (top ${top}):`);
for (const [name, us] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, top))
  console.log(`${row(us, "user")}  ${name}`);
