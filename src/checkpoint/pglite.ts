import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import type { PGlite, PGliteInterface, PGliteOptions, Results } from "@electric-sql/pglite";
import { lockDataDir } from "./data-dir-lock.js";
import {
  defaultImageCacheDir,
  forgetImage,
  imageKey,
  PGLITE_MIGRATIONS,
  readImage,
  saveImage,
  unpackImage,
  writeImage,
} from "./pglite-image.js";
import { pgvectorForPGlite } from "./pglite-vector.js";
import { executeMessage } from "./pglite-wire.js";
import { DEFAULT_TABLE_PREFIX, type Query, SqlCheckpointer, type SqlDriver } from "./sql/index.js";
import { migrate } from "./sql/migrations.js";
import { tables } from "./sql/statements.js";

export interface PGliteCheckpointerOptions {
  /**
   * Where PGlite keeps its files: `"memory://"` (the default) for an in-memory database,
   * or a directory path (or `file://` URL), created if missing. One process owns a
   * directory: while a store has it open, another store (in any process) gets
   * `DataDirectoryLockedError`.
   */
  dataDir?: string;
  /**
   * An already open PGlite instance to use instead; `close()` leaves it open. The store
   * keeps its frequent statements prepared in that instance's session, under names
   * starting with `stateweaver_`. Whoever opened it makes sure no one else opens its
   * directory. It offers pgvector to the store only if it was opened with the
   * extension (`extensions: { vector }` from `@electric-sql/pglite-pgvector`).
   */
  db?: PGliteInterface;
  /** Prefix of the table names; `"stateweaver_"` by default. */
  tablePrefix?: string;
  /**
   * Where prepared images are kept between processes. A new database (`memory://`, or a
   * directory without one) starts from an image of an empty database with the current
   * schema instead of running Postgres' initdb, which takes seconds and a second Postgres
   * instance. The first new database on a machine makes the image. `false`: keep images
   * in this process only. Files there may be deleted at any time.
   *
   * @default `$XDG_CACHE_HOME/stateweaver`, else `~/.cache/stateweaver`
   * @see docs/benchmarks.md, "Opening PGlite"
   */
  imageCacheDir?: string | false;
  /**
   * See `Checkpointer.claimTtlMs` (default 4 s): how soon a process that opens the
   * directory after a crash can run on a thread the crashed one was running.
   */
  claimTtlMs?: number;
}

/**
 * PGlite has no autovacuum worker: space of deleted threads is reclaimed by a `VACUUM`
 * once deletes have removed this many rows (thread heads, checkpoints, pending writes)…
 */
const VACUUM_AFTER_ROWS = 1_000;
/** …this long after the delete that crossed it, so a burst of deletes vacuums once. */
const VACUUM_DELAY_MS = 2_000;

/**
 * Postgres settings for the instances the store opens, added to PGlite's start
 * parameters (they apply to each start, nothing is written to the directory). PGlite's
 * default 128MB of shared buffers is memory Postgres prepares at every start, for a cache
 * over files that are in this process's memory or the OS page cache anyway: 1MB holds
 * ~25MB less RSS than 16MB, which held ~110MB less than the default, and the store's
 * queries measured no slower (docs/benchmarks.md, "Opening PGlite", "The server's weight").
 */
const START_SETTINGS = ["shared_buffers=1MB"];

/**
 * Checkpoints in PGlite, an embedded PostgreSQL: durable with a data directory, no
 * server to run. Starts lazily (PGlite is loaded and the tables are created on first use).
 *
 * A data directory belongs to one process at a time (a lock file in it,
 * `stateweaver.lock`, says which); for several processes run the stateweaver server, or
 * use `PostgresCheckpointer`. Space of deleted threads is reclaimed by a `VACUUM` after
 * a burst of deletes and on `close()` (see docs/storage-limits.md). Where the package
 * `@electric-sql/pglite-pgvector` is installed, the instances it opens offer pgvector, and
 * `storeFor(checkpointer, { index })` keeps embeddings in it (docs/server.md, "Semantic search").
 *
 * @example
 * const checkpointer = new PGliteCheckpointer("./data/threads");
 * const graph = builder.compile({ checkpointer });
 * // …
 * await checkpointer.close();
 */
export class PGliteCheckpointer extends SqlCheckpointer {
  readonly #dataDir: string;
  readonly #tablePrefix: string;
  readonly #imageCacheDir: string | false;
  readonly #given: PGliteInterface | undefined;
  #owned: PGliteInterface | undefined;
  /** The instance in use once started, given or owned. */
  #db: PGliteInterface | undefined;
  #unlock: (() => void) | undefined;
  #deletedRows = 0;
  #vacuumTimer: ReturnType<typeof setTimeout> | undefined;
  #vacuuming: Promise<void> | undefined;

  constructor(options: string | PGliteCheckpointerOptions = {}) {
    const {
      dataDir = "memory://",
      db,
      tablePrefix = DEFAULT_TABLE_PREFIX,
      imageCacheDir = defaultImageCacheDir(),
      claimTtlMs,
    } = typeof options === "string" ? ({ dataDir: options } as PGliteCheckpointerOptions) : options;
    super(tablePrefix, claimTtlMs === undefined ? {} : { claimTtlMs });
    this.#dataDir = dataDir;
    this.#tablePrefix = tablePrefix;
    this.#imageCacheDir = imageCacheDir;
    this.#given = db;
  }

  protected override async connect(): Promise<SqlDriver> {
    const pglite = await import("@electric-sql/pglite");
    // A start that opened PGlite and then failed (e.g. a migration) is being retried.
    await this.#closeOwned();
    const db = this.#given ?? (await this.#open(pglite.PGlite));
    await db.waitReady;
    const target = db;
    this.#db = target;
    return {
      query: queryOn(target),
      queryPrepared: preparedOn(target, pglite),
      transaction: (fn) => target.transaction((tx) => fn(queryOn(tx))),
    };
  }

  /** Opens (and owns) the instance for `dataDir`, from a prepared image if it is new. */
  async #open(PGliteClass: typeof PGlite): Promise<PGliteInterface> {
    // pgvector where its package is installed, for the store's embeddings (sql-vectors.ts).
    const vector = await pgvectorForPGlite();
    const dir = directoryOf(this.#dataDir);
    // Ours to create and to lock; other URL schemes (memory://, idb://) are PGlite's.
    if (dir !== undefined) {
      await mkdir(dir, { recursive: true });
      this.#unlock = lockDataDir(dir);
    }
    const hasDatabase = () => dir !== undefined && existsSync(join(dir, "PG_VERSION"));
    const options: PGliteOptions = {
      startParams: [...PGliteClass.defaultStartParams, ...START_SETTINGS.flatMap((s) => ["-c", s])],
      ...(vector && { extensions: { vector } }),
    };
    try {
      const isNew = dir === undefined ? this.#dataDir.startsWith("memory://") : !hasDatabase();
      const key = isNew ? await imageKey(this.#tablePrefix) : undefined;
      const image = key === undefined ? undefined : await readImage(key, this.#imageCacheDir);
      if (key !== undefined && image) {
        let written: string[] = [];
        try {
          // A directory gets the image's files written by us (see writeImage); memory://
          // and other schemes take the tarball.
          let db: PGlite;
          if (dir === undefined) {
            const loadDataDir = await unpackImage(image);
            db = new PGliteClass(this.#dataDir, { ...options, loadDataDir });
          } else {
            written = await writeImage(image, dir);
            db = new PGliteClass(this.#dataDir, options);
          }
          this.#owned = db;
          await db.waitReady;
          return db;
        } catch (error) {
          // A damaged or foreign image: forget it, then start as if there were none (unless
          // it got as far as making a database of the directory).
          await forgetImage(key, this.#imageCacheDir);
          await this.#closeInstance().catch(() => undefined);
          if (hasDatabase()) throw error;
          for (const name of written) await rm(join(dir!, name), { recursive: true, force: true });
        }
      }
      const db = new PGliteClass(this.#dataDir, options);
      this.#owned = db;
      await db.waitReady;
      if (key !== undefined) await this.#makeImage(db, key);
      return db;
    } catch (error) {
      // A failed start is retried by the next call: let go of the directory meanwhile.
      await this.#closeOwned().catch(() => undefined);
      throw error;
    }
  }

  /**
   * Makes the prepared image from a database initdb has just made: brings it to the
   * current schema (the store's own migration then finds nothing to do) and dumps it.
   */
  async #makeImage(db: PGliteInterface, key: string): Promise<void> {
    const query = queryOn(db);
    await migrate(
      { query, transaction: (fn) => db.transaction((tx) => fn(queryOn(tx))) },
      tables(this.#tablePrefix),
      PGLITE_MIGRATIONS,
    );
    try {
      // Everything in the data files, so that loading the image replays almost no WAL.
      await db.exec("checkpoint");
      await saveImage(key, this.#imageCacheDir, await db.dumpDataDir("none"));
    } catch {
      // Only the speed-up of later stores is lost.
    }
  }

  protected override get migrationOptions() {
    return PGLITE_MIGRATIONS;
  }

  protected override afterDelete(rows: number): void {
    this.#deletedRows += rows;
    if (this.#deletedRows < VACUUM_AFTER_ROWS || this.#vacuumTimer) return;
    this.#vacuumTimer = setTimeout(() => {
      this.#vacuumTimer = undefined;
      this.#vacuum();
    }, VACUUM_DELAY_MS);
    // A pending vacuum must not keep the process alive; close() runs it instead.
    this.#vacuumTimer.unref();
  }

  /** Closes the owned instance, keeping the directory's lock. */
  async #closeInstance(): Promise<void> {
    const db = this.#owned;
    this.#owned = undefined;
    if (db && !db.closed) await db.close();
  }

  /** Runs one VACUUM at a time; what is deleted meanwhile waits for the next. */
  #vacuum(): Promise<void> {
    const db = this.#db;
    if (this.#vacuuming || !db || db.closed || this.#deletedRows === 0) {
      return this.#vacuuming ?? Promise.resolve();
    }
    this.#deletedRows = 0;
    const running = db
      .exec(this.vacuumStatement)
      .then(() => undefined)
      // Only space is at stake: a failed vacuum (instance closed by its owner) is retried
      // after the next deletes, or on close.
      .catch(() => undefined)
      .finally(() => {
        this.#vacuuming = undefined;
      });
    this.#vacuuming = running;
    return running;
  }

  protected override async disconnect(): Promise<void> {
    clearTimeout(this.#vacuumTimer);
    this.#vacuumTimer = undefined;
    await this.#vacuuming;
    await this.#vacuum();
    this.#db = undefined;
    await this.#closeOwned();
  }

  async #closeOwned(): Promise<void> {
    try {
      await this.#closeInstance();
    } finally {
      this.#unlock?.();
      this.#unlock = undefined;
    }
  }
}

/** The directory of a file-system `dataDir` (a path or `file://` URL), else undefined. */
function directoryOf(dataDir: string): string | undefined {
  if (dataDir.startsWith("file://")) return dataDir.slice("file://".length);
  return /^[a-z]+:\/\//i.test(dataDir) ? undefined : dataDir;
}

function queryOn(target: {
  query<T>(text: string, params?: unknown[]): Promise<Results<T>>;
}): Query {
  return async (text, params) => {
    const result = await target.query<Record<string, unknown>>(text, params);
    return { rows: result.rows, rowCount: result.rowCount ?? result.affectedRows ?? 0 };
  };
}

/** `PGlite#_runExclusiveTransaction`: what `query()` holds so as not to run inside a `transaction()`. */
type Exclusive = <T>(fn: () => Promise<T>) => Promise<T>;

const DUPLICATE_PREPARED_STATEMENT = "42P05";
const UNDEFINED_PREPARED_STATEMENT = "26000";

/**
 * Runs statements as named prepared statements over PGlite's wire-protocol API: the first
 * call parses and plans a statement, later ones only bind and execute it, each call one
 * `execProtocol` exchange (`db.query` parses, plans and describes every time, in six).
 * On PGlite the planning of the store's CTE statements costs more than executing them.
 *
 * The locking is `db.query`'s: wait for any `transaction()` to end, then hold the query
 * lock. Without the means for that (another `PGliteInterface`), returns undefined and the
 * store uses `query`.
 */
function preparedOn(
  db: PGliteInterface,
  pglite: typeof import("@electric-sql/pglite"),
): Query | undefined {
  const method = (db as { _runExclusiveTransaction?: Exclusive })._runExclusiveTransaction;
  if (typeof method !== "function" || typeof db.execProtocol !== "function") return undefined;
  const exclusive: Exclusive = method.bind(db);
  const { serialize } = pglite.protocol;
  const names = new Map<string, string>();
  // Statements this session is known to hold. Someone else's DEALLOCATE or an earlier
  // store on the same instance is handled below, by one retry.
  const parsed = new Set<string>();
  const fallback = queryOn(db);
  // Memory has nothing to sync to: skip the file-system sync's lock and await per exchange.
  const dataDir = (db as { dataDir?: unknown }).dataDir;
  const syncToFs = !(dataDir === undefined || String(dataDir).startsWith("memory://"));

  return async (text, params = []) => {
    // A closed instance: let `query` say so in its own words.
    if (db.closed) return fallback(text, params);
    let name = names.get(text);
    if (name === undefined) {
      name = `stateweaver_${createHash("sha256").update(text).digest("hex").slice(0, 24)}`;
      names.set(text, name);
    }
    const run = executeMessage(name, params.map(textValue));
    for (let retried = false; ; retried = true) {
      const parse = !parsed.has(name);
      const message = parse ? concat([serialize.parse({ name, text, types: [] }), run]) : run;
      try {
        const { messages } = await exclusive(() =>
          db.runExclusive(() => db.execProtocol(message, { syncToFs })),
        );
        parsed.add(name);
        const [result] = pglite.parse.parseResults(messages, pglite.types.parsers);
        const rows = (result?.rows ?? []) as Array<Record<string, unknown>>;
        return { rows, rowCount: result?.rowCount ?? result?.affectedRows ?? 0 };
      } catch (error) {
        // Either failure stops the exchange before Execute: nothing ran, so retry once.
        const code = (error as { code?: unknown } | null)?.code;
        if (!retried && parse && code === DUPLICATE_PREPARED_STATEMENT) {
          parsed.add(name);
          continue;
        }
        if (!retried && !parse && code === UNDEFINED_PREPARED_STATEMENT) {
          parsed.delete(name);
          continue;
        }
        throw error;
      }
    }
  };
}

/** Parameters go as text, which the server reads as the parameter's type. */
function textValue(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "bigint" || typeof value === "boolean") {
    return String(value);
  }
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return arrayLiteral(value);
  throw new TypeError(`Unsupported statement parameter of type ${typeof value}`);
}

/** A one-dimensional array parameter in Postgres' text form, e.g. `{"a","b\"c",NULL}`. */
function arrayLiteral(items: unknown[]): string {
  const parts = items.map((item) => {
    const text = textValue(item);
    return text === null ? "NULL" : `"${text.replace(/[\\"]/g, "\\$&")}"`;
  });
  return `{${parts.join(",")}}`;
}

function concat(parts: Uint8Array[]): Uint8Array {
  let length = 0;
  for (const part of parts) length += part.length;
  const out = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
