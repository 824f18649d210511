import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import {
  MemoryCheckpointer,
  PGliteCheckpointer,
  PostgresCheckpointer,
} from "../../src/checkpoint/index.js";
import { InvalidStoreRequestError } from "../../src/errors/index.js";
import { MemoryStore, SqlStore, storeFor } from "../../src/store/index.js";
import { describeStoreConformance, wordEmbeddings } from "../../src/testing/index.js";
import { describeSemanticSearch } from "../../src/testing/semantic-search-cases.js";
import { dropStoreTables } from "../setup/store-tables.js";

describeStoreConformance("MemoryStore", () => new MemoryStore(), {
  makeIndexedStore: (index) => new MemoryStore({ index }),
  makeTtlStore: (ttl) => new MemoryStore({ ttl }),
});

const pglite = new PGliteCheckpointer("memory://");
// Embeddings in pgvector's type: @electric-sql/pglite-pgvector is a devDependency.
describeStoreConformance("SqlStore on PGlite (storeFor)", () => storeFor(pglite), {
  cleanup: () => pglite.close(),
  makeIndexedStore: (index) => storeFor(pglite, { index }),
  makeTtlStore: (ttl) => storeFor(pglite, { ttl }),
});

describe("semantic search on PGlite without pgvector", () => {
  // The fallback of a PGlite without @electric-sql/pglite-pgvector: real[] and SQL sums.
  const checkpointer = new PGliteCheckpointer("memory://");
  const store = storeFor(checkpointer);
  describeSemanticSearch(
    (index) => storeFor(checkpointer, { index, vectors: "array" }),
    () => store,
  );
  afterAll(() => checkpointer.close());
});

const url = process.env.STATEWEAVER_PG_URL;
describe.skipIf(!url)("on PostgreSQL", () => {
  const tablePrefix = `sw_test_${randomUUID().slice(0, 8)}_`;
  const checkpointer = new PostgresCheckpointer({ connectionString: url!, tablePrefix });
  // Embeddings in pgvector's type where the server has the extension, else in real[].
  describeStoreConformance("SqlStore on PostgreSQL (storeFor)", () => storeFor(checkpointer), {
    makeIndexedStore: (index) => storeFor(checkpointer, { index }),
    makeTtlStore: (ttl) => storeFor(checkpointer, { ttl }),
    cleanup: async () => {
      await checkpointer.close();
      const pool = new pg.Pool({ connectionString: url });
      await pool.query(`drop table if exists ${tablePrefix}store_items cascade`);
      await pool.query(`drop table if exists ${tablePrefix}store_items_vectors`);
      await dropStoreTables(pool, tablePrefix);
      await pool.end();
    },
  });
});

describe.skipIf(!url)("semantic search on PostgreSQL without pgvector", () => {
  // The fallback a user's PostgreSQL gets when it has no pgvector: real[] and SQL sums.
  const tablePrefix = `sw_test_${randomUUID().slice(0, 8)}_`;
  const checkpointer = new PostgresCheckpointer({ connectionString: url!, tablePrefix });
  const store = storeFor(checkpointer);
  describeSemanticSearch(
    (index) =>
      new SqlStore({
        driver: () => checkpointer.sharedDriver(),
        tablePrefix,
        index,
        vectors: "array",
      }),
    () => store,
  );
  afterAll(async () => {
    await checkpointer.close();
    const pool = new pg.Pool({ connectionString: url });
    await pool.query(`drop table if exists ${tablePrefix}store_items cascade`);
    await pool.query(`drop table if exists ${tablePrefix}store_items_vectors`);
    await dropStoreTables(pool, tablePrefix);
    await pool.end();
  });
});

describe("where SqlStore keeps embeddings", () => {
  const index = { dims: 8, embed: wordEmbeddings(8), fields: ["text"] };

  it("PGlite keeps them in pgvector's vector type where @electric-sql/pglite-pgvector is installed", async () => {
    const checkpointer = new PGliteCheckpointer("memory://");
    try {
      const store = storeFor(checkpointer, { index }) as SqlStore;
      expect(await store.vectorColumn()).toBe("pgvector");
      expect(await storeFor(checkpointer).search([])).toEqual([]);
      expect(await (storeFor(checkpointer) as SqlStore).vectorColumn()).toBeUndefined();
    } finally {
      await checkpointer.close();
    }
  }, 60_000);

  it("a PGlite directory whose embeddings are pgvector's, opened without the extension, is refused with the fix", async () => {
    const dir = await mkdtemp(join(tmpdir(), "stateweaver-store-"));
    try {
      const first = new PGliteCheckpointer(dir);
      await storeFor(first, { index }).put(["docs"], "a", { text: "hello" });
      await first.close();
      // An instance opened by its user without extensions: the table's type cannot load.
      const { PGlite } = await import("@electric-sql/pglite");
      const db = new PGlite(dir);
      const second = new PGliteCheckpointer({ db });
      try {
        const refused = storeFor(second, { index }).search(["docs"], { query: "hello" });
        await expect(refused).rejects.toBeInstanceOf(InvalidStoreRequestError);
        await expect(refused).rejects.toThrow(
          /cannot load pgvector.*@electric-sql\/pglite-pgvector/,
        );
        expect((await storeFor(second).get(["docs"], "a"))?.value).toEqual({ text: "hello" });
      } finally {
        await second.close();
        await db.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000); // two PGlite opens of a directory

  describe.skipIf(!url)("on PostgreSQL", () => {
    const tablePrefix = `sw_test_${randomUUID().slice(0, 8)}_`;
    const checkpointer = new PostgresCheckpointer({ connectionString: url!, tablePrefix });
    const pool = new pg.Pool({ connectionString: url });
    afterAll(async () => {
      await checkpointer.close();
      await pool.query(`drop table if exists ${tablePrefix}store_items cascade`);
      await pool.query(`drop table if exists ${tablePrefix}store_items_vectors`);
      await dropStoreTables(pool, tablePrefix);
      await pool.end();
    });

    it("uses pgvector's vector type where the server has the extension", async (ctx) => {
      const { rows } = await pool.query(
        "select 1 from pg_available_extensions where name = 'vector'",
      );
      if (rows.length === 0) ctx.skip("this PostgreSQL has no pgvector (.ci/run installs it)");
      expect(await (storeFor(checkpointer, { index }) as SqlStore).vectorColumn()).toBe("pgvector");
    });

    it("refuses an index whose dims differ from the stored embeddings', or another column kind", async () => {
      const store = storeFor(checkpointer, { index });
      await store.put(["docs"], "a", { text: "hello" });
      const other = storeFor(checkpointer, { index: { ...index, dims: 4 } });
      await expect(other.search([])).rejects.toThrow(/8 dimensions, but the index says dims: 4/);
      const kind = await (store as SqlStore).vectorColumn();
      const forced = new SqlStore({
        driver: () => checkpointer.sharedDriver(),
        tablePrefix,
        index,
        vectors: kind === "array" ? "pgvector" : "array",
      });
      await expect(forced.search([])).rejects.toBeInstanceOf(InvalidStoreRequestError);
      // The items and their embeddings are untouched.
      expect((await store.search(["docs"], { query: "hello" }))[0]!.score).toBeCloseTo(1, 5);
    });
  });
});

describe("storeFor", () => {
  it("keeps items in the checkpointer's PGlite directory, so they survive a restart", async () => {
    const dir = await mkdtemp(join(tmpdir(), "stateweaver-store-"));
    try {
      const first = new PGliteCheckpointer(dir);
      await storeFor(first).put(["users", "u1"], "prefs", { theme: "dark" });
      await first.close();
      const second = new PGliteCheckpointer(dir);
      const item = await storeFor(second).get(["users", "u1"], "prefs");
      await second.close();
      expect(item?.value).toEqual({ theme: "dark" });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000); // two PGlite opens of a directory

  it("gives a SqlStore for the SQL checkpointers and a MemoryStore otherwise", () => {
    expect(storeFor(new PGliteCheckpointer("memory://"))).toBeInstanceOf(SqlStore);
    expect(storeFor(new MemoryCheckpointer())).toBeInstanceOf(MemoryStore);
  });
});
