/**
 * The SQL store's embeddings: a table `<items>_vectors` beside the items, one row per
 * embedded field, deleted with its item (a foreign key). A column of pgvector's `vector`
 * type where the extension is there or can be made, else `real[]` with the dot product
 * summed in SQL, so semantic search also works on a PostgreSQL without pgvector and on
 * a PGlite without `@electric-sql/pglite-pgvector` (PGlite 0.5 does not bundle it).
 */
import type { Query, SqlDriver } from "../checkpoint/sql/index.js";
import { InvalidStoreRequestError } from "../errors/index.js";
import type { FieldVector } from "./embedding-index.js";

/**
 * How embeddings are kept: `"pgvector"` (the `vector` type, made with `create extension
 * vector` if needed), `"array"` (`real[]`, no extension), or `"auto"`: what the table
 * already has, else pgvector when it can be had, else the array.
 *
 * @example
 * new SqlStore({ driver, index, vectors: "array" }); // never try to create the extension
 */
export type VectorColumn = "auto" | "pgvector" | "array";

/**
 * The embeddings table of one store: made on open, written with each put, read by a
 * semantic search's score.
 *
 * @example
 * const vectors = await SqlVectors.open(driver, "stateweaver_store_items", 1536, "auto");
 * vectors.kind; // "pgvector" or "array"
 */
export class SqlVectors {
  readonly table: string;
  readonly kind: "pgvector" | "array";

  private constructor(table: string, kind: "pgvector" | "array") {
    this.table = table;
    this.kind = kind;
  }

  static async open(
    driver: SqlDriver,
    items: string,
    dims: number,
    wanted: VectorColumn,
  ): Promise<SqlVectors> {
    const table = `${items}_vectors`;
    const kind = await columnKind(driver, table, dims, wanted);
    const type = kind === "pgvector" ? `vector(${dims})` : "real[]";
    await driver.query(
      `create table if not exists ${table} (
         prefix text not null,
         key text not null,
         field text not null,
         embedding ${type} not null,
         primary key (prefix, key, field),
         foreign key (prefix, key) references ${items} (prefix, key) on delete cascade)`,
    );
    return new SqlVectors(table, kind);
  }

  /** Replaces the item's embeddings with `vectors`, inside the put's transaction. */
  async replace(query: Query, prefix: string, key: string, vectors: FieldVector[]): Promise<void> {
    await query(`delete from ${this.table} where prefix = $1 and key = $2`, [prefix, key]);
    if (vectors.length === 0) return;
    const rows = vectors.map(({ field, vector }) => ({ f: field, e: this.literal(vector) }));
    await query(
      `insert into ${this.table} (prefix, key, field, embedding)
       select $1, $2, r->>'f', (r->>'e')::${this.kind === "pgvector" ? "vector" : "real[]"}
         from jsonb_array_elements($3::jsonb) as r`,
      [prefix, key, JSON.stringify(rows)],
    );
  }

  /**
   * SQL for the score of the item aliased `t` against the query vector in parameter
   * `param`: its best field's dot product (the vectors are unit length, so it is the
   * cosine similarity), null when nothing of it was embedded.
   */
  scoreSql(param: string): string {
    const dot =
      this.kind === "pgvector"
        ? // <#> is the negated inner product; it is what pgvector's operator classes index.
          `-(v.embedding <#> ${param}::vector)`
        : `(select sum(a * b) from unnest(v.embedding, ${param}::real[]) as p(a, b))`;
    return `(select max(${dot}) from ${this.table} v where v.prefix = t.prefix and v.key = t.key)`;
  }

  /** A vector as the column's text form: `[1,2]` for pgvector, `{1,2}` for an array. */
  literal(vector: readonly number[]): string {
    const list = vector.join(",");
    return this.kind === "pgvector" ? `[${list}]` : `{${list}}`;
  }
}

/** What the table already has, else what `wanted` asks for and the database allows. */
async function columnKind(
  driver: SqlDriver,
  table: string,
  dims: number,
  wanted: VectorColumn,
): Promise<"pgvector" | "array"> {
  // The type's name and typmod apart: formatting vector(n) needs pgvector's library, which
  // a database that has the table may not be able to load any more.
  const { rows } = await driver.query(
    `select format_type(atttypid, null) as type, atttypmod as typmod from pg_attribute
      where attrelid = to_regclass($1) and attname = 'embedding'`,
    [table],
  );
  const existing = rows[0]?.type as string | undefined;
  if (existing !== undefined) {
    const kind = existing === "vector" ? "pgvector" : "array";
    if (wanted !== "auto" && wanted !== kind) {
      throw new InvalidStoreRequestError(
        `${table} keeps embeddings as ${kind === "pgvector" ? "pgvector's vector" : "real[]"}, not as ${wanted === "pgvector" ? "pgvector's vector" : "real[]"}: leave vectors at "auto", or use another tablePrefix.`,
      );
    }
    if (kind === "pgvector") await loadPgvector(driver, table);
    const stored =
      kind === "pgvector"
        ? Number(rows[0]!.typmod)
        : Number(
            (await driver.query(`select array_length(embedding, 1) as n from ${table} limit 1`))
              .rows[0]?.n ?? dims,
          );
    if (stored !== dims) {
      throw new InvalidStoreRequestError(
        `${table} holds embeddings of ${stored} dimensions, but the index says dims: ${dims}. Use the dims (and model) the items were embedded with, or another tablePrefix for the new model.`,
      );
    }
    return kind;
  }
  if (wanted === "array") return "array";
  const available = await driver.query(
    `select installed_version from pg_available_extensions where name = 'vector'`,
  );
  if (available.rows.length > 0) {
    if (available.rows[0]!.installed_version) return "pgvector";
    try {
      await driver.query("create extension if not exists vector");
      return "pgvector";
    } catch (error) {
      if (wanted === "pgvector") {
        throw new InvalidStoreRequestError(
          `Cannot create the pgvector extension (${(error as Error).message}): have a superuser run "create extension vector" in this database, or set vectors: "auto" to keep embeddings in real[] without it.`,
        );
      }
      return "array";
    }
  }
  if (wanted === "pgvector") {
    throw new InvalidStoreRequestError(
      `This database has no pgvector extension: ${INSTALL_PGVECTOR}, or set vectors: "auto" to keep embeddings in real[] without it.`,
    );
  }
  return "array";
}

const INSTALL_PGVECTOR =
  'on PostgreSQL install it on the server (e.g. Debian\'s postgresql-<version>-pgvector); on PGlite install the package @electric-sql/pglite-pgvector (docs/server.md, "Semantic search")';

/** Fails with the fix when the table's embeddings are pgvector's but the library cannot load. */
async function loadPgvector(driver: SqlDriver, table: string): Promise<void> {
  try {
    await driver.query("select '[1]'::vector");
  } catch (error) {
    throw new InvalidStoreRequestError(
      `${table} keeps embeddings in pgvector's vector type, but this database cannot load pgvector (${(error as Error).message}): ${INSTALL_PGVECTOR}.`,
    );
  }
}
