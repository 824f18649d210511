import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { PGlite } from "@electric-sql/pglite";
import { afterAll, describe, expect, it } from "vitest";
import { PGliteCheckpointer } from "../../src/checkpoint/index.js";
import { cleanTarball, imageKey, writeImage } from "../../src/checkpoint/pglite-image.js";
import type { Query } from "../../src/checkpoint/sql/index.js";
import { migrate } from "../../src/checkpoint/sql/migrations.js";
import { tables } from "../../src/checkpoint/sql/statements.js";
import { makeCheckpoint } from "../../src/testing/index.js";

// New stores start from a prepared image (src/checkpoint/pglite-image.ts) instead of initdb.
// Timings are in test/bench/pglite-open.ts, not here.

const PREFIX = "imagetest_";

/** The schema versions the migrations lead to: what a migration from nothing records. */
async function currentVersions(): Promise<number[]> {
  const recorded: number[] = [];
  const query: Query = async (text, params) => {
    if (text.startsWith(`insert into ${PREFIX}schema_version`)) recorded.push(Number(params?.[0]));
    return { rows: [{ version: 0 }], rowCount: 1 };
  };
  await migrate({ query, transaction: (fn) => fn(query) }, tables(PREFIX));
  return recorded;
}

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});
async function scratch(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "stateweaver-image-"));
  dirs.push(dir);
  return dir;
}

async function roundTrip(store: PGliteCheckpointer): Promise<void> {
  const first = makeCheckpoint("t1", "", null, -1);
  await store.put(first, { expectedLatestId: null });
  await store.putWrites("t1", "", first.id, { taskId: "k", node: "a", writes: [["x", 1]] });
  expect(await store.getLatest("t1")).toEqual({
    checkpoint: first,
    pendingWrites: [{ taskId: "k", node: "a", writes: [["x", 1]] }],
  });
}

/** The schema versions a directory's database records, and when each was applied. */
async function versions(dataDir: string): Promise<Array<{ version: number; applied_at: Date }>> {
  const db = new PGlite(dataDir);
  try {
    const { rows } = await db.query<{ version: number; applied_at: Date }>(
      `select version, applied_at from ${PREFIX}schema_version order by version`,
    );
    return rows;
  } finally {
    await db.close();
  }
}

describe("PGliteCheckpointer prepared images", () => {
  it("makes the image from the first new database, then starts new memory:// and directory stores from it with the current schema", async () => {
    const imageCacheDir = await scratch();
    const first = new PGliteCheckpointer({ tablePrefix: PREFIX, imageCacheDir });
    await roundTrip(first);
    await first.close();
    const images = await readdir(imageCacheDir);
    expect(images).toEqual([expect.stringMatching(/^pglite-image-[0-9a-f]{32}\.tar\.gz$/)]);

    const memory = new PGliteCheckpointer({ tablePrefix: PREFIX, imageCacheDir });
    await roundTrip(memory);
    await memory.close();

    const opened = new Date();
    const dataDir = join(await scratch(), "db");
    const directory = new PGliteCheckpointer({ dataDir, tablePrefix: PREFIX, imageCacheDir });
    await roundTrip(directory);
    await directory.close();
    const applied = await versions(dataDir);
    expect(applied.map((row) => row.version)).toEqual(await currentVersions());
    expect(applied.length).toBeGreaterThan(0);
    // Migrated before this store opened: the directory came from the image, not initdb.
    for (const row of applied) expect(row.applied_at.getTime()).toBeLessThan(opened.getTime());
    // Nothing of the image's maker came along: no lock, no server pid.
    const files = await readdir(dataDir);
    expect(files).toContain("PG_VERSION");
    expect(files).not.toContain("stateweaver.lock");
    expect(files).not.toContain("postmaster.pid");

    // Reopened, it is an existing database: its data is there.
    const again = new PGliteCheckpointer({ dataDir, tablePrefix: PREFIX, imageCacheDir });
    try {
      expect((await again.getLatest("t1"))?.checkpoint.threadId).toBe("t1");
    } finally {
      await again.close();
    }
  }, 120_000);

  it("replaces a damaged image file with a good one", async () => {
    const imageCacheDir = await scratch();
    const key = await imageKey(PREFIX);
    const file = join(imageCacheDir, `pglite-image-${key}.tar.gz`);
    await writeFile(file, "not a tarball");
    const store = new PGliteCheckpointer({
      dataDir: join(await scratch(), "db"),
      tablePrefix: PREFIX,
      imageCacheDir,
    });
    await roundTrip(store);
    await store.close();
    expect((await readdir(imageCacheDir)).length).toBe(1);
    const again = new PGliteCheckpointer({ tablePrefix: PREFIX, imageCacheDir });
    try {
      await roundTrip(again);
    } finally {
      await again.close();
    }
  }, 120_000);

  it("keys an image by schema: another table prefix, another image", async () => {
    expect(await imageKey(PREFIX)).toBe(await imageKey(PREFIX));
    expect(await imageKey(PREFIX)).not.toBe(await imageKey("other_"));
    expect(await imageKey(PREFIX)).toMatch(/^[0-9a-f]{32}$/);
  });

  it("drops the maker's pid and lock files from an image and puts PG_VERSION last", () => {
    const tarball = tar([
      ["/PG_VERSION", "18\n"],
      ["/postmaster.pid", "42\n"],
      ["/stateweaver.lock", "{}\n"],
      ["/base/1/1259", "x".repeat(700)],
    ]);
    expect(names(cleanTarball(tarball))).toEqual(["/base/1/1259", "/PG_VERSION"]);
    expect(cleanTarball(tarball).length % 512).toBe(0);
  });

  it("writes an image's files into a new directory itself, and refuses an entry that would leave it", async () => {
    const dir = await scratch();
    const image = gzipSync(
      tar([
        ["/base/1/1259", "x".repeat(700)],
        ["/PG_VERSION", "18\n"],
      ]),
    );
    expect((await writeImage(image, dir)).sort()).toEqual(["PG_VERSION", "base"]);
    expect(await readFile(join(dir, "base", "1", "1259"), "utf8")).toBe("x".repeat(700));
    expect(await readFile(join(dir, "PG_VERSION"), "utf8")).toBe("18\n");

    const escaping = gzipSync(tar([["/../outside", "no"]]));
    const other = await scratch();
    await expect(writeImage(escaping, join(other, "db"))).rejects.toThrow(/outside its directory/);
    expect(await readdir(other)).toEqual([]);
  });
});

/** A minimal ustar tarball of regular files. */
function tar(files: Array<[string, string]>): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const [name, content] of files) {
    const data = new TextEncoder().encode(content);
    const header = new Uint8Array(512);
    header.set(new TextEncoder().encode(name), 0);
    header.set(new TextEncoder().encode(data.length.toString(8).padStart(11, "0")), 124);
    header.set(new TextEncoder().encode("ustar"), 257);
    parts.push(header, data, new Uint8Array((512 - (data.length % 512)) % 512));
  }
  parts.push(new Uint8Array(1024));
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

function names(tarball: Uint8Array): string[] {
  const found: string[] = [];
  for (let at = 0; at + 512 <= tarball.length; ) {
    const header = tarball.subarray(at, at + 512);
    if (header.every((byte) => byte === 0)) break;
    const name = new TextDecoder().decode(header.subarray(0, 100)).replace(/\0.*$/s, "");
    const size = Number.parseInt(new TextDecoder().decode(header.subarray(124, 135)), 8);
    found.push(name);
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return found;
}
