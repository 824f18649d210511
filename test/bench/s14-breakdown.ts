/**
 * Where S14's time goes: the same burst (200 threads paused at the question graph, resumed
 * at once through the SDK client) with the server, its SDK clients, the workers and
 * PostgreSQL each in processes of their own, so each one's CPU is its own. Two set-ups:
 * - `pglite`: the server on PGlite in memory, running its runs itself;
 * - `postgres`: a queue-only server (concurrency 0) and two `stateweaver worker` processes
 *   (8 slots each) on a PostgreSQL server of this script's own (`pg_stat_statements` on),
 *   so nothing else's statements or CPU are counted.
 * Each checkout named runs its own build (`<checkout>/dist`, its question graph and its
 * worker bin); with two, the bursts alternate A, B, B, A, … in one run.
 *
 *   npm run -s build && node --import tsx test/bench/s14-breakdown.ts [<checkout A> [<checkout B>]]
 *     [--threads 200] [--rounds 1] [--setups pglite,postgres] [--profile <dir>] [--statements]
 *     [--pool-max-b 40]
 *
 * Prints per burst, then per checkout and set-up the medians over rounds: the calls'
 * p50/p95; per run, from the run rows' own times (PostgreSQL), how long it waited in the
 * queue (created → started) and ran (started → ended); the CPU time per resume of the
 * server's process (and of it, in GC), of the workers and of every PostgreSQL backend; the
 * statements per resume. `--profile` writes a V8 CPU profile of the server's process
 * and of each worker process (test/bench/s14/worker-profiler.ts) during each burst into `<dir>`
 * (summarise with test/bench/s14/cpu-split.ts); it slows
 * the server, so its rounds' figures are not for comparing. `--statements` prints the
 * statements PostgreSQL executed in the last burst, most called first. `--pool-max-b N`
 * gives the second checkout's server pools of N connections (pg's default and ours are 10):
 * name one checkout twice to compare pool sizes alone.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import pg from "pg";
import { PrivatePostgres } from "../faults/private-postgres.js";
import { checkoutArgs } from "./checkout-args.js";
import { median } from "./measure.js";
import { quantile, stopWorkers, workerReady } from "./scenarios/s14-resume-burst.js";

const { dirs, option } = checkoutArgs(
  "usage: s14-breakdown.ts [<checkout A> [<checkout B>]] [--threads 200] [--rounds 1] [--setups pglite,postgres] [--profile <dir>] [--statements]",
  0,
  2,
);
const checkouts = (dirs.length > 0 ? dirs : ["."]).map((d) => resolve(d));
const n = Number(option("--threads") ?? 200);
const rounds = Number(option("--rounds") ?? 1);
const setups = (option("--setups") ?? "pglite,postgres").split(",");
const profileDir = option("--profile");
// The workers write their profiles themselves: a missing directory would leave them unwritten.
if (profileDir) mkdirSync(profileDir, { recursive: true });
const printStatements = process.argv.includes("--statements");
const poolMaxB = option("--pool-max-b");
const TICK_MS = 10; // USER_HZ is 100 on Linux
const here = new URL(".", import.meta.url).pathname;

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

/** stime of a process, in ms. */
function systemMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[12]) * TICK_MS;
  } catch {
    return 0;
  }
}

/** Send a profiled worker SIGUSR2 and wait for it to say `word` on stderr. */
function signalled(worker: ChildProcess, word: string): Promise<void> {
  return new Promise((done) => {
    const heard = (t: Buffer | string) => {
      if (!String(t).includes(word)) return;
      worker.stderr!.off("data", heard);
      done();
    };
    worker.stderr!.on("data", heard);
    worker.kill("SIGUSR2");
  });
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

/** A child speaking JSON lines on stdout: `next()` is its next line, parsed. */
function child(args: string[], env: NodeJS.ProcessEnv = process.env) {
  const proc = spawn(process.execPath, args, { env, stdio: ["pipe", "pipe", "pipe"] });
  let err = "";
  proc.stderr!.setEncoding("utf8").on("data", (t: string) => {
    err += t;
  });
  const lines = createInterface({ input: proc.stdout! })[Symbol.asyncIterator]();
  const exited = new Promise<never>((_, failed) =>
    proc.once("exit", (code, signal) =>
      failed(new Error(`${args.join(" ")} exited (${code ?? signal}): ${err}`)),
    ),
  );
  exited.catch(() => {});
  return {
    proc,
    async next(): Promise<any> {
      for (;;) {
        const line = await Promise.race([lines.next(), exited]);
        if (line.done) return exited;
        if (line.value.startsWith("{")) return JSON.parse(line.value);
      }
    },
    send(line: string) {
      proc.stdin!.write(`${line}\n`);
    },
    stop(): Promise<unknown> {
      return new Promise((done) => {
        proc.once("exit", done);
        proc.stdin!.write("exit\n");
      });
    },
  };
}

/** A `stateweaver worker` process of one checkout's build, hosting its question graph. */
function startWorker(
  dir: string,
  url: string,
  tablePrefix: string,
  profileFile?: string,
): Promise<ChildProcess> {
  const config = join(mkdtempSync(join(tmpdir(), "stateweaver-s14-")), "stateweaver.json");
  const graphFile = join(dir, "test/bench/graphs/question.ts");
  writeFileSync(config, JSON.stringify({ graphs: { question: `${graphFile}:question` } }));
  const proc = spawn(
    process.execPath,
    [
      ...(profileFile ? ["--import", "tsx", "--import", join(here, "s14/worker-profiler.ts")] : []),
      join(dir, "dist/src/cli/main.js"),
      "worker",
      "--config",
      config,
      "--concurrency",
      "8",
    ],
    {
      env: {
        ...process.env,
        DATABASE_URL: url,
        STATEWEAVER_TABLE_PREFIX: tablePrefix,
        ...(profileFile && { S14_WORKER_PROFILE: profileFile }),
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  return workerReady(proc);
}

interface Burst {
  ms: number[];
  wallMs: number;
  serverMs: number;
  serverSystemMs: number;
  /** Time the server's requests waited for a pooled connection, summed, and the connects. */
  poolWaitMs: number;
  poolConnects: number;
  gcMs: number;
  workersMs: number[];
  workersSystemMs: number[];
  clientsMs: number;
  postgresMs: number;
  queued: number[];
  ran: number[];
  statements: number;
  sent: number;
}

const database = setups.includes("postgres")
  ? await PrivatePostgres.create([
      "shared_preload_libraries=pg_stat_statements",
      "pg_stat_statements.track=all",
      "pg_stat_statements.track_planning=on",
    ])
  : undefined;
const url = database?.url();
const postmaster = database
  ? Number(readFileSync(join(database.dir, "data/postmaster.pid"), "utf8").split("\n")[0])
  : 0;
const admin = url ? new pg.Pool({ connectionString: url, max: 1 }) : undefined;
await admin?.query("create extension pg_stat_statements");

async function burst(
  dir: string,
  setup: string,
  label: string,
  env: NodeJS.ProcessEnv,
): Promise<Burst> {
  const tablePrefix = `sw_s14_${randomUUID().slice(0, 8)}_`;
  const server = child(
    [
      "--import",
      "tsx",
      join(here, "s14/server.ts"),
      dir,
      setup,
      ...(setup === "postgres" ? [url!, tablePrefix] : []),
    ],
    env,
  );
  const workers: ChildProcess[] = [];
  try {
    const { url: apiUrl } = await server.next();
    if (setup === "postgres") {
      workers.push(
        ...(await Promise.all(
          [1, 2].map((i) =>
            startWorker(
              dir,
              url!,
              tablePrefix,
              profileDir && join(profileDir, `${label}-worker${i}.cpuprofile`),
            ),
          ),
        )),
      );
    }
    const clients = child(["--import", "tsx", join(here, "s14/clients.ts"), apiUrl, String(n)]);
    await clients.next(); // paused
    if (setup === "pglite") {
      server.send("statements"); // forget the warm-up's and the pauses'
      await server.next();
    }
    const since = admin && (await admin.query("select clock_timestamp() as t")).rows[0].t;
    await admin?.query("select pg_stat_statements_reset()");
    if (profileDir) {
      server.send("profile");
      await server.next();
      await Promise.all(workers.map((w) => signalled(w, "profiling")));
    }
    server.send("mark");
    const mark0 = await server.next();
    const workers0 = workers.map((w) => cpuMs(w.pid!));
    const workersSystem0 = workers.map((w) => systemMs(w.pid!));
    const pg0 = database ? postgresCpu(postmaster) : new Map();
    const clients0 = cpuMs(clients.proc.pid!);
    const wallStart = Date.now();
    clients.send("go");
    const { ms } = await clients.next();
    const wallMs = Date.now() - wallStart;
    server.send("mark");
    const mark1 = await server.next();
    const workersMs = workers.map((w, i) => cpuMs(w.pid!) - workers0[i]!);
    const workersSystemMs = workers.map((w, i) => systemMs(w.pid!) - workersSystem0[i]!);
    const clientsMs = cpuMs(clients.proc.pid!) - clients0;
    const postgresMs = database ? spent(pg0, postgresCpu(postmaster)) : 0;
    if (profileDir) {
      await Promise.all(workers.map((w) => signalled(w, "profiled")));
      server.send(`unprofile ${join(profileDir, `${label}.cpuprofile`)}`);
      await server.next();
    }
    let statements = 0;
    let sent = 0;
    if (setup === "pglite") {
      server.send("statements");
      const counted: Record<string, { calls: number; us: number }> = (await server.next())
        .statements;
      statements = sent = Object.values(counted).reduce((a, b) => a + b.calls, 0);
      if (printStatements) {
        console.log("   calls  PGlite ms  statement");
        for (const [text, { calls, us }] of Object.entries(counted).sort(
          (a, b) => b[1].us - a[1].us,
        ))
          console.log(
            `  ${String(calls).padStart(6)} ${f(us / 1000).padStart(9)}  ${text.replace(/\s+/g, " ").slice(0, 140)}`,
          );
      }
    }
    let queued: number[] = [];
    let ran: number[] = [];
    if (admin && setup === "postgres") {
      const { rows } = await admin.query<{ waited: number; ran: number }>(
        `select extract(epoch from started_at - created_at) * 1000 as waited,
                extract(epoch from ended_at - started_at) * 1000 as ran
           from ${tablePrefix}runs where created_at >= $1`,
        [since],
      );
      queued = rows.map((r) => Number(r.waited));
      ran = rows.map((r) => Number(r.ran));
      const all = (
        await admin.query(
          "select sum(calls) as calls, sum(calls) filter (where toplevel) as top from pg_stat_statements",
        )
      ).rows[0];
      statements = Number(all.calls);
      sent = Number(all.top);
      if (printStatements) await showStatements();
    }
    await clients.proc.kill();
    return {
      ms,
      wallMs,
      serverMs: (mark1.userUs + mark1.systemUs - mark0.userUs - mark0.systemUs) / 1000,
      serverSystemMs: (mark1.systemUs - mark0.systemUs) / 1000,
      poolWaitMs: (mark1.poolWait.us - mark0.poolWait.us) / 1000,
      poolConnects: mark1.poolWait.connects - mark0.poolWait.connects,
      gcMs: (mark1.gcUs - mark0.gcUs) / 1000,
      workersMs,
      workersSystemMs,
      clientsMs,
      postgresMs,
      queued,
      ran,
      statements,
      sent,
    };
  } finally {
    await stopWorkers(workers);
    await server.stop();
  }
}

async function showStatements(): Promise<void> {
  const { rows } = await admin!.query(
    `select calls, total_exec_time as total, total_plan_time as plan, plans, toplevel, query
       from pg_stat_statements order by calls desc, total_exec_time desc limit 60`,
  );
  console.log("   calls  exec ms  plan ms  plans  (n = nested)");
  for (const s of rows) {
    const text = s.query.replace(/\s+/g, " ").slice(0, 140);
    console.log(
      `  ${String(s.calls).padStart(6)} ${f(Number(s.total)).padStart(8)} ${f(Number(s.plan)).padStart(8)} ${String(s.plans).padStart(6)} ${s.toplevel ? " " : "n"} ${text}`,
    );
  }
}

const f = (x: number) => x.toFixed(1);
const q = (xs: number[]) =>
  xs.length ? `p50 ${f(quantile(xs, 0.5))} / p95 ${f(quantile(xs, 0.95))} ms` : "-";

function line(b: Burst): string {
  const per = (x: number) => f(x / n);
  return [
    `calls ${q(b.ms)}, burst ${b.wallMs} ms`,
    b.queued.length ? `queued ${q(b.queued)}, ran ${q(b.ran)}` : "",
    b.poolConnects
      ? `waited for a pooled connection ${per(b.poolWaitMs)} ms per resume (${per(b.poolConnects)} connects)`
      : "",
    `CPU/resume: server ${per(b.serverMs)} ms (system ${per(b.serverSystemMs)}, GC ${per(b.gcMs)}), SDK clients ${per(b.clientsMs)}` +
      (b.workersMs.length
        ? `, workers ${b.workersMs.map(per).join(" + ")} (system ${b.workersSystemMs.map(per).join(" + ")}), PostgreSQL ${per(b.postgresMs)}`
        : ""),
    b.statements ? `statements/resume ${per(b.statements)} (${per(b.sent)} sent)` : "",
  ]
    .filter(Boolean)
    .join("; ");
}

const results = new Map<string, Burst[]>();
console.log(
  `S14 breakdown, ${n} resumes, ${rounds} round(s), ${new Date().toISOString()}; checkouts: ${checkouts.join(", ")}`,
);
try {
  for (let round = 0; round < rounds; round++) {
    for (const setup of setups) {
      const sides = checkouts.map((dir, i) => ({ dir, side: String.fromCharCode(65 + i) }));
      for (const { dir, side } of round % 2 === 0 ? sides : [...sides].reverse()) {
        const label = `${setup}-${side}-${round}`;
        const env =
          side === "B" && poolMaxB ? { ...process.env, S14_POOL_MAX: poolMaxB } : process.env;
        const b = await burst(dir, setup, label, env);
        const key = `${setup} ${side}`;
        results.set(key, [...(results.get(key) ?? []), b]);
        console.log(`${label}: ${line(b)}`);
      }
    }
  }
  console.log(
    `\nMedians over rounds (load average ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}):`,
  );
  const med = (xs: number[]) => f(median(xs));
  for (const [key, bs] of results) {
    const p50s = bs.map((b) => quantile(b.ms, 0.5));
    const p95s = bs.map((b) => quantile(b.ms, 0.95));
    console.log(
      `${key}: calls p50 ${med(p50s)} / p95 ${med(p95s)} ms; CPU/resume server ${med(bs.map((b) => b.serverMs / n))} ms (system ${med(bs.map((b) => b.serverSystemMs / n))}, GC ${med(bs.map((b) => b.gcMs / n))}), SDK clients ${med(bs.map((b) => b.clientsMs / n))}` +
        (bs[0]!.workersMs.length
          ? `, workers ${med(bs.map((b) => b.workersMs.reduce((a, c) => a + c, 0) / n))}, PostgreSQL ${med(bs.map((b) => b.postgresMs / n))}; queued p50 ${med(bs.map((b) => quantile(b.queued, 0.5)))}, ran p50 ${med(bs.map((b) => quantile(b.ran, 0.5)))}`
          : "") +
        `; statements/resume ${med(bs.map((b) => b.statements / n))}`,
    );
  }
} finally {
  await admin?.end();
  await database?.destroy();
}
