import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { describe, expect, it } from "vitest";
import {
  MemoryCheckpointer,
  PGliteCheckpointer,
  PostgresCheckpointer,
} from "../../src/checkpoint/index.js";
import { MemoryStore, SqlStore, storeFor } from "../../src/store/index.js";
import { describeStoreConformance } from "../../src/testing/index.js";
import { dropStoreTables } from "../setup/store-tables.js";

describeStoreConformance("MemoryStore", () => new MemoryStore());

const pglite = new PGliteCheckpointer("memory://");
describeStoreConformance("SqlStore on PGlite (storeFor)", () => storeFor(pglite), {
  cleanup: () => pglite.close(),
});

const url = process.env.STATEWEAVER_PG_URL;
describe.skipIf(!url)("on PostgreSQL", () => {
  const tablePrefix = `sw_test_${randomUUID().slice(0, 8)}_`;
  const checkpointer = new PostgresCheckpointer({ connectionString: url!, tablePrefix });
  describeStoreConformance("SqlStore on PostgreSQL (storeFor)", () => storeFor(checkpointer), {
    cleanup: async () => {
      await checkpointer.close();
      const pool = new pg.Pool({ connectionString: url });
      await pool.query(`drop table if exists ${tablePrefix}store_items`);
      await dropStoreTables(pool, tablePrefix);
      await pool.end();
    },
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
