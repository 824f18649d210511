/**
 * How the SQL shape of a checkpoint write compares with one plain insert on PGlite
 * (evidence for S6): the old put's transaction (BEGIN, head-row claim or advance, insert,
 * COMMIT), the same two statements as one autocommitted CTE statement (through
 * `db.query`, which parses, plans and describes it on every call), and the store's `put`
 * as it is: that CTE statement kept prepared, so one exchange with PGlite that only binds
 * and executes. A thread's first checkpoint claims the head row; every later one advances
 * it. The "unique (thread, ns, expected id)" shape drops the head row: the checkpoint row
 * records the latest id its writer expected, and a unique index on (thread, ns, expected)
 * NULLS NOT DISTINCT lets only one writer follow a given latest.
 *
 *   node --conditions=source --import tsx test/bench/put-shapes.ts
 */
import { PGlite } from "@electric-sql/pglite";
import { type Checkpoint, PGliteCheckpointer } from "stateweaver/checkpoint";
import { median, timeBatch } from "./measure.js";

const db = new PGlite("memory://");
const store = new PGliteCheckpointer({ db });
await store.getLatest("init"); // creates the tables

const payload = "x".repeat(950);
let n = 0;
const row = () => {
  const i = n++;
  return [`t${i}`, "", `id${i}`, null, 1, "loop", new Date().toISOString(), payload];
};
const insert = `insert into stateweaver_checkpoints
  (thread_id, ns, id, parent_id, step, source, created_at, payload)
  values ($1, $2, $3, $4, $5, $6, $7, $8)`;
const claim = `insert into stateweaver_threads (thread_id, ns, latest_id) values ($1, $2, $3)
  on conflict do nothing`;

// One thread whose head row every "advance" shape moves along, as a running thread does.
await db.query(claim, ["adv", "", "adv-0"]);
let head = "adv-0";
const advanceRow = () => {
  const r = row();
  const previous = head;
  head = r[2] as string;
  return { r: ["adv", ...r.slice(1)], previous };
};
const advance = `update stateweaver_threads set latest_id = $3
  where thread_id = $1 and ns = $2 and latest_id = $4`;

await db.exec(`
  create table scratch_checkpoints (like stateweaver_checkpoints including all);
  alter table scratch_checkpoints add column expected_id text;
  create unique index scratch_follows on scratch_checkpoints (thread_id, ns, expected_id)
    nulls not distinct;`);
let expected: string | null = null;

// The store's own put, on checkpoints whose JSON is about as long as `payload`.
const checkpointOf = (threadId: string, id: string, parentId: string | null): Checkpoint => ({
  id,
  threadId,
  ns: "",
  parentId,
  snapshot: { status: "active", value: "waiting", context: {} },
  values: { text: "x".repeat(700) },
  next: ["node"],
  interrupts: [],
  metadata: { step: 1, source: "loop" },
  createdAt: new Date().toISOString(),
});
let storeHead = `store-adv-${n++}`;
await store.put(checkpointOf("store-adv", storeHead, null), { expectedLatestId: null });

const shapes: Record<string, () => Promise<void>> = {
  "raw insert (1 statement)": async () => {
    await db.query(insert, row());
  },
  "transaction: claim + insert (put before)": async () => {
    const r = row();
    await db.transaction(async (tx) => {
      await tx.query(claim, r.slice(0, 3));
      await tx.query(insert, r);
    });
  },
  "claim + insert, two autocommits": async () => {
    const r = row();
    await db.query(claim, r.slice(0, 3));
    await db.query(insert, r);
  },
  "transaction: advance + insert (put before, later steps)": async () => {
    const { r, previous } = advanceRow();
    await db.transaction(async (tx) => {
      const moved = await tx.query(advance, [...r.slice(0, 3), previous]);
      if (moved.affectedRows !== 1) throw new Error("head did not move");
      await tx.query(insert, r);
    });
  },
  "one CTE statement: advance then insert": async () => {
    const { r, previous } = advanceRow();
    const done = await db.query(
      `with head as (
         update stateweaver_threads set latest_id = $3
         where thread_id = $1 and ns = $2 and latest_id = $9 returning 1)
       insert into stateweaver_checkpoints
         (thread_id, ns, id, parent_id, step, source, created_at, payload)
       select $1, $2, $3, $4, $5, $6, $7, $8 from head`,
      [...r, previous],
    );
    if (done.affectedRows !== 1) throw new Error("head did not move");
  },
  "one insert, unique (thread, ns, expected id)": async () => {
    const r = row();
    r[0] = "follow";
    await db.query(
      `insert into scratch_checkpoints
         (thread_id, ns, id, parent_id, step, source, created_at, payload, expected_id)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [...r, expected],
    );
    expected = r[2] as string;
  },
  "one CTE statement: claim then insert": async () => {
    await db.query(
      `with head as (
         insert into stateweaver_threads (thread_id, ns, latest_id) values ($1, $2, $3)
         on conflict do nothing returning 1)
       insert into stateweaver_checkpoints
         (thread_id, ns, id, parent_id, step, source, created_at, payload)
       select $1, $2, $3, $4, $5, $6, $7, $8 from head`,
      row(),
    );
  },
  "PGliteCheckpointer.put, first (claim CTE, prepared)": async () => {
    const i = n++;
    await store.put(checkpointOf(`store-${i}`, `id${i}`, null), { expectedLatestId: null });
  },
  "PGliteCheckpointer.put, later (advance CTE, prepared)": async () => {
    const id = `store-adv-${n++}`;
    await store.put(checkpointOf("store-adv", id, storeHead), { expectedLatestId: storeHead });
    storeHead = id;
  },
};

for (const op of Object.values(shapes)) for (let i = 0; i < 50; i++) await op();
const results = new Map<string, number[]>();
for (let b = 0; b < 9; b++) {
  for (const [name, op] of Object.entries(shapes)) {
    const list = results.get(name) ?? [];
    list.push(await timeBatch(op, 50));
    results.set(name, list);
  }
}
const base = median(results.get("raw insert (1 statement)")!);
for (const [name, list] of results) {
  const us = median(list);
  console.log(`${us.toFixed(0).padStart(6)} µs  ${(us / base).toFixed(2)}x  ${name}`);
}
await store.close();
await db.close();
