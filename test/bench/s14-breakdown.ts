/**
 * Where S14's time goes on PostgreSQL: the same burst (200 paused threads resumed at once
 * through the SDK client, a queue-only server, two `stateweaver worker` processes) on a
 * PostgreSQL server of this script's own, so nothing else's statements or CPU are counted.
 *
 *   npm run -s build && node --import tsx test/bench/s14-breakdown.ts [--threads 200]
 *
 * Prints, for the burst alone: the calls' p50/p95; per run, from the run rows' own times,
 * how long it waited in the queue (created → started), ran (started → ended) and how long
 * its caller heard of it after it ended; the CPU time each process spent (this process is
 * the server and the 200 SDK clients; the workers; every PostgreSQL backend), per resume;
 * and the statements PostgreSQL executed (`pg_stat_statements`), most called first.
 */
import type { ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { PostgresCheckpointer } from "stateweaver/checkpoint";
import { PostgresRunQueue } from "stateweaver/runs";
import { createServer } from "stateweaver/server";
import { PrivatePostgres } from "../faults/private-postgres.js";
import { question } from "./graphs/question.js";
import {
  pauseThreads,
  quantile,
  resumeAll,
  sdk,
  startWorker,
  stopWorkers,
} from "./scenarios/s14-resume-burst.js";

const at = process.argv.indexOf("--threads");
const n = at >= 0 ? Number(process.argv[at + 1]) : 200;
const TICK_MS = 10; // USER_HZ is 100 on Linux

/** utime + stime of a process, in ms. */
function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return 0; // the process has exited
  }
}

/** The postmaster and every process it started, with their CPU ms. */
function postgresCpu(postmaster: number): Map<number, number> {
  const out = new Map([[postmaster, cpuMs(postmaster)]]);
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === postmaster) out.set(Number(entry), cpuMs(Number(entry)));
    } catch {}
  }
  return out;
}

/** CPU ms the backends spent between two readings (backends that ended count what they had). */
function spent(before: Map<number, number>, after: Map<number, number>): number {
  let total = 0;
  for (const [pid, ms] of after) total += ms - (before.get(pid) ?? 0);
  return total;
}

const database = await PrivatePostgres.create([
  "shared_preload_libraries=pg_stat_statements",
  "pg_stat_statements.track=all",
  "pg_stat_statements.track_planning=on",
]);
const url = database.url();
const postmaster = Number(
  readFileSync(join(database.dir, "data/postmaster.pid"), "utf8").split("\n")[0],
);
const admin = new pg.Pool({ connectionString: url, max: 1 });
await admin.query("create extension pg_stat_statements");

const tablePrefix = `sw_s14_${randomUUID().slice(0, 8)}_`;
const dir = mkdtempSync(join(tmpdir(), "stateweaver-s14-breakdown-"));
const config = join(dir, "stateweaver.json");
const graphFile = fileURLToPath(new URL("./graphs/question.ts", import.meta.url));
writeFileSync(config, JSON.stringify({ graphs: { question: `${graphFile}:question` } }));
const checkpointer = new PostgresCheckpointer({ connectionString: url, tablePrefix });
await checkpointer.searchThreads({ limit: 1 });
const queue = await PostgresRunQueue.open({ connectionString: url, tablePrefix });
const server = createServer({ graphs: { question }, checkpointer, queue, concurrency: 0 });
const workers: ChildProcess[] = [];
try {
  workers.push(...(await Promise.all([1, 2].map(() => startWorker(config, url, tablePrefix)))));
  const { url: apiUrl } = await server.listen({ port: 0 });
  const client = sdk(apiUrl);
  await resumeAll(client, await pauseThreads(client, 20)); // warm-up
  const threads = await pauseThreads(client, n);
  const since = (await admin.query<{ t: Date }>("select clock_timestamp() as t")).rows[0]!.t;
  await admin.query("select pg_stat_statements_reset()");
  const self0 = process.cpuUsage();
  const workers0 = workers.map((w) => cpuMs(w.pid!));
  const pg0 = postgresCpu(postmaster);
  const wallStart = Date.now();
  const ms = await resumeAll(client, threads);
  const selfMs = (() => {
    const d = process.cpuUsage(self0);
    return (d.user + d.system) / 1000;
  })();
  const workersMs = workers.map((w, i) => cpuMs(w.pid!) - workers0[i]!);
  const pgMs = spent(pg0, postgresCpu(postmaster));
  const wallMs = Date.now() - wallStart;

  const { rows } = await admin.query<{ waited: number; ran: number; ended: Date }>(
    `select extract(epoch from started_at - created_at) * 1000 as waited,
            extract(epoch from ended_at - started_at) * 1000 as ran, ended_at as ended
       from ${tablePrefix}runs where created_at >= $1`,
    [since],
  );
  const statements = await admin.query<{
    calls: string;
    total: number;
    plan: number;
    plans: string;
    toplevel: boolean;
    query: string;
  }>(
    `select calls, total_exec_time as total, total_plan_time as plan, plans, toplevel, query
       from pg_stat_statements order by calls desc, total_exec_time desc limit 60`,
  );
  const callsAll = await admin.query<{ calls: string; top: string; total: number; plan: number }>(
    `select sum(calls) as calls, sum(calls) filter (where toplevel) as top,
            sum(total_exec_time) as total, sum(total_plan_time) as plan from pg_stat_statements`,
  );

  const f = (x: number) => x.toFixed(1);
  const q = (xs: number[]) => `p50 ${f(quantile(xs, 0.5))} ms, p95 ${f(quantile(xs, 0.95))} ms`;
  console.log(
    `S14 breakdown, ${n} resumes, PostgreSQL of its own, 2 workers × 8 (${new Date().toISOString()})`,
  );
  console.log(`calls: ${q(ms)}; the burst took ${wallMs} ms wall`);
  console.log(`runs (${rows.length}): queued ${q(rows.map((r) => Number(r.waited)))}`);
  console.log(`          ran ${q(rows.map((r) => Number(r.ran)))}`);
  console.log(
    `CPU per resume: server + SDK clients ${f(selfMs / n)} ms, workers ${workersMs.map((w) => f(w / n)).join(" + ")} ms, PostgreSQL ${f(pgMs / n)} ms; all ${f((selfMs + workersMs.reduce((a, b) => a + b, 0) + pgMs) / n)} ms (2 cores: ${f((2 * wallMs) / n)} ms of CPU per resume were there)`,
  );
  const all = callsAll.rows[0]!;
  const calls = Number(all.calls);
  const top = Number(all.top);
  console.log(
    `statements: ${calls} (${f(calls / n)} per resume; ${f(top / n)} sent by a client, the rest run inside those), ${f(Number(all.total))} ms executing and ${f(Number(all.plan))} ms planning in all`,
  );
  console.log("   calls  exec ms  plan ms  plans  (n = nested)");
  for (const s of statements.rows) {
    const text = s.query.replace(/\s+/g, " ").slice(0, 140);
    console.log(
      `  ${String(s.calls).padStart(6)} ${f(Number(s.total)).padStart(8)} ${f(Number(s.plan)).padStart(8)} ${String(s.plans).padStart(6)} ${s.toplevel ? " " : "n"} ${text}`,
    );
  }
} finally {
  await stopWorkers(workers);
  await server.close();
  await admin.end();
  await database.destroy();
}
