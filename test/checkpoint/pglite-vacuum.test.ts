import { randomBytes } from "node:crypto";
import { readdirSync, statSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PGliteCheckpointer } from "../../src/checkpoint/index.js";
import { makeCheckpoint } from "../../src/testing/index.js";

/** Bytes the directory's files take, recursively. */
function sizeOf(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    total += entry.isDirectory() ? sizeOf(path) : statSync(path).size;
  }
  return total;
}

const MB = 1024 * 1024;

/** Puts `count` threads of two checkpoints and a write, each ~40 KB nobody can compress. */
async function fill(store: PGliteCheckpointer, prefix: string, count: number): Promise<string[]> {
  const threads: string[] = [];
  for (let i = 0; i < count; i++) {
    const threadId = `${prefix}-${i}`;
    const first = makeCheckpoint(threadId, "", null, -1, {
      values: { blob: randomBytes(30_000).toString("base64") },
    });
    await store.put(first, { expectedLatestId: null });
    const second = makeCheckpoint(threadId, "", first.id, 0, {
      values: { blob: randomBytes(30_000).toString("base64") },
    });
    await store.put(second, { expectedLatestId: first.id });
    await store.putWrites(threadId, "", second.id, { taskId: "t", node: "n", writes: [] });
    threads.push(threadId);
  }
  return threads;
}

let dataDir: string;
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "stateweaver-vacuum-"));
});
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

describe("PGliteCheckpointer reclaims the space of deleted threads", () => {
  it("the data directory shrinks after a burst of deletes, and after close(); a few deletes do not vacuum each time", async () => {
    const store = new PGliteCheckpointer(dataDir);
    try {
      const many = await fill(store, "many", 250);
      const full = sizeOf(dataDir);
      // 250 threads are 1,000 rows (head, two checkpoints, a write each): a vacuum follows.
      for (const threadId of many) await store.deleteThread(threadId);
      const deadline = Date.now() + 10_000;
      while (sizeOf(dataDir) > full - 15 * MB && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(sizeOf(dataDir)).toBeLessThan(full - 15 * MB);

      // 400 rows: no vacuum while open, even after the delay; close() runs it.
      const few = await fill(store, "few", 100);
      const before = sizeOf(dataDir);
      for (const threadId of few) await store.deleteThread(threadId);
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      expect(sizeOf(dataDir)).toBeGreaterThan(before - MB);
      await store.close();
      expect(sizeOf(dataDir)).toBeLessThan(before - 4 * MB);
    } finally {
      await store.close();
    }
  }, 60_000);
});
