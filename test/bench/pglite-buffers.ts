/**
 * PGlite's `shared_buffers` on a data directory (what `stateweaver serve` opens): the
 * store's queries with 16 MB against 1 MB, side by side in one process, in alternating
 * batches. Two directory stores, each `PGliteCheckpointer({ db })` on a PGlite started
 * with one setting: S7's inbox page over 100,000 threads, and S3's interrupt → resume
 * cycle (four checkpoint writes). A buffer miss on a directory is a file read, which the
 * memory:// scenarios (S6, S7, S8) never pay.
 *
 *   node --import tsx test/bench/pglite-buffers.ts [--rounds 6]
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { PGlite } from "@electric-sql/pglite";
import { PGliteCheckpointer } from "stateweaver/checkpoint";
import * as ours from "./graphs/ours.js";
import { loadAverage, median } from "./measure.js";
import { type Exec, seed, timeFirstPage } from "./scenarios/s7-thread-inbox.js";

const { values: args } = parseArgs({ options: { rounds: { type: "string", default: "6" } } });
const SETTINGS = ["16MB", "1MB"] as const;

const work = await mkdtemp(join(tmpdir(), "sw-buffers-"));
const stores = await Promise.all(
  SETTINGS.map(async (size) => {
    const db = new PGlite(join(work, size), {
      startParams: [...PGlite.defaultStartParams, "-c", `shared_buffers=${size}`],
    });
    const store = new PGliteCheckpointer({ db });
    await store.getLatest("warm-up"); // creates the tables
    const exec: Exec = async (text) => (await db.query<Record<string, unknown>>(text)).rows;
    await seed(exec, "stateweaver_");
    const graph = ours.approval(store);
    let thread = 0;
    const cycle = async () => {
      const config = { configurable: { thread_id: `cycle-${thread++}` } };
      await graph.invoke({ details: "Transfer $500" }, { config });
      await graph.resume(true, { config });
    };
    return { size, db, store, cycle, page: [] as number[], cycles: [] as number[] };
  }),
);

console.log(`load average ${loadAverage()}`);
for (let round = 0; round < Number(args.rounds); round++) {
  // Alternate which goes first, so neither always runs on a warmer machine.
  for (const s of round % 2 ? [...stores].reverse() : stores) {
    s.page.push(median(await timeFirstPage(s.store, 50)));
    const start = performance.now();
    for (let i = 0; i < 20; i++) await s.cycle();
    s.cycles.push(((performance.now() - start) * 1000) / 20);
  }
}
for (const s of stores) {
  console.log(
    `shared_buffers=${s.size}: inbox page p50 ${median(s.page).toFixed(0)} µs (rounds ${s.page.map((n) => n.toFixed(0)).join(" ")}), interrupt → resume cycle ${median(s.cycles).toFixed(0)} µs (rounds ${s.cycles.map((n) => n.toFixed(0)).join(" ")})`,
  );
  await s.store.close();
  await s.db.close();
}
console.log(`load average ${loadAverage()}`);
await rm(work, { recursive: true, force: true });
