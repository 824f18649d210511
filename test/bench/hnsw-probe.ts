/**
 * What an HNSW index would give the store's semantic search, measured beside the exact
 * search it does now (docs/benchmarks.md, "An HNSW index: considered, not added"). Not the
 * store's query: a vectors table shaped like the store's (`vector(dims)`, one row per item),
 * loaded in one transaction, then the index built (`hnsw (embedding vector_ip_ops)`), single
 * inserts with the index in place, and top-10 searches with and without it, with recall@10
 * of the index's answer against the exact one.
 *
 *   node --import tsx test/bench/hnsw-probe.ts                  # PGlite (needs @electric-sql/pglite-pgvector)
 *   STATEWEAVER_PG_URL=… node --import tsx test/bench/hnsw-probe.ts --sizes 1000,10000
 */

import pg from "pg";
import { PGliteCheckpointer } from "../../src/checkpoint/index.js";
import { loadAverage } from "./measure.js";

const arg = (name: string) => {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : undefined;
};
const sizes = (arg("sizes") ?? "1000,10000").split(",").map(Number);
const dims = Number(arg("dims") ?? 1536);
const url = process.env.STATEWEAVER_PG_URL;

/** A seeded unit vector per number, as the store keeps them (unit length). */
function vectorOf(n: number): string {
  let seed = n * 2654435761;
  const out = new Array<number>(dims);
  let norm = 0;
  for (let i = 0; i < dims; i++) {
    seed = (Math.imul(seed, 1103515245) + 12345) | 0;
    out[i] = ((seed >>> 8) & 0xffff) / 0xffff - 0.5;
    norm += out[i]! * out[i]!;
  }
  return `[${out.map((x) => x / Math.sqrt(norm)).join(",")}]`;
}

type Run = (text: string, params?: unknown[]) => Promise<Array<Record<string, unknown>>>;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function probe(name: string, run: Run, size: number): Promise<string> {
  await run("drop table if exists sw_hnsw_probe");
  await run(`create table sw_hnsw_probe (id int primary key, embedding vector(${dims}))`);
  await run("begin");
  for (let i = 0; i < size; i++) {
    await run("insert into sw_hnsw_probe values ($1, $2::vector)", [i, vectorOf(i)]);
  }
  await run("commit");
  let started = performance.now();
  await run("create index sw_hnsw_probe_ip on sw_hnsw_probe using hnsw (embedding vector_ip_ops)");
  const buildMs = performance.now() - started;
  const inserts = 100;
  started = performance.now();
  for (let i = 0; i < inserts; i++) {
    await run("insert into sw_hnsw_probe values ($1, $2::vector)", [size + i, vectorOf(size + i)]);
  }
  const insertMs = (performance.now() - started) / inserts;
  const top = "select id from sw_hnsw_probe order by embedding <#> $1::vector limit 10";
  const indexed: number[] = [];
  const exact: number[] = [];
  let found = 0;
  for (let q = 0; q < 7; q++) {
    const query = vectorOf(1_000_000 + q);
    await run("set enable_indexscan = on");
    started = performance.now();
    const near = await run(top, [query]);
    indexed.push(performance.now() - started);
    await run("set enable_indexscan = off");
    started = performance.now();
    const truth = await run(top, [query]);
    exact.push(performance.now() - started);
    const ids = new Set(truth.map((r) => r.id));
    found += near.filter((r) => ids.has(r.id)).length;
  }
  await run("set enable_indexscan = on");
  await run("drop table sw_hnsw_probe");
  return `| ${name} | ${size} | ${buildMs.toFixed(0)} | ${insertMs.toFixed(2)} | ${median(indexed).toFixed(1)} | ${median(exact).toFixed(1)} | ${(found / 70).toFixed(2)} |`;
}

const loadBefore = loadAverage();
const rows: string[] = [];
{
  const checkpointer = new PGliteCheckpointer("memory://");
  const driver = await checkpointer.sharedDriver();
  await driver.query("create extension if not exists vector");
  const run: Run = async (text, params) => (await driver.query(text, params)).rows;
  for (const size of sizes) rows.push(await probe("pglite", run, size));
  await checkpointer.close();
}
if (url) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query("create extension if not exists vector");
  const run: Run = async (text, params) => (await client.query(text, params)).rows;
  for (const size of sizes) rows.push(await probe("postgresql", run, size));
  await client.end();
}
console.log(
  `dims ${dims}, limit 10; load average (1, 5, 15 min) ${loadBefore} before, ${loadAverage()} after\n`,
);
console.log(
  "| database | rows | build ms | insert ms (index in place) | search ms (HNSW) | search ms (exact) | recall@10 |",
);
console.log("| --- | --- | --- | --- | --- | --- | --- |");
for (const row of rows) console.log(row);
