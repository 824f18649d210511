/**
 * What semantic search costs in each store: puts (embedding stored with the item, in one
 * transaction) and searches by query, at several sizes, for the memory store, and PGlite
 * and PostgreSQL each with pgvector (on PGlite, @electric-sql/pglite-pgvector) and with the
 * real[] fallback. The embedder is instant (seeded random vectors), so the figures are the
 * store's own work; a real provider adds its round trip to every put and query.
 *
 *   npm run bench:store-search                          # 1k and 10k items, 1536 dims
 *   npm run bench:store-search -- --sizes 1000 --dims 256
 *   npm run bench:store-search -- --only memory,pglite  # variants starting with these
 *
 * PostgreSQL variants need STATEWEAVER_PG_URL; each uses tables of its own, dropped after.
 * Figures: put = mean ms per put while loading (one put after another); search = median ms
 * of 7 queries (limit 10) over all items, and over a namespace holding a tenth of them;
 * bytes/item = the embeddings table's size (SQL stores) divided by the items.
 */
import { randomUUID } from "node:crypto";
import pg from "pg";
import { PGliteCheckpointer, PostgresCheckpointer } from "../../src/checkpoint/index.js";
import { MemoryStore, SqlStore, type Store, type StoreIndexConfig } from "../../src/store/index.js";
import { dropStoreTables } from "../setup/store-tables.js";
import { loadAverage } from "./measure.js";

const arg = (name: string) => {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : undefined;
};
const sizes = (arg("sizes") ?? "1000,10000").split(",").map(Number);
const dims = Number(arg("dims") ?? 1536);
const only = arg("only")?.split(",");
const url = process.env.STATEWEAVER_PG_URL;

/** A seeded vector per text: the same text always embeds the same. */
function vectorOf(text: string): number[] {
  let seed = 0;
  for (let i = 0; i < text.length; i++) seed = (Math.imul(seed, 31) + text.charCodeAt(i)) | 0;
  const out = new Array<number>(dims);
  for (let i = 0; i < dims; i++) {
    seed = (Math.imul(seed, 1103515245) + 12345) | 0;
    out[i] = ((seed >>> 8) & 0xffff) / 0xffff - 0.5;
  }
  return out;
}
const index: StoreIndexConfig = {
  dims,
  fields: ["text"],
  embed: async (texts) => texts.map(vectorOf),
};

async function sizeOf(
  checkpointer: PGliteCheckpointer | PostgresCheckpointer,
  table: string,
): Promise<number> {
  const driver = await checkpointer.sharedDriver();
  const { rows } = await driver.query("select pg_total_relation_size($1) as n", [table]);
  return Number(rows[0]!.n);
}

interface Variant {
  name: string;
  open(): Promise<{ store: Store; vectorsBytes?: () => Promise<number>; close(): Promise<void> }>;
}

function postgres(name: string, vectors: "pgvector" | "array"): Variant {
  return {
    name,
    async open() {
      const tablePrefix = `sw_bench_${randomUUID().slice(0, 8)}_`;
      const checkpointer = new PostgresCheckpointer({ connectionString: url!, tablePrefix });
      const store = new SqlStore({
        driver: () => checkpointer.sharedDriver(),
        tablePrefix,
        index,
        vectors,
      });
      return {
        store,
        vectorsBytes: () => sizeOf(checkpointer, `${tablePrefix}store_items_vectors`),
        async close() {
          await checkpointer.close();
          const pool = new pg.Pool({ connectionString: url });
          await pool.query(`drop table if exists ${tablePrefix}store_items cascade`);
          await pool.query(`drop table if exists ${tablePrefix}store_items_vectors`);
          await dropStoreTables(pool, tablePrefix);
          await pool.end();
        },
      };
    },
  };
}

function pglite(name: string, vectors: "pgvector" | "array"): Variant {
  return {
    name,
    async open() {
      const checkpointer = new PGliteCheckpointer("memory://");
      const store = new SqlStore({ driver: () => checkpointer.sharedDriver(), index, vectors });
      return {
        store,
        vectorsBytes: () => sizeOf(checkpointer, "stateweaver_store_items_vectors"),
        close: () => checkpointer.close(),
      };
    },
  };
}

const variants: Variant[] = [
  {
    name: "memory (cosine in JS)",
    open: async () => ({ store: new MemoryStore({ index }), close: async () => {} }),
  },
  pglite("pglite (pgvector)", "pgvector"),
  pglite("pglite (real[], SQL)", "array"),
  ...(url
    ? [postgres("postgresql (pgvector)", "pgvector"), postgres("postgresql (real[], SQL)", "array")]
    : []),
].filter((v) => !only || only.some((o) => v.name.startsWith(o)));

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function timeSearch(store: Store, prefix: string[], queries: number): Promise<number> {
  const times: number[] = [];
  for (let q = 0; q < queries; q++) {
    const started = performance.now();
    const hits = await store.search(prefix, { query: `query ${q}`, limit: 10 });
    times.push(performance.now() - started);
    if (hits.length === 0 || hits[0]!.score === undefined) throw new Error("no scored hits");
  }
  return median(times);
}

const loadBefore = loadAverage();
const rows: string[] = [];
for (const variant of variants) {
  for (const size of sizes) {
    const { store, vectorsBytes, close } = await variant.open();
    try {
      await store.search([], { limit: 1 }); // open (and migrate) outside the timings
      const started = performance.now();
      for (let i = 0; i < size; i++) {
        await store.put(["bench", `part${i % 10}`], `k${i}`, { text: `item ${i}` });
      }
      const putMs = (performance.now() - started) / size;
      await store.search(["bench"], { query: "warm up", limit: 10 });
      const allMs = await timeSearch(store, ["bench"], 7);
      const tenthMs = await timeSearch(store, ["bench", "part3"], 7);
      const bytes = vectorsBytes ? String(Math.round((await vectorsBytes()) / size)) : "";
      const row = `| ${variant.name} | ${size} | ${putMs.toFixed(2)} | ${allMs.toFixed(1)} | ${tenthMs.toFixed(1)} | ${bytes} |`;
      rows.push(row);
      process.stderr.write(`${row}\n`);
    } finally {
      await close();
    }
  }
}
console.log(
  `dims ${dims}, limit 10; load average (1, 5, 15 min) ${loadBefore} before, ${loadAverage()} after\n`,
);
console.log("| store | items | put ms | search ms (all) | search ms (a tenth) | bytes/item |");
console.log("| --- | --- | --- | --- | --- | --- |");
for (const row of rows) console.log(row);
