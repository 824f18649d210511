import { describe, expect, it } from "vitest";
import type { SqlCheckpointer } from "../../src/checkpoint/sql/index.js";
import { serverOnStore, serverStores } from "./fixtures/server-stores.js";

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

describe.each(serverStores)("store.ttl through the SDK client (%s)", (_name, enabled, open) => {
  const on = serverOnStore(
    enabled,
    open,
    // 2.4 s to live, swept every 0.6 s.
    { storeTtl: { defaultTtl: 0.04, refreshOnRead: true, sweepIntervalMinutes: 0.01 } },
    { callerOptions: { maxRetries: 0 } },
  );

  /** Whether the row is still in the table (expired rows are invisible to the API). */
  const rowKept = async (key: string) => {
    const checkpointer = on.running.checkpointer as SqlCheckpointer;
    const driver = await checkpointer.sharedDriver();
    const { rows } = await driver.query(
      `select 1 from ${checkpointer.tablePrefix}store_items where prefix = 'ttl' and key = $1`,
      [key],
    );
    return rows.length > 0;
  };

  it.skipIf(!enabled)(
    "a put without ttl expires after default_ttl unless read, ttl null never, and the sweep deletes it",
    async () => {
      await on.client.store.putItem(["ttl"], "plain", { v: 1 });
      await on.client.store.putItem(["ttl"], "got", { v: 2 });
      await on.client.store.putItem(["ttl"], "searched", { v: 3 });
      await on.client.store.putItem(["ttl"], "forever", { v: 4 }, { ttl: null });
      await sleep(1500);
      // Reads that do not say refresh the TTL (refresh_on_read); this one says not to.
      expect(await on.client.store.getItem(["ttl"], "got")).not.toBeNull();
      expect(await on.client.store.getItem(["ttl"], "plain", { refreshTtl: false })).not.toBeNull();
      const found = await on.client.store.searchItems(["ttl"], { filter: { v: 3 } });
      expect(found.items.map((i) => i.key)).toEqual(["searched"]);
      await sleep(1500);
      expect(await on.client.store.getItem(["ttl"], "plain")).toBeNull();
      for (const key of ["got", "searched", "forever"]) {
        expect(await on.client.store.getItem(["ttl"], key, { refreshTtl: false })).not.toBeNull();
      }
      // No put came by since "plain" expired: only the sweep deletes its row.
      await sleep(1000);
      expect(await rowKept("plain")).toBe(false);
      expect(await rowKept("forever")).toBe(true);
    },
    20_000,
  );
});
