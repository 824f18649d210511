/**
 * S6: the S3 interrupt -> resume cycle on PGlite (in memory), next to the cost of a raw
 * PGlite insert of the same checkpoint rows. `ours_us` is the mean checkpoint write
 * (`put`: stringify, then one prepared statement that claims or advances the thread's head
 * row, which is also the thread's record, stores new channel values and inserts the
 * checkpoint; a run's last write, `putAndRelease`, also ends the run's claim in it);
 * `peer_us` is one plain `insert` into a scratch table of the same shape, taking in turn
 * each row those writes made (read back from our table), so both sides time the same rows.
 * Each kind of write is also shown against the raw inserts of its own rows (a thread's
 * first `put` also creates its record; the releasing writes also delete the claim row).
 */
import { PGlite } from "@electric-sql/pglite";
import { type Checkpoint, PGliteCheckpointer, type PutOptions } from "stateweaver/checkpoint";
import * as ours from "../graphs/ours.js";
import { median, timeBatch } from "../measure.js";
import { check, result, round, type Scenario } from "../scenario.js";

export const TARGET = 1.25;

/** Times each checkpoint write this store makes: `put` and `putAndRelease` apart. */
class TimedPGliteCheckpointer extends PGliteCheckpointer {
  putUs = 0;
  puts = 0;
  releaseUs = 0;
  releases = 0;
  /** Ids of the checkpoints written with `putAndRelease`. */
  readonly releasing = new Set<string>();
  override async put(checkpoint: Checkpoint, options: PutOptions): Promise<void> {
    const start = performance.now();
    await super.put(checkpoint, options);
    this.putUs += (performance.now() - start) * 1000;
    this.puts++;
  }
  override async putAndRelease(checkpoint: Checkpoint, options: PutOptions, runId: string) {
    const start = performance.now();
    await super.putAndRelease(checkpoint, options, runId);
    this.releaseUs += (performance.now() - start) * 1000;
    this.releases++;
    this.releasing.add(checkpoint.id);
  }
}

export const s6: Scenario = {
  id: "S6",
  title: "S3 cycle on PGlite (memory://): checkpoint write vs raw insert of its row",
  async run({ quick }) {
    const db = new PGlite("memory://");
    await db.waitReady;
    const store = new TimedPGliteCheckpointer({ db });
    const graph = ours.approval(store);
    let thread = 0;
    const cycle = async () => {
      const config = { configurable: { thread_id: `s6-${thread++}` } };
      const paused = await graph.invoke({ details: "Transfer $500" }, { config });
      check(paused.status === "interrupted", "S6 ours paused", paused);
      const done = await graph.resume(true, { config });
      check(done.status === "done" && done.state.approved === true, "S6 ours final state", done);
    };
    const warmup = quick ? 5 : 30;
    for (let i = 0; i < warmup; i++) await cycle();

    // The rows one cycle of ours wrote (every checkpoint of one thread, in order), split by
    // the call that wrote them, so each side of each figure times the same rows.
    const { rows } = await db.query<Record<string, unknown>>(
      `select thread_id, ns, id, parent_id, step, source, created_at, payload
         from stateweaver_checkpoints where thread_id = 's6-0' order by id`,
    );
    const putRows = rows.filter((row) => !store.releasing.has(String(row.id)));
    const releaseRows = rows.filter((row) => store.releasing.has(String(row.id)));
    check(putRows.length > 0, "S6 the first cycle's checkpoint rows were written", rows);
    check(releaseRows.length > 0, "S6 the first cycle released its claims with a write", rows);
    await db.exec(
      "create table bench_raw_checkpoints (like stateweaver_checkpoints including all)",
    );
    const idLength = String(rows[0]!.id).length;
    let rawId = 0;
    const insert = `insert into bench_raw_checkpoints
      (thread_id, ns, id, parent_id, step, source, created_at, payload)
      values ($1, $2, $3, $4, $5, $6, $7, $8)`;
    const rawOf = (from: Record<string, unknown>[]) => {
      let next = 0;
      return async () => {
        const row = from[next++ % from.length]!;
        const id = String(rawId++).padStart(idLength, "0");
        const createdAt =
          row.created_at instanceof Date ? row.created_at.toISOString() : row.created_at;
        const r = await db.query(insert, [
          row.thread_id,
          row.ns,
          id,
          row.parent_id,
          row.step,
          row.source,
          createdAt,
          row.payload,
        ]);
        check(r.affectedRows === 1, "S6 raw insert wrote one row", r.affectedRows);
      };
    };
    const raw = rawOf(putRows);
    const rawRelease = rawOf(releaseRows);
    for (let i = 0; i < warmup; i++) {
      await raw();
      await rawRelease();
    }

    // Alternate: a batch of cycles (their writes timed inside), then the raw inserts.
    const batches = quick ? 3 : 9;
    const cycles = quick ? 5 : 15;
    const inserts = quick ? 20 : 60;
    const cycleUs: number[] = [];
    const writeUs: number[] = [];
    const putUs: number[] = [];
    const releaseUs: number[] = [];
    const writesPerCycle: number[] = [];
    const rawUs: number[] = [];
    const rawReleaseUs: number[] = [];
    for (let b = 0; b < batches; b++) {
      const runCycles = async () => {
        Object.assign(store, { putUs: 0, puts: 0, releaseUs: 0, releases: 0 });
        cycleUs.push(await timeBatch(cycle, cycles));
        writeUs.push((store.putUs + store.releaseUs) / (store.puts + store.releases));
        putUs.push(store.putUs / store.puts);
        releaseUs.push(store.releaseUs / store.releases);
        writesPerCycle.push((store.puts + store.releases) / cycles);
      };
      const runRaw = async () => {
        rawUs.push(await timeBatch(raw, inserts));
        rawReleaseUs.push(await timeBatch(rawRelease, inserts));
      };
      if (b % 2 === 0) {
        await runCycles();
        await runRaw();
      } else {
        await runRaw();
        await runCycles();
      }
    }
    const { rows: counted } = await db.query<{ n: number }>(
      "select count(*)::int as n from bench_raw_checkpoints",
    );
    check(counted[0]?.n === rawId, "S6 every raw insert is in the scratch table", counted);
    await store.close();
    await db.close();

    // The raw side's mean over one cycle's rows, each kind weighted by its count.
    const insertUs =
      (median(rawUs) * putRows.length + median(rawReleaseUs) * releaseRows.length) / rows.length;
    const cycleMedian = median(cycleUs);
    return result({
      scenario: "S6",
      title: this.title,
      ours_us: median(writeUs),
      peer_us: insertUs,
      target: TARGET,
      peer: "raw PGlite inserts of the same rows",
      extra: {
        put_us: round(median(putUs)),
        put_over_raw_insert: round(median(putUs) / median(rawUs), 3),
        put_and_release_us: round(median(releaseUs)),
        put_and_release_over_raw_insert: round(median(releaseUs) / median(rawReleaseUs), 3),
        cycle_us: round(cycleMedian),
        writes_per_cycle: round(median(writesPerCycle), 2),
        puts_per_cycle: putRows.length,
        cycle_over_raw_insert: round(cycleMedian / insertUs, 2),
        rows_per_cycle: rows.length,
        mean_row_payload_bytes: round(
          rows.reduce((sum, row) => sum + String(row.payload).length, 0) / rows.length,
        ),
      },
    });
  },
};
