/**
 * S14: a burst of review answers. 200 threads are paused at an `interrupt()` (a one-step
 * question graph), then all 200 are resumed at once with
 * `client.runs.wait(thread, "question", { command: { resume } })` through the official SDK
 * client; each call is timed from the burst's start to its return. Three set-ups, one
 * after another in this process:
 * - ours in one process on PGlite (`createServer` over `PGliteCheckpointer("memory://")`,
 *   running its runs itself);
 * - ours on PostgreSQL with two `stateweaver worker` processes (the build's bin) executing
 *   the runs, and a server that only queues them (concurrency 0; needs STATEWEAVER_PG_URL,
 *   skipped without it);
 * - LangGraph's dev server (`@langchain/langgraph-api`, in memory, 10 queue workers).
 * `ours_us` is our worse p50 of the two set-ups, `peer_us` LangGraph's p50; the target is
 * half of it. Every p50 and p95 is in `extra`.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@langchain/langgraph-sdk";
import { PGliteCheckpointer, PostgresCheckpointer } from "stateweaver/checkpoint";
import { PostgresRunQueue } from "stateweaver/runs";
import { createServer } from "stateweaver/server";
import { WORKER_BIN } from "../../runs/fixtures/worker-fleet.js";
import { dropDeploymentTables } from "../../setup/store-tables.js";
import { question } from "../graphs/question.js";
import { langGraphPeer, PEER_NAME } from "../langgraph-server-fixture.js";
import { check, result, round, type Scenario } from "../scenario.js";

export const TARGET = 0.5;

export const quantile = (xs: number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;

/** Pause `n` new threads at the question; their ids. */
/** Stop worker processes and wait until each has exited. */
export function stopWorkers(workers: ChildProcess[]): Promise<unknown> {
  return Promise.all(
    workers.map(
      (w) =>
        new Promise((done) => {
          w.once("exit", done);
          w.kill("SIGTERM");
        }),
    ),
  );
}

export async function pauseThreads(client: Client, n: number): Promise<string[]> {
  const threads: string[] = [];
  for (let i = 0; i < n; i++) {
    const id = randomUUID();
    const paused = (await client.runs.wait(id, "question", {
      input: { q: `ok ${i}?` },
      ifNotExists: "create",
    })) as { __interrupt__?: unknown[] };
    check(paused.__interrupt__?.length === 1, "S14 thread paused", paused);
    threads.push(id);
  }
  return threads;
}

/** Resume every thread at once; ms from the burst's start to each call's return. */
export function resumeAll(client: Client, threads: string[]): Promise<number[]> {
  const start = performance.now();
  return Promise.all(
    threads.map(async (id) => {
      const out = (await client.runs.wait(id, "question", {
        command: { resume: "yes" },
      })) as { a?: string };
      check(out.a === "yes", "S14 resumed with the answer", out);
      return performance.now() - start;
    }),
  );
}

/** Pause `n` new threads at the question, then resume them all at once; ms per call. */
async function burst(client: Client, n: number): Promise<number[]> {
  return resumeAll(client, await pauseThreads(client, n));
}

export const sdk = (url: string) =>
  new Client({ apiUrl: url, callerOptions: { maxRetries: 0, maxConcurrency: 1000 } });

async function oursOnPGlite(n: number): Promise<number[]> {
  const checkpointer = new PGliteCheckpointer("memory://");
  const server = createServer({ graphs: { question }, checkpointer });
  const { url } = await server.listen({ port: 0 });
  try {
    await burst(sdk(url), Math.min(20, n)); // warm-up
    return await burst(sdk(url), n);
  } finally {
    await server.close();
  }
}

/** Two `stateweaver worker` processes hosting test/bench/graphs/question.ts. */
export function startWorker(
  config: string,
  url: string,
  tablePrefix: string,
): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [...WORKER_BIN.build, "worker", "--config", config, "--concurrency", "8"],
    {
      env: { ...process.env, DATABASE_URL: url, STATEWEAVER_TABLE_PREFIX: tablePrefix },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  return workerReady(child);
}

/** Resolves once a spawned `stateweaver worker` says it is executing; rejects if it exits first. */
export function workerReady(child: ChildProcess): Promise<ChildProcess> {
  let err = "";
  child.stderr!.setEncoding("utf8").on("data", (t: string) => {
    err += t;
  });
  return new Promise((ready, failed) => {
    let out = "";
    child.stdout!.setEncoding("utf8").on("data", (t: string) => {
      out += t;
      if (out.includes("stateweaver worker executing")) ready(child);
    });
    child.once("exit", (code, signal) =>
      failed(new Error(`S14 worker exited (${code ?? signal}) before it was ready: ${err}`)),
    );
  });
}

async function oursOnPostgres(url: string, n: number): Promise<number[]> {
  const tablePrefix = `sw_bench_s14_${randomUUID().slice(0, 8)}_`;
  const dir = mkdtempSync(join(tmpdir(), "stateweaver-s14-"));
  const config = join(dir, "stateweaver.json");
  const graphFile = fileURLToPath(new URL("../graphs/question.ts", import.meta.url));
  writeFileSync(config, JSON.stringify({ graphs: { question: `${graphFile}:question` } }));
  const checkpointer = new PostgresCheckpointer({ connectionString: url, tablePrefix });
  await checkpointer.searchThreads({ limit: 1 }); // the store's tables, before the workers start
  const queue = await PostgresRunQueue.open({ connectionString: url, tablePrefix });
  const server = createServer({ graphs: { question }, checkpointer, queue, concurrency: 0 });
  const workers: ChildProcess[] = [];
  try {
    workers.push(...(await Promise.all([1, 2].map(() => startWorker(config, url, tablePrefix)))));
    const { url: apiUrl } = await server.listen({ port: 0 });
    await burst(sdk(apiUrl), Math.min(20, n)); // warm-up
    return await burst(sdk(apiUrl), n);
  } finally {
    await stopWorkers(workers);
    await server.close();
    await dropDeploymentTables(url, tablePrefix);
  }
}

export const s14: Scenario = {
  id: "S14",
  title: "200 paused threads resumed at once (SDK runs.wait), p50",
  async run({ quick, log }) {
    const n = quick ? 50 : 200;
    const extra: Record<string, number | string> = {};
    const pglite = await oursOnPGlite(n);
    extra.pglite_p50_ms = round(quantile(pglite, 0.5));
    extra.pglite_p95_ms = round(quantile(pglite, 0.95));
    log(`  ours, PGlite: p50 ${extra.pglite_p50_ms} ms, p95 ${extra.pglite_p95_ms} ms`);
    let oursP50 = quantile(pglite, 0.5);
    const url = process.env.STATEWEAVER_PG_URL;
    if (url) {
      const postgres = await oursOnPostgres(url, n);
      extra.postgres_2_workers_p50_ms = round(quantile(postgres, 0.5));
      extra.postgres_2_workers_p95_ms = round(quantile(postgres, 0.95));
      log(
        `  ours, PostgreSQL + 2 workers: p50 ${extra.postgres_2_workers_p50_ms} ms, p95 ${extra.postgres_2_workers_p95_ms} ms`,
      );
      oursP50 = Math.max(oursP50, quantile(postgres, 0.5));
    } else {
      extra.postgres = "skipped: STATEWEAVER_PG_URL is not set";
    }
    const peer = await langGraphPeer();
    let peerP50 = Number.NaN;
    if ("server" in peer) {
      const theirs = await burst(peer.server.client, n);
      peerP50 = quantile(theirs, 0.5);
      extra.langgraph_p50_ms = round(peerP50);
      extra.langgraph_p95_ms = round(quantile(theirs, 0.95));
      log(`  LangGraph: p50 ${extra.langgraph_p50_ms} ms, p95 ${extra.langgraph_p95_ms} ms`);
    } else {
      extra.langgraph = peer.unavailable;
    }
    return result({
      scenario: "S14",
      title: this.title,
      ours_us: oursP50 * 1000,
      peer_us: peerP50 * 1000,
      target: TARGET,
      peer: PEER_NAME,
      extra,
    });
  },
};
