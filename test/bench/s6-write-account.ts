/**
 * Where S6's checkpoint write goes: each write one S3 cycle makes on `PGliteCheckpointer`
 * (`memory://`), timed part by part, made inside a running cycle (as S6 times it) and
 * replayed alone (the same calls with the same checkpoints and options, captured from one
 * cycle, made again on new thread ids outside any graph), beside raw inserts of the rows
 * those writes stored. For one or more builds (each checkout's `dist/`), in one process:
 *
 *   npx tsc -p tsconfig.build.json    # in each checkout
 *   node --import tsx --expose-gc test/bench/s6-write-account.ts /tmp/s6base . --rounds 31
 *
 * A write's parts, wall and process CPU time (user + system), from its call to its return:
 * - `encode`: to the driver's query (ids, the checkpoint's JSON, the thread record's fields,
 *   the channel versions, the statement's parameters);
 * - `to wasm`: from the query to PGlite's synchronous protocol exchange (the wire message,
 *   the two locks `db.query` also takes);
 * - `wasm`: the exchange itself (`execProtocolRawSync`: Postgres binds and runs it);
 * - `back`: from the exchange to the write's return (the result parsed, the store's
 *   bookkeeping, the promise hops back to the caller).
 * Inside a cycle the gaps hold whatever else the event loop ran meanwhile: the graph goes on
 * stepping while an `"async"` write is in flight. So `cycle − alone` is that interleaving.
 * The raw inserts are S6's (`db.query`, parsed and planned each time) and the same insert
 * through the store's own prepared-statement path (bound and executed only), each taking in
 * turn the rows the kind of write stored. Medians over rounds (each round a batch of cycles,
 * a batch of replays and a batch of raw inserts, in turn), µs per write.
 */
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { checkoutArgs } from "./checkout-args.js";
import * as ours from "./graphs/ours.js";
import { median } from "./measure.js";

const { dirs, option } = checkoutArgs(
  "usage: s6-write-account.ts <checkout> [<checkout> …] [--rounds 31] [--batch 20]",
);
const rounds = Number(option("--rounds") ?? 31);
const batch = Number(option("--batch") ?? 20);

/** One build's module, loaded by path (its types are not this checkout's). */
type Module = any;

const PARTS = ["encode", "to wasm", "wasm", "back"] as const;
const COLUMNS = [...PARTS, "wall", "cpu", "mean wall"] as const;
type Column = (typeof COLUMNS)[number];
/** One write's parts (wall µs), its whole in wall and CPU µs; over a batch, also the mean. */
type WriteTimes = Record<Column, number> & { kind: string; exchanges: number };
interface Stamp {
  wall: number;
  cpu: number;
}
/** Wall time only: `process.cpuUsage()` costs a few µs, so CPU is read at a write's ends. */
const tick = (): number => performance.now() * 1000;
const stamp = (): Stamp => {
  const { user, system } = process.cpuUsage();
  return { wall: tick(), cpu: user + system };
};

/** What one build's store and its PGlite are timed with. */
async function setUp(dir: string) {
  const at = (p: string) => pathToFileURL(join(resolve(dir), "dist/src", p)).href;
  const core: Module = await import(at("index.js"));
  const checkpoint: Module = await import(at("checkpoint/index.js"));
  const { PGlite } = await import("@electric-sql/pglite");
  const db: Module = new PGlite("memory://");
  await db.waitReady;
  if (process.env.S6_PLAN) await db.exec(`set plan_cache_mode = ${process.env.S6_PLAN}`);

  // The write in flight (one at a time: a run's writer queues them), and its stamps.
  let current:
    | {
        kind: string;
        start: Stamp;
        query?: number;
        wasmIn?: number;
        wasmOut?: number;
        wasm: number;
        n: number;
      }
    | undefined;
  const exchange = db.execProtocolRawSync.bind(db);
  // Every raw exchange with Postgres, for the raw inserts too.
  const rawExchanges = { wall: 0, n: 0 };
  db.execProtocolRawSync = (message: Uint8Array) => {
    const t0 = tick();
    try {
      return exchange(message);
    } finally {
      const t1 = tick();
      rawExchanges.wall += t1 - t0;
      rawExchanges.n++;
      if (current) {
        current.wasmIn ??= t0;
        current.wasmOut = t1;
        current.wasm += t1 - t0;
        current.n++;
      }
    }
  };

  const times: WriteTimes[] = [];
  let recording = false;
  let driver: Module;
  let capture: Array<{ method: string; args: unknown[] }> | undefined;
  const timedQuery = (query: Module) => (text: string, params?: unknown[]) => {
    if (current && !current.query) current.query = tick();
    return query(text, params);
  };
  const Store: new (options: unknown) => Module = checkpoint.PGliteCheckpointer;
  class TimedStore extends Store {
    async connect() {
      driver = await super.connect();
      return {
        ...driver,
        query: timedQuery(driver.query),
        queryPrepared: driver.queryPrepared && timedQuery(driver.queryPrepared),
      };
    }
    put(c: unknown, o: unknown) {
      return this.#timed("put", super.put.bind(this), [c, o]);
    }
    putAndRelease(c: unknown, o: unknown, runId: string) {
      return this.#timed("putAndRelease", super.putAndRelease.bind(this), [c, o, runId]);
    }
    putPause(...callArgs: unknown[]) {
      capture?.push({ method: "putPause", args: structuredClone(callArgs) });
      return super.putPause(...callArgs);
    }
    claimLatest(...callArgs: unknown[]) {
      capture?.push({ method: "claimLatest", args: structuredClone(callArgs) });
      return super.claimLatest(...callArgs);
    }
    async #timed(kind: string, write: (...a: unknown[]) => Promise<void>, callArgs: unknown[]) {
      capture?.push({ method: kind, args: structuredClone(callArgs) });
      const [c, o] = callArgs as [{ parentId: string | null }, { expectedLatestId: string | null }];
      const shape =
        o.expectedLatestId === null ? "first" : c.parentId === o.expectedLatestId ? "next" : "fork";
      current = { kind: `${kind} (${shape})`, start: stamp(), wasm: 0, n: 0 };
      const mine = current;
      await write(...callArgs);
      const end = stamp();
      current = undefined;
      if (!recording || !mine.query || !mine.wasmIn || !mine.wasmOut) return;
      const wall = end.wall - mine.start.wall;
      times.push({
        kind: mine.kind,
        encode: mine.query - mine.start.wall,
        "to wasm": mine.wasmIn - mine.query,
        wasm: mine.wasm,
        back: end.wall - mine.wasmOut,
        wall,
        cpu: end.cpu - mine.start.cpu,
        "mean wall": wall,
        exchanges: mine.n,
      });
    }
  }
  const store = new TimedStore({ db });

  const graph = ours.approval(store as never, core);
  let thread = 0;
  const cycle = async () => {
    const config = { configurable: { thread_id: `${dir}-cycle-${thread++}` } };
    const paused = await graph.invoke({ details: "Transfer $500" }, { config });
    if (paused.status !== "interrupted") throw new Error("S6 cycle did not pause");
    const done = await graph.resume(true, { config });
    if (done.status !== "done" || done.state.approved !== true) throw new Error("S6 resumed wrong");
  };
  for (let i = 0; i < 100; i++) await cycle();

  // One cycle's store calls, captured to be made again on new threads.
  capture = [];
  const capturedThread = `${dir}-cycle-${thread}`;
  await cycle();
  const calls = capture;
  capture = undefined;
  const replayOn = (to: string) =>
    calls.map(({ method, args: callArgs }) => {
      const copy = structuredClone(callArgs) as unknown[];
      if (typeof copy[0] === "string") copy[0] = to;
      else (copy[0] as { threadId: string }).threadId = to;
      return { method, args: copy };
    });
  let replayed = 0;
  const replay = async () => {
    for (const { method, args: callArgs } of replayOn(`${dir}-replay-${replayed++}`)) {
      await (store as Module)[method](...callArgs);
    }
  };

  // The rows the captured cycle stored, by the kind of write that stored them.
  const { rows } = await db.query(
    `select thread_id, ns, id, parent_id, step, source, created_at, payload
       from stateweaver_checkpoints where thread_id = $1 order by id`,
    [capturedThread],
  );
  const kindOf = new Map<string, string>();
  for (const { method, args: callArgs } of calls) {
    if (method === "put" || method === "putAndRelease") {
      kindOf.set((callArgs[0] as { id: string }).id, method);
    }
  }
  await db.exec("create table bench_raw_checkpoints (like stateweaver_checkpoints including all)");
  const insert = `insert into bench_raw_checkpoints
    (thread_id, ns, id, parent_id, step, source, created_at, payload)
    values ($1, $2, $3, $4, $5, $6, $7, $8)`;
  let rawId = 0;
  const rawOf = (kind: string, query: (text: string, params: unknown[]) => Promise<unknown>) => {
    const from = rows.filter((row: Module) => kindOf.get(row.id) === kind);
    let next = 0;
    return async () => {
      const row = from[next++ % from.length];
      const createdAt =
        row.created_at instanceof Date ? row.created_at.toISOString() : row.created_at;
      await query(insert, [
        row.thread_id,
        row.ns,
        `raw-${rawId++}`,
        row.parent_id,
        row.step,
        row.source,
        createdAt,
        row.payload,
      ]);
    };
  };
  const prepared = (text: string, params: unknown[]) =>
    (driver.queryPrepared ?? driver.query)(text, params);
  const raws = {
    "raw insert, db.query (S6's), put rows": rawOf("put", (t, p) => db.query(t, p)),
    "raw insert, db.query (S6's), putAndRelease rows": rawOf("putAndRelease", (t, p) =>
      db.query(t, p),
    ),
    "raw insert, prepared, put rows": rawOf("put", prepared),
    "raw insert, prepared, putAndRelease rows": rawOf("putAndRelease", prepared),
  };
  /** Times `n` raw inserts one by one, wall and CPU, with their exchanges. */
  const timeRaw = async (op: () => Promise<void>, n: number) => {
    const out: WriteTimes[] = [];
    for (let i = 0; i < n; i++) {
      const ex = { ...rawExchanges };
      const t0 = stamp();
      await op();
      const t1 = stamp();
      const wall = t1.wall - t0.wall;
      out.push({
        kind: "",
        encode: Number.NaN,
        "to wasm": Number.NaN,
        wasm: rawExchanges.wall - ex.wall,
        back: Number.NaN,
        wall,
        cpu: t1.cpu - t0.cpu,
        "mean wall": wall,
        exchanges: rawExchanges.n - ex.n,
      });
    }
    return out;
  };
  for (const op of Object.values(raws)) for (let i = 0; i < 100; i++) await op();
  for (let i = 0; i < 100; i++) await replay();

  return {
    dir,
    /** One round: a batch of cycles, of replays, of each raw insert; per-write medians. */
    async round(into: Map<string, WriteTimes[]>) {
      const add = (label: string, list: WriteTimes[]) => {
        const byKind = new Map<string, WriteTimes[]>();
        for (const t of list) byKind.set(t.kind, [...(byKind.get(t.kind) ?? []), t]);
        for (const [kind, ts] of byKind) {
          const key = `${label}${kind}`;
          into.set(key, [...(into.get(key) ?? []), medianTimes(ts)]);
        }
      };
      globalThis.gc?.();
      times.length = 0;
      recording = true;
      for (let i = 0; i < batch; i++) await cycle();
      add("cycle: ", times.splice(0));
      for (let i = 0; i < batch; i++) await replay();
      recording = false;
      add("alone: ", times.splice(0));
      for (const [label, op] of Object.entries(raws)) {
        add(label, await timeRaw(op, batch));
      }
    },
    async close() {
      await store.close();
      await db.close();
    },
  };
}

/** Medians of a batch's writes (of rounds' figures), and the mean wall time S6 counts. */
function medianTimes(ts: WriteTimes[], overRounds = false): WriteTimes {
  const out = { kind: ts[0]!.kind, exchanges: median(ts.map((t) => t.exchanges)) } as WriteTimes;
  for (const c of COLUMNS) out[c] = median(ts.map((t) => t[c]));
  if (!overRounds) out["mean wall"] = ts.reduce((sum, t) => sum + t.wall, 0) / ts.length;
  return out;
}

const builds = [];
for (const dir of dirs) builds.push(await setUp(dir));
const results = builds.map(() => new Map<string, WriteTimes[]>());
for (let r = 0; r < rounds; r++) {
  // Builds in turn, the order flipped every round.
  const order = r % 2 === 0 ? builds.map((_, i) => i) : builds.map((_, i) => builds.length - 1 - i);
  for (const i of order) await builds[i]!.round(results[i]!);
}
for (const build of builds) await build.close();

const f = (x: number) => x.toFixed(1);
for (const [i, build] of builds.entries()) {
  console.log(
    `\n${build.dir}: µs per write, medians over ${rounds} rounds of the medians of ${batch} writes (mean wall: of the rounds' means)`,
  );
  console.log(`${"write".padEnd(50)} ${COLUMNS.map((c) => c.padStart(9)).join(" ")}  exchanges`);
  const sorted = [...results[i]!.entries()].sort(([a], [b]) => a.localeCompare(b));
  for (const [key, list] of sorted) {
    const med = medianTimes(list, true);
    const cells = COLUMNS.map((c) => (Number.isNaN(med[c]) ? "" : f(med[c])).padStart(9));
    console.log(`${key.padEnd(50)} ${cells.join(" ")}  ${med.exchanges}`);
  }
}
