import { createHash } from "node:crypto";
import { mkdir } from "node:fs/promises";
import type { PGliteInterface, Results } from "@electric-sql/pglite";
import { DEFAULT_TABLE_PREFIX, type Query, SqlCheckpointer, type SqlDriver } from "./sql/index.js";

export interface PGliteCheckpointerOptions {
  /**
   * Where PGlite keeps its files: `"memory://"` (the default) for an in-memory database,
   * or a directory path, created if missing.
   */
  dataDir?: string;
  /**
   * An already open PGlite instance to use instead; `close()` leaves it open. The store
   * keeps its frequent statements prepared in that instance's session, under names
   * starting with `stateweaver_`.
   */
  db?: PGliteInterface;
  /** Prefix of the table names; `"stateweaver_"` by default. */
  tablePrefix?: string;
}

/**
 * Checkpoints in PGlite, an embedded PostgreSQL: durable with a data directory, no
 * server to run. Starts lazily (PGlite is loaded and the tables are created on first use).
 *
 * @example
 * const checkpointer = new PGliteCheckpointer("./data/threads");
 * const graph = builder.compile({ checkpointer });
 * // …
 * await checkpointer.close();
 */
export class PGliteCheckpointer extends SqlCheckpointer {
  readonly #dataDir: string;
  readonly #given: PGliteInterface | undefined;
  #owned: PGliteInterface | undefined;

  constructor(options: string | PGliteCheckpointerOptions = {}) {
    const {
      dataDir = "memory://",
      db,
      tablePrefix = DEFAULT_TABLE_PREFIX,
    } = typeof options === "string" ? { dataDir: options } : options;
    super(tablePrefix);
    this.#dataDir = dataDir;
    this.#given = db;
  }

  protected override async connect(): Promise<SqlDriver> {
    const pglite = await import("@electric-sql/pglite");
    let db = this.#given;
    if (!db) {
      // A URL-style dataDir (memory://, file://…) is PGlite's business; a plain path is ours to create.
      if (!/^[a-z]+:\/\//i.test(this.#dataDir)) await mkdir(this.#dataDir, { recursive: true });
      db = this.#owned = new pglite.PGlite(this.#dataDir);
    }
    await db.waitReady;
    const target = db;
    return {
      query: queryOn(target),
      queryPrepared: preparedOn(target, pglite),
      transaction: (fn) => target.transaction((tx) => fn(queryOn(tx))),
    };
  }

  protected override async disconnect(): Promise<void> {
    const db = this.#owned;
    this.#owned = undefined;
    if (db && !db.closed) await db.close();
  }
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

  return async (text, params = []) => {
    // A closed instance: let `query` say so in its own words.
    if (db.closed) return fallback(text, params);
    let name = names.get(text);
    if (name === undefined) {
      name = `stateweaver_${createHash("sha256").update(text).digest("hex").slice(0, 24)}`;
      names.set(text, name);
    }
    const bind = serialize.bind({ statement: name, values: params.map(textValue) });
    const rest = [bind, serialize.describe({ type: "P" }), serialize.execute({}), serialize.sync()];
    for (let retried = false; ; retried = true) {
      const parse = !parsed.has(name);
      const message = concat(parse ? [serialize.parse({ name, text, types: [] }), ...rest] : rest);
      try {
        const { messages } = await exclusive(() => db.runExclusive(() => db.execProtocol(message)));
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
  throw new TypeError(`Unsupported statement parameter of type ${typeof value}`);
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
