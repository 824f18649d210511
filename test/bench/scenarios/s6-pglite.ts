/**
 * S6: the S3 interrupt -> resume cycle on PGlite (in memory), next to the cost of a raw
 * PGlite insert of the same checkpoint rows. `ours_us` is the mean checkpoint write as the
 * cycle does it (`put`: stringify, then one prepared statement that claims or advances the
 * thread's head row and inserts the checkpoint; a run's last write, `putAndRelease`, also
 * ends the run's claim in that statement); `peer_us` is one plain `insert` into a
 * scratch table of the same shape, taking in turn each row one cycle of ours wrote (read
 * back from our table), so both sides average the same rows.
 */
import { PGlite } from "@electric-sql/pglite";
import { type Checkpoint, PGliteCheckpointer, type PutOptions } from "stateweaver/checkpoint";
import * as ours from "../graphs/ours.js";
import { median, timeBatch } from "../measure.js";
import { check, result, round, type Scenario } from "../scenario.js";

export const TARGET = 1.25;

/** Times every checkpoint write this store makes (`put`, and `putAndRelease`). */
class TimedPGliteCheckpointer extends PGliteCheckpointer {
  putUs = 0;
  puts = 0;
  override put(checkpoint: Checkpoint, options: PutOptions): Promise<void> {
    return this.#timed(() => super.put(checkpoint, options));
  }
  override putAndRelease(checkpoint: Checkpoint, options: PutOptions, runId: string) {
    return this.#timed(() => super.putAndRelease(checkpoint, options, runId));
  }
  async #timed(write: () => Promise<void>): Promise<void> {
    const start = performance.now();
    await write();
    this.putUs += (performance.now() - start) * 1000;
    this.puts++;
  }
}

export const s6: Scenario = {
  id: "S6",
  title: "S3 cycle on PGlite (memory://): checkpoint write vs raw insert",
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

    // The rows one cycle of ours wrote (every checkpoint of one thread, in order), so both
    // sides time the same writes: the raw side inserts them in turn, as the cycle does.
    const { rows } = await db.query<Record<string, unknown>>(
      `select thread_id, ns, id, parent_id, step, source, created_at, payload
         from stateweaver_checkpoints where thread_id = 's6-0' order by id`,
    );
    check(rows.length > 0, "S6 the first cycle's checkpoint rows were written", rows);
    await db.exec(
      "create table bench_raw_checkpoints (like stateweaver_checkpoints including all)",
    );
    const idLength = String(rows[0]!.id).length;
    let rawId = 0;
    const insert = `insert into bench_raw_checkpoints
      (thread_id, ns, id, parent_id, step, source, created_at, payload)
      values ($1, $2, $3, $4, $5, $6, $7, $8)`;
    const raw = async () => {
      const row = rows[rawId % rows.length]!;
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
    for (let i = 0; i < warmup; i++) await raw();

    // Alternate: a batch of cycles (their puts timed inside), then a batch of raw inserts.
    const batches = quick ? 3 : 9;
    const cycles = quick ? 5 : 15;
    const inserts = quick ? 20 : 60;
    const cycleUs: number[] = [];
    const putUs: number[] = [];
    const putsPerCycle: number[] = [];
    const rawUs: number[] = [];
    for (let b = 0; b < batches; b++) {
      const runCycles = async () => {
        store.putUs = 0;
        store.puts = 0;
        cycleUs.push(await timeBatch(cycle, cycles));
        putUs.push(store.putUs / store.puts);
        putsPerCycle.push(store.puts / cycles);
      };
      const runRaw = async () => {
        rawUs.push(await timeBatch(raw, inserts));
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

    const write = median(putUs);
    const insertUs = median(rawUs);
    const cycleMedian = median(cycleUs);
    return result({
      scenario: "S6",
      title: this.title,
      ours_us: write,
      peer_us: insertUs,
      target: TARGET,
      peer: "raw PGlite inserts of the same rows",
      extra: {
        cycle_us: round(cycleMedian),
        puts_per_cycle: round(median(putsPerCycle), 2),
        cycle_over_raw_insert: round(cycleMedian / insertUs, 2),
        rows_per_cycle: rows.length,
        mean_row_payload_bytes: round(
          rows.reduce((sum, row) => sum + String(row.payload).length, 0) / rows.length,
        ),
      },
    });
  },
};
