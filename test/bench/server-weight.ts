/**
 * The demo server's weight as a newcomer meets it (issue 28): an npm script's command
 * (`start` or `dev`, read from package.json) run as its own `node` process, timed from
 * spawn to the first 200 of `GET /`, and its `VmRSS` (`/proc/<pid>/status`) read once the
 * "serving … at" line says the seed is done. Each run starts on a new data directory, then
 * restarts on the same one.
 *
 *   npm run bench:server                       # `npm start`'s command, 3 runs
 *   npm run bench:server -- --script dev --runs 5
 *   npm run bench:server -- --use 60           # then an hour of light use, RSS each minute
 *   npm run bench:server -- --flags=--liftoff-only     # node flags before the script's
 *
 * Light use: every 20 s one ticket (clean up, the SQL report, the on-call email, in turn)
 * is started through the SDK client, its review approved, the inbox page and its list
 * loaded. Linux only (it reads /proc).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { Client } from "@langchain/langgraph-sdk";
import { loadAverage } from "./measure.js";

const { values: args } = parseArgs({
  options: {
    script: { type: "string", default: "start" },
    runs: { type: "string", default: "3" },
    use: { type: "string", default: "0" },
    settle: { type: "string", default: "3" },
    /** Node flags put before the script's own, e.g. "--liftoff-only". */
    flags: { type: "string", default: "" },
  },
});
const repo = new URL("../..", import.meta.url).pathname;
const pkg = JSON.parse(await readFile(join(repo, "package.json"), "utf8")) as {
  scripts: Record<string, string>;
};
const script = pkg.scripts[args.script!];
if (!script?.startsWith("node "))
  throw new Error(`npm script "${args.script}" is not a node command: ${script}`);
const nodeArgs = [...args.flags!.split(/\s+/).filter(Boolean), ...script.split(/\s+/).slice(1)];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

interface Started {
  child: ChildProcess;
  url: string;
  firstPageMs: number;
  servingMs: number;
}

/** Spawn the script's command on `dataDir` and a free port; resolve when seeded and serving. */
async function start(dataDir: string): Promise<Started> {
  const t0 = performance.now();
  const child = spawn(process.execPath, nodeArgs, {
    cwd: repo,
    env: { ...process.env, PORT: "0", HOST: "127.0.0.1", STATEWEAVER_DATA_DIR: dataDir },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let text = "";
  let port: string | undefined;
  const serving = new Promise<string>((resolve, reject) => {
    const take = (chunk: Buffer) => {
      text += chunk.toString();
      const url = /serving .* at (http:\/\/\S+)/.exec(text)?.[1];
      if (url) resolve(url);
    };
    child.stdout!.on("data", take);
    child.stderr!.on("data", take);
    child.once("exit", () => reject(new Error(`server ended: ${text}`)));
  });
  let servingMs = 0;
  void serving.then(
    () => (servingMs = performance.now() - t0),
    () => undefined,
  );
  // The port is only known from the server; find the listening socket of the child.
  let firstPageMs: number | undefined;
  while (firstPageMs === undefined) {
    if (child.exitCode !== null) await serving;
    port ??= await listeningPort(child.pid!);
    if (port) {
      const ok = await fetch(`http://127.0.0.1:${port}/`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (ok) firstPageMs = performance.now() - t0;
    }
    if (firstPageMs === undefined) await sleep(20);
  }
  const url = await serving;
  return { child, url, firstPageMs, servingMs };
}

/** The TCP port `pid` listens on (from /proc/net/tcp and its fds), if any yet. */
async function listeningPort(pid: number): Promise<string | undefined> {
  const { readdir, readlink } = await import("node:fs/promises");
  const inodes = new Set<string>();
  for (const fd of await readdir(`/proc/${pid}/fd`).catch(() => [])) {
    const link = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => "");
    const inode = /^socket:\[(\d+)\]$/.exec(link)?.[1];
    if (inode) inodes.add(inode);
  }
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    const lines = (await readFile(table, "utf8").catch(() => "")).split("\n").slice(1);
    for (const line of lines) {
      const f = line.trim().split(/\s+/);
      // st 0A is LISTEN
      if (f[3] === "0A" && inodes.has(f[9]!))
        return String(Number.parseInt(f[1]!.split(":")[1]!, 16));
    }
  }
  return undefined;
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = once(child, "exit");
  child.kill("SIGTERM");
  await exited;
}

const TICKETS = [
  "Clean up the temp files in the sandbox.",
  "Run the monthly report SQL for November.",
  "Email the on-call that last night's backup failed.",
];

/** One ticket through the SDK client: run to its review, approve every call, load the inbox. */
async function lightUse(url: string, i: number): Promise<void> {
  const client = new Client({ apiUrl: url });
  const thread = await client.threads.create();
  let state = (await client.runs.wait(thread.thread_id, "ops", {
    input: { messages: [{ type: "human", content: TICKETS[i % TICKETS.length] }] },
  })) as { __interrupt__?: { value: { actionRequests?: unknown[] } }[] };
  for (let round = 0; round < 5 && state.__interrupt__?.[0]?.value.actionRequests; round++) {
    const calls = state.__interrupt__[0].value.actionRequests;
    state = (await client.runs.wait(thread.thread_id, "ops", {
      command: { resume: { decisions: calls.map(() => ({ type: "approve" })) } },
    })) as typeof state;
  }
  await fetch(`${url}/`).then((r) => r.text());
  await fetch(`${url}/inbox/items`).then((r) => r.text());
}

const settle = Number(args.settle) * 1000;
const rows: string[] = [];
console.log(`# ${args.script}: node ${nodeArgs.join(" ")}; load average ${loadAverage()}`);
for (let run = 0; run < Number(args.runs); run++) {
  const dataDir = await mkdtemp(join(tmpdir(), "sw-weight-"));
  try {
    const first = await start(dataDir);
    await sleep(settle);
    const firstRss = await rssMb(first.child.pid!);
    await stop(first.child);
    const again = await start(dataDir);
    await sleep(settle);
    const againRss = await rssMb(again.child.pid!);
    const row = [first.firstPageMs, first.servingMs, firstRss, again.firstPageMs, againRss].map(
      (n) => n.toFixed(0),
    );
    rows.push(`| ${run + 1} | ${row.join(" | ")} | ${loadAverage()} |`);
    console.log(rows.at(-1));
    const minutes = Number(args.use);
    if (minutes > 0 && run === 0) {
      const t0 = Date.now();
      let i = 0;
      let next = 0;
      while (Date.now() - t0 < minutes * 60_000) {
        await lightUse(again.url, i++);
        const elapsed = (Date.now() - t0) / 60_000;
        if (elapsed >= next) {
          console.log(
            `use ${elapsed.toFixed(1)} min, ${i} tickets: RSS ${(await rssMb(again.child.pid!)).toFixed(0)} MB, load ${loadAverage()}`,
          );
          next = Math.floor(elapsed) + 1;
        }
        await sleep(20_000);
      }
      console.log(
        `after ${minutes} min of use: RSS ${(await rssMb(again.child.pid!)).toFixed(0)} MB`,
      );
    }
    await stop(again.child);
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}
console.log(
  "\n| run | first page ms | seeded ms | RSS MB seeded | restart: first page ms | restart: RSS MB | load |",
);
console.log("| --: | --: | --: | --: | --: | --: | :-- |");
for (const row of rows) console.log(row);
