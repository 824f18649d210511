import { createHash, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { homedir } from "node:os";
import { dirname, join, resolve, sep } from "node:path";
import { promisify } from "node:util";
import { gunzip, gzip } from "node:zlib";
import { LOCK_FILE } from "./data-dir-lock.js";
import type { Query } from "./sql/index.js";
import { type MigrationOptions, migrate } from "./sql/migrations.js";
import { tables } from "./sql/statements.js";

/** One process owns a PGlite database: it needs no thread-change triggers to tell others. */
export const PGLITE_MIGRATIONS: MigrationOptions = { threadChanges: false };

/**
 * A prepared image: the tarball of a data directory that Postgres' initdb made and our
 * migrations brought to the current schema, as `PGlite#dumpDataDir` writes it. Loading
 * one (`loadDataDir`) replaces initdb, which costs seconds and a second Postgres instance
 * on every new database (docs/benchmarks.md, "Opening PGlite").
 *
 * Images are made on first need, from the first new database a store opens, and kept in
 * this process and in a cache directory. Their name holds a key over everything that
 * shapes them (the PGlite version, the schema statements, this format), so an image is
 * never used for another version or schema: a change makes a new key and a new image.
 */

/** Bump when what goes into an image, or how, changes. */
const IMAGE_FORMAT = 1;

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

/**
 * Images this process has (gzipped), by cache directory and key: made or read once,
 * shared by every store.
 */
const loaded = new Map<string, Promise<Uint8Array | undefined>>();

function memoKey(key: string, cacheDir: string | false): string {
  return `${cacheDir === false ? "" : cacheDir}\0${key}`;
}

/** Where images are cached on disk when the store's options do not say. */
export function defaultImageCacheDir(): string {
  const base = process.env.XDG_CACHE_HOME || join(homedir(), ".cache");
  return join(base, "stateweaver");
}

/**
 * The key of the image for a table prefix: a hash over the PGlite version, the schema
 * statements the migrations run for that prefix, and the image format. Undefined when the
 * PGlite version cannot be read; then no image is used.
 */
export async function imageKey(tablePrefix: string): Promise<string | undefined> {
  const version = pgliteVersion();
  if (version === undefined) return undefined;
  const statements: string[] = [];
  // The migrations, run against a recorder that says "no schema yet": every statement.
  const record: Query = async (text, params) => {
    statements.push(text, JSON.stringify(params ?? []));
    return { rows: [{ version: 0 }], rowCount: 1 };
  };
  await migrate(
    { query: record, transaction: (fn) => fn(record) },
    tables(tablePrefix),
    PGLITE_MIGRATIONS,
  );
  return createHash("sha256")
    .update(JSON.stringify({ format: IMAGE_FORMAT, pglite: version, statements }))
    .digest("hex")
    .slice(0, 32);
}

/**
 * The image with this key, gzipped: from this process, else from the cache directory,
 * else undefined. `unpackImage` makes of it what `loadDataDir` takes.
 */
export function readImage(key: string, cacheDir: string | false): Promise<Uint8Array | undefined> {
  const memo = memoKey(key, cacheDir);
  let image = loaded.get(memo);
  if (!image) {
    const reading =
      cacheDir === false ? Promise.resolve(undefined) : readCached(imageFile(cacheDir, key));
    image = reading;
    loaded.set(memo, reading);
    // Nothing on disk yet: the next store may find what another process has made meanwhile.
    void reading.then((found) => {
      if (!found && loaded.get(memo) === reading) loaded.delete(memo);
    });
  }
  return image;
}

/**
 * An image as `loadDataDir` takes it: the uncompressed tarball. Unpacked here (zlib, off
 * the main thread) rather than by PGlite: a damaged file fails here, before anything is
 * written to a data directory, and Node's zlib is faster than the stream PGlite uses.
 */
export async function unpackImage(image: Uint8Array): Promise<Blob> {
  const tarball: Uint8Array = await gunzipAsync(image);
  return new Blob([tarball], { type: "application/x-tar" });
}

/**
 * Writes an image's files into an empty data directory, `PG_VERSION` last, so PGlite then
 * opens it as an existing database. For a directory this replaces `loadDataDir`: PGlite
 * keeps its options, the tarball among them, for the instance's life (~40 MB of buffers,
 * and a larger heap), where the files written here are let go at once. Entries that would
 * leave the directory are refused. Returns the top-level names written, so a failed open
 * can take them away again.
 */
export async function writeImage(image: Uint8Array, dir: string): Promise<string[]> {
  const tarball: Uint8Array = await gunzipAsync(image);
  const written = new Set<string>();
  const root = resolve(dir);
  let offset = 0;
  while (offset + BLOCK <= tarball.length) {
    const header = tarball.subarray(offset, offset + BLOCK);
    if (header.every((byte) => byte === 0)) break;
    const size = Number.parseInt(text(header, 124, 12).trim() || "0", 8);
    const body = tarball.subarray(offset + BLOCK, offset + BLOCK + size);
    offset += BLOCK + Math.ceil(size / BLOCK) * BLOCK;
    const name = entryName(header)
      .replace(/^\.?\/+/, "")
      .replace(/\/+$/, "");
    const target = resolve(root, name);
    if (!name || (target !== root && !target.startsWith(`${root}${sep}`))) {
      throw new Error(`The prepared image has an entry outside its directory: ${name}`);
    }
    written.add(name.split("/")[0]!);
    const type = String.fromCharCode(header[156] ?? 0);
    if (type === "5") await mkdir(target, { recursive: true, mode: 0o700 });
    else if (type === "0" || type === "\0") {
      await mkdir(dirname(target), { recursive: true, mode: 0o700 });
      await writeFile(target, body, { mode: 0o600 });
    }
  }
  return [...written];
}

/**
 * Keeps a data directory's dump (an uncompressed tarball) as the image with this key.
 * Drops what must not be copied into another directory (the running server's
 * `postmaster.pid`, our lock file) and puts `PG_VERSION` last, so that a directory
 * whose loading stopped half-way does not pass for a database. Writes the cache file
 * atomically; a cache directory that cannot be written only loses the speed-up.
 */
export async function saveImage(key: string, cacheDir: string | false, dump: Blob): Promise<void> {
  const tarball = cleanTarball(new Uint8Array(await dump.arrayBuffer()));
  const image = new Uint8Array(await gzipAsync(tarball));
  loaded.set(memoKey(key, cacheDir), Promise.resolve(image));
  if (cacheDir === false) return;
  const file = imageFile(cacheDir, key);
  const temporary = `${file}.${randomUUID()}.tmp`;
  try {
    await mkdir(cacheDir, { recursive: true });
    await writeFile(temporary, image);
    await rename(temporary, file);
  } catch {
    await rm(temporary, { force: true }).catch(() => undefined);
  }
}

/** Forgets an image that failed to load, here and on disk, so the next store makes a new one. */
export async function forgetImage(key: string, cacheDir: string | false): Promise<void> {
  loaded.delete(memoKey(key, cacheDir));
  if (cacheDir !== false)
    await rm(imageFile(cacheDir, key), { force: true }).catch(() => undefined);
}

function imageFile(cacheDir: string, key: string): string {
  return join(cacheDir, `pglite-image-${key}.tar.gz`);
}

async function readCached(file: string): Promise<Uint8Array | undefined> {
  try {
    return new Uint8Array(await readFile(file));
  } catch {
    return undefined;
  }
}

function pgliteVersion(): string | undefined {
  try {
    const require = createRequire(import.meta.url);
    // The entry point is `<package>/dist/index.cjs`.
    const entry = require.resolve("@electric-sql/pglite");
    const manifest = JSON.parse(readFileSync(join(dirname(entry), "..", "package.json"), "utf8"));
    return manifest.name === "@electric-sql/pglite" ? String(manifest.version) : undefined;
  } catch {
    return undefined;
  }
}

const BLOCK = 512;
/** Files of a running database that another directory must not get. */
const DROPPED = new Set(["postmaster.pid", "postmaster.opts", LOCK_FILE]);

/**
 * A ustar tarball without the `DROPPED` top-level files and with `PG_VERSION` moved to
 * the end (PGlite takes a directory with `PG_VERSION` for a database).
 */
export function cleanTarball(tarball: Uint8Array): Uint8Array {
  const kept: Uint8Array[] = [];
  let version: Uint8Array | undefined;
  let offset = 0;
  while (offset + BLOCK <= tarball.length) {
    const header = tarball.subarray(offset, offset + BLOCK);
    if (header.every((byte) => byte === 0)) break; // the end-of-archive blocks
    const size = Number.parseInt(text(header, 124, 12).trim() || "0", 8);
    const end = offset + BLOCK + Math.ceil(size / BLOCK) * BLOCK;
    const entry = tarball.subarray(offset, end);
    const name = entryName(header).replace(/^\.?\/+/, "");
    if (name === "PG_VERSION") version = entry;
    else if (!DROPPED.has(name)) kept.push(entry);
    offset = end;
  }
  if (version) kept.push(version);
  kept.push(new Uint8Array(2 * BLOCK));
  const out = new Uint8Array(kept.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of kept) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

function entryName(header: Uint8Array): string {
  const name = text(header, 0, 100);
  const ustar = text(header, 257, 5) === "ustar";
  const prefix = ustar ? text(header, 345, 155) : "";
  return prefix ? `${prefix}/${name}` : name;
}

function text(bytes: Uint8Array, start: number, length: number): string {
  const field = bytes.subarray(start, start + length);
  const nul = field.indexOf(0);
  return new TextDecoder().decode(nul < 0 ? field : field.subarray(0, nul));
}
