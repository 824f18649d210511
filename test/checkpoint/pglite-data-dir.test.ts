import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { afterAll, describe, expect, it } from "vitest";
import { PGliteCheckpointer } from "../../src/checkpoint/index.js";
import { makeCheckpoint } from "../../src/testing/index.js";

// Its own file so that its PGlite start-up runs in parallel with pglite.test.ts.

const checkpoint = (threadId: string, parentId: string | null, step: number) =>
  makeCheckpoint(threadId, "", parentId, step);

describe("PGliteCheckpointer with a data directory", () => {
  const dirs: string[] = [];
  afterAll(async () => {
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  });

  it("keeps checkpoints across close and reopen, creating the directory if missing; or uses a given instance", async () => {
    const root = await mkdtemp(join(tmpdir(), "stateweaver-pglite-"));
    dirs.push(root);
    const dataDir = join(root, "nested", "db");

    const writer = new PGliteCheckpointer(dataDir);
    const first = checkpoint("t1", null, -1);
    const second = checkpoint("t1", first.id, 0);
    await writer.put(first, { expectedLatestId: null });
    await writer.put(second, { expectedLatestId: first.id });
    await writer.putWrites("t1", "", second.id, { taskId: "k", node: "a", writes: [["x", 1]] });
    await writer.close();

    const reader = new PGliteCheckpointer({ dataDir });
    try {
      expect(await reader.getLatest("t1")).toEqual({
        checkpoint: second,
        pendingWrites: [{ taskId: "k", node: "a", writes: [["x", 1]] }],
      });
      expect((await reader.list("t1")).map((c) => c.id)).toEqual([second.id, first.id]);
      // The head row survived too: a stale writer is still refused after reopening.
      await expect(
        reader.put(checkpoint("t1", first.id, 1), { expectedLatestId: first.id }),
      ).rejects.toMatchObject({ code: "CONCURRENT_UPDATE" });
    } finally {
      await reader.close();
    }

    // An instance you opened yourself: used as is (here with other tables), left open by close().
    const db = new PGlite(dataDir);
    try {
      const store = new PGliteCheckpointer({ db, tablePrefix: "custom_" });
      expect(await store.getLatest("t1")).toBeUndefined();
      const only = checkpoint("t1", null, -1);
      await store.put(only, { expectedLatestId: null });
      await store.close();

      expect(db.closed).toBe(false);
      const { rows } = await db.query<{ id: string }>("select id from custom_checkpoints");
      expect(rows).toEqual([{ id: only.id }]);
      await expect(store.getLatest("t1")).rejects.toMatchObject({ code: "CHECKPOINTER_CLOSED" });
      const again = new PGliteCheckpointer({ db });
      expect((await again.getLatest("t1"))?.checkpoint).toEqual(second);
    } finally {
      await db.close();
    }
  });
});
