/**
 * What the thread record's update costs in a checkpoint write (issue 28): the store's
 * advance statement (`advanceAndInsert`: the head row moved on, one channel value and the
 * checkpoint row inserted), executed prepared on databases alike but for the head table's
 * indexes, in turn, in one process; with `--pg`, on PostgreSQL (`STATEWEAVER_PG_URL`) too.
 * Each write advances one of 64 threads in turn, so every head-row update changes
 * `updated_at` (a millisecond apart at least), as a write of a running thread does.
 *
 *   node --conditions=source --import tsx test/bench/thread-record-cost.ts [--rounds 41] [--pg]
 *
 * Prints per variant: the median process CPU µs per statement over rounds of 64 (PGlite
 * runs in this thread, so that is its whole cost; for PostgreSQL it is the client's, and
 * the wall time is shown too), the head table's updates and HOT updates
 * (`pg_stat_user_tables`), and the median `explain (analyze, buffers)` time of the update
 * node, its index scan, and the whole execution.
 */
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { PGliteCheckpointer, PostgresCheckpointer } from "stateweaver/checkpoint";
import { statements, tables } from "../../src/checkpoint/sql/statements.js";
import { dropStoreTables } from "../setup/store-tables.js";
import { median } from "./measure.js";

const rounds = Number(process.argv[process.argv.indexOf("--rounds") + 1] || 41);
const THREADS = 64;
const OTHERS = 10_000;

/** Head-table indexes beside its primary key, after the store's migrations. */
const variants: Record<string, (prefix: string) => string[]> = {
  "main's (by_status, by_update)": (p) => [
    `create index if not exists ${p}threads_by_update on ${p}threads (updated_at, thread_id) where ns = ''`,
  ],
  "this branch's (by_status)": (p) => [`drop index if exists ${p}threads_by_update`],
  "none on updated_at (HOT)": (p) => [
    `drop index if exists ${p}threads_by_update`,
    `drop index if exists ${p}threads_by_status`,
  ],
};

type Exec = (text: string, params?: unknown[], name?: string) => Promise<any[]>;

const payload = JSON.stringify({
  v: 1,
  values: { text: null },
  next: ["node"],
  interrupts: [],
  metadata: { step: 1, source: "loop" },
  padding: "y".repeat(300),
});
const value = JSON.stringify("x".repeat(600));
/** Parameters of `advanceAndInsert` for thread `t`, checkpoint `id` after `prev`. */
const advanceParams = (t: number, id: string, prev: string) => [
  `adv${t}`,
  "",
  id,
  prev,
  1,
  "loop",
  new Date().toISOString(),
  payload,
  "g",
  "idle",
  "[]",
  null,
  ["text"],
  [id],
  ["text"],
  [null],
  [null],
  [value],
  [null],
  prev,
];

interface Setup {
  name: string;
  exec: Exec;
  prefix: string;
  write: () => Promise<void>;
  explain: () => Promise<any>;
  cpu: number[];
  wall: number[];
}

async function setUp(name: string, prefix: string, exec: Exec, changes: string[]) {
  const sql = statements(tables(prefix));
  await exec(`insert into ${prefix}threads
      (thread_id, ns, latest_id, graph, status, interrupts, metadata, created_at, updated_at)
    select 'other-' || i, '', 'cp-' || i, 'g',
      case when i % 100 = 0 then 'interrupted' else 'idle' end, '[]', '{}'::jsonb,
      now() - i * interval '1 second', now() - i * interval '1 second'
    from generate_series(1, ${OTHERS}) i`);
  for (const change of changes) await exec(change);
  let n = 0;
  const heads: string[] = [];
  for (let t = 0; t < THREADS; t++) {
    heads[t] = `c${String(n++).padStart(8, "0")}`;
    const first = advanceParams(t, heads[t]!, "").slice(0, 19);
    first[3] = null;
    await exec(sql.claimAndInsert, first);
  }
  await exec(`analyze ${prefix}threads`);
  let k = 0;
  const next = () => {
    const t = k++ % THREADS;
    const id = `c${String(n++).padStart(8, "0")}`;
    const params = advanceParams(t, id, heads[t]!);
    heads[t] = id;
    return params;
  };
  const setup: Setup = {
    name,
    exec,
    prefix,
    write: async () => {
      await exec(sql.advanceAndInsert, next(), `advance_${prefix}`);
    },
    explain: async () =>
      (await exec(`explain (analyze, buffers, format json) ${sql.advanceAndInsert}`, next()))[0][
        "QUERY PLAN"
      ][0],
    cpu: [],
    wall: [],
  };
  return setup;
}

async function measure(title: string, setups: Setup[]) {
  for (const s of setups) for (let i = 0; i < 300; i++) await s.write();
  for (let r = 0; r < rounds; r++) {
    for (const s of r % 2 === 0 ? setups : [...setups].reverse()) {
      const cpu = process.cpuUsage();
      const wall = performance.now();
      for (let i = 0; i < THREADS; i++) await s.write();
      s.wall.push(((performance.now() - wall) * 1000) / THREADS);
      const used = process.cpuUsage(cpu);
      s.cpu.push((used.user + used.system) / THREADS);
    }
  }
  console.log(`\n${title}: µs per advance statement, medians over ${rounds} rounds of ${THREADS}`);
  console.log(
    "head-table indexes                 cpu    wall  updates  HOT    explain: update (its index scan), execution",
  );
  for (const s of setups) {
    // Counters reach pg_stat_user_tables when a session flushes them (at most once a second).
    await s.exec("select pg_stat_force_next_flush()");
    const [stats] = await s.exec(
      `select n_tup_upd::int as upd, n_tup_hot_upd::int as hot from pg_stat_user_tables
        where relname = '${s.prefix}threads'`,
    );
    const update: number[] = [];
    const scan: number[] = [];
    const execution: number[] = [];
    for (let i = 0; i < 41; i++) {
      const plan = await s.explain();
      execution.push(plan["Execution Time"] * 1000);
      const find = (p: any, test: (p: any) => boolean): any =>
        test(p) ? p : (p.Plans ?? []).map((c: any) => find(c, test)).find(Boolean);
      const head = find(
        plan.Plan,
        (p) => p["Node Type"] === "ModifyTable" && p["Relation Name"]?.endsWith("threads"),
      );
      update.push(head["Actual Total Time"] * 1000);
      scan.push(head.Plans[0]["Actual Total Time"] * 1000);
    }
    console.log(
      `${s.name.padEnd(32)} ${median(s.cpu).toFixed(1).padStart(6)} ${median(s.wall).toFixed(1).padStart(7)}  ${String(stats.upd).padStart(7)} ${String(stats.hot).padStart(5)}    ${median(update).toFixed(0)} (${median(scan).toFixed(0)}), ${median(execution).toFixed(0)}`,
    );
  }
}

const pglites: PGlite[] = [];
const setups: Setup[] = [];
for (const [name, changes] of Object.entries(variants)) {
  const db = new PGlite("memory://");
  pglites.push(db);
  await new PGliteCheckpointer({ db }).getLatest("init");
  // Prepared by name once per statement text, as the store's prepared path does.
  const prepared = new Set<string>();
  const exec: Exec = async (text, params = [], name) => {
    if (!name) return (await db.query(text, params)).rows;
    if (!prepared.has(name)) {
      await db.query(`prepare ${name} as ${text}`);
      prepared.add(name);
    }
    const literals = params.map((p) => (p === null ? "null" : `${pgLiteral(p)}`));
    return (await db.query(`execute ${name}(${literals.join(", ")})`)).rows;
  };
  setups.push(await setUp(name, "stateweaver_", exec, changes("stateweaver_")));
}
await measure("PGlite (memory://)", setups);
for (const db of pglites) await db.close();

if (process.argv.includes("--pg")) {
  const url = process.env.STATEWEAVER_PG_URL;
  if (!url) throw new Error("--pg needs STATEWEAVER_PG_URL");
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  const exec: Exec = async (text, params = [], name) =>
    (await pool.query({ text, values: params, ...(name && { name }) })).rows;
  const pgSetups: Setup[] = [];
  const prefixes: string[] = [];
  for (const [i, [name, changes]] of Object.entries(variants).entries()) {
    const prefix = `bench_rec${i}_${process.pid}_`;
    prefixes.push(prefix);
    const store = new PostgresCheckpointer({ pool, tablePrefix: prefix });
    await store.getLatest("init");
    pgSetups.push(await setUp(name, prefix, exec, changes(prefix)));
  }
  try {
    await measure("PostgreSQL", pgSetups);
  } finally {
    for (const prefix of prefixes) await dropStoreTables(pool, prefix);
    await pool.end();
  }
}

/** A parameter as SQL literal text (arrays as array literals, left for the statement to type). */
function pgLiteral(value: unknown): string {
  const quote = (text: string) => `'${text.replaceAll("'", "''")}'`;
  if (typeof value === "number") return String(value);
  if (Array.isArray(value)) {
    const element = (e: unknown) =>
      e === null ? "NULL" : `"${String(e).replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
    return quote(`{${value.map(element).join(",")}}`);
  }
  return quote(String(value));
}
