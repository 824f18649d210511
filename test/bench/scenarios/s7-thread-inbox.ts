/**
 * S7: the inbox query. 100,000 threads, 1,000 of them interrupted (10 of those held by a
 * live run, so busy); one `searchThreads({ status: "interrupted", limit: 50 })` call, the
 * first page, timed call by call on PGlite (memory://) and on PostgreSQL
 * (STATEWEAVER_PG_URL; skipped without it). `ours_us` is the PGlite p50; `peer_us` is the
 * 5 ms budget, so the ratio is the share of the budget used; PostgreSQL's p50 is a check.
 *
 * The rows are seeded with one `generate_series` statement per table, as the migrated
 * schema stores them (a head row carrying the thread record, and a latest checkpoint of
 * about 1 kB), not with 100,000 puts: the query reads neither how they got there nor the
 * payloads.
 */
import { randomUUID } from "node:crypto";
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import {
  type Checkpointer,
  PGliteCheckpointer,
  PostgresCheckpointer,
} from "stateweaver/checkpoint";
import { dropStoreTables } from "../../setup/store-tables.js";
import { median } from "../measure.js";
import { check, result, round, type Scenario } from "../scenario.js";

export const THREADS = 100_000;
export const INTERRUPTED = 1_000;
export const PAGE = 50;
export const BUDGET_US = 5_000;

export type Exec = (text: string) => Promise<Array<Record<string, unknown>>>;

/** Seed `THREADS` threads under `prefix` (tables already created by the store). */
export async function seed(exec: Exec, prefix: string): Promise<void> {
  const every = THREADS / INTERRUPTED;
  const interrupt = JSON.stringify([
    {
      id: "0123456789abcdef01234567",
      value: { question: "Approve the transfer?", details: "Transfer $500 to ACME" },
      node: "approval",
      ns: "",
      step: 2,
      taskId: "task",
      timing: "during",
    },
  ]);
  const payload = JSON.stringify({ values: { text: "x".repeat(900) }, next: [], interrupts: [] });
  // Updated once a second going back from now, so the interrupted ones are spread out.
  await exec(`insert into ${prefix}threads
      (thread_id, ns, latest_id, graph, status, interrupts, metadata, created_at, updated_at)
    select 'inbox-' || i, '', 'cp-' || i, case when i % 2 = 0 then 'Support' else 'Billing' end,
      case when i % ${every} = 0 then 'interrupted' else 'idle' end,
      case when i % ${every} = 0 then '${interrupt}' else '[]' end,
      jsonb_build_object('user', 'u' || (i % 997)),
      date_trunc('milliseconds', now()) - i * interval '1 second',
      date_trunc('milliseconds', now()) - i * interval '1 second'
    from generate_series(1, ${THREADS}) i`);
  await exec(`insert into ${prefix}checkpoints
      (thread_id, ns, id, parent_id, step, source, created_at, payload)
    select 'inbox-' || i, '', 'cp-' || i, null, 1, 'loop', now() - i * interval '1 second',
      '${payload}'
    from generate_series(1, ${THREADS}) i`);
  // Ten of the newest interrupted threads are held by a run: the page must skip them.
  await exec(`insert into ${prefix}claims (thread_id, run_id, expires_at)
    select 'inbox-' || (i * ${every}), 'run-' || i, now() + interval '1 hour'
    from generate_series(1, 10) i`);
  await exec(`analyze ${prefix}threads`);
  await exec(`analyze ${prefix}claims`);
}

/** Per-call µs of the first page, after a warm-up; checks every page is right. */
export async function timeFirstPage(store: Checkpointer, calls: number): Promise<number[]> {
  const once = async () => {
    const page = await store.searchThreads({ status: "interrupted", limit: PAGE });
    check(page.threads.length === PAGE, "S7 a full first page", page.threads.length);
    check(
      page.threads[0]?.threadId === `inbox-${11 * (THREADS / INTERRUPTED)}`,
      "S7 newest first, busy skipped",
      page.threads[0]?.threadId,
    );
    check(page.nextCursor !== null, "S7 a next page", page.nextCursor);
  };
  for (let i = 0; i < 20; i++) await once();
  const us: number[] = [];
  for (let i = 0; i < calls; i++) {
    const start = performance.now();
    await once();
    us.push((performance.now() - start) * 1000);
  }
  return us;
}

/** The plan of the inbox query's shape: which index it walks. */
async function planOf(exec: Exec, prefix: string): Promise<string> {
  const rows = await exec(`explain select t.thread_id from ${prefix}threads t
    where t.ns = '' and t.status = 'interrupted'
      and not exists (select 1 from ${prefix}claims c where c.thread_id = t.thread_id and c.expires_at > now())
    order by t.updated_at desc, t.thread_id desc limit ${PAGE + 1}`);
  const text = rows.map((r) => String(Object.values(r)[0])).join("\n");
  return /threads_by_status/.test(text) ? "index threads_by_status" : `NOT the index:\n${text}`;
}

export const s7: Scenario = {
  id: "S7",
  title: `inbox: first ${PAGE} of ${INTERRUPTED.toLocaleString("en")} interrupted among ${THREADS.toLocaleString("en")} threads`,
  async run({ quick, log }) {
    const calls = quick ? 50 : 300;
    log(`  S7 PGlite: seeding ${THREADS} threads…`);
    const db = new PGlite("memory://");
    const pglite = new PGliteCheckpointer({ db });
    await pglite.getLatest("warm-up"); // creates the tables
    const execLite: Exec = async (text) => (await db.query<Record<string, unknown>>(text)).rows;
    await seed(execLite, "stateweaver_");
    const litePlan = await planOf(execLite, "stateweaver_");
    const lite = await timeFirstPage(pglite, calls);
    await pglite.close();
    await db.close();

    const url = process.env.STATEWEAVER_PG_URL;
    let pgP50: number | undefined;
    let pgPlan = "skipped (no STATEWEAVER_PG_URL)";
    if (url) {
      log(`  S7 PostgreSQL: seeding ${THREADS} threads…`);
      const prefix = `sw_bench_${randomUUID().slice(0, 8)}_`;
      const pool = new pg.Pool({ connectionString: url, max: 2 });
      const store = new PostgresCheckpointer({ pool, tablePrefix: prefix });
      const execPg: Exec = async (text) => (await pool.query(text)).rows;
      try {
        await store.getLatest("warm-up");
        await seed(execPg, prefix);
        pgPlan = await planOf(execPg, prefix);
        pgP50 = median(await timeFirstPage(store, calls));
      } finally {
        await store.close();
        await dropStoreTables(pool, prefix);
        await pool.end();
      }
    }

    const liteP50 = median(lite);
    const checks = [
      {
        what: "PostgreSQL first page p50 µs",
        value: pgP50 === undefined ? Number.NaN : round(pgP50),
        target: BUDGET_US,
        met: pgP50 === undefined || pgP50 <= BUDGET_US,
        detail: pgP50 === undefined ? "skipped: set STATEWEAVER_PG_URL" : pgPlan,
      },
    ];
    return result({
      scenario: "S7",
      title: this.title,
      ours_us: liteP50,
      peer_us: BUDGET_US,
      target: 1,
      peer: "the 5 ms budget (ours_us is PGlite's p50 per call)",
      met: liteP50 <= BUDGET_US && checks.every((c) => c.met),
      checks,
      extra: {
        pglite_p50_us: round(liteP50),
        pglite_p90_us: round([...lite].sort((a, b) => a - b)[Math.floor(lite.length * 0.9)]!),
        pglite_plan: litePlan,
        postgres_p50_us: pgP50 === undefined ? "skipped" : round(pgP50),
        postgres_plan: pgPlan,
      },
    });
  },
};
