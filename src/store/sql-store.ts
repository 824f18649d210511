/**
 * The long-term store in PostgreSQL or PGlite: one table, `<prefix>store_items`, beside
 * the checkpointer's tables and on its connection (`storeFor(checkpointer)`), and with an
 * index, its embeddings beside it (`sql-vectors.ts`).
 */
import type { Query, SqlDriver } from "../checkpoint/sql/index.js";
import { DEFAULT_TABLE_PREFIX } from "../checkpoint/sql/index.js";
import { InvalidStoreRequestError } from "../errors/index.js";
import { EmbeddingIndex, type StoreIndexConfig } from "./embedding-index.js";
import { SqlVectors, type VectorColumn } from "./sql-vectors.js";
import type {
  Item,
  ListNamespacesOptions,
  Namespace,
  SearchItem,
  Store,
  StoreGetOptions,
  StorePutOptions,
  StoreSearchOptions,
  StoreTtlConfig,
} from "./store.js";
import {
  checkKey,
  checkNamespace,
  checkPut,
  checkPutIf,
  checkSearch,
  listNamespacesOf,
  operatorsOf,
  ttlSettingsOf,
} from "./store-rules.js";

export interface SqlStoreOptions {
  /** The connection to use; called once per operation (a shared, lazily opened driver). */
  driver: () => Promise<SqlDriver>;
  /** Table name prefix, as the checkpointer's (default `stateweaver_`). */
  tablePrefix?: string;
  /** Semantic search: how items are embedded (see `StoreIndexConfig`). */
  index?: StoreIndexConfig;
  /** Where embeddings are kept: pgvector or `real[]` (default `"auto"`, see `VectorColumn`). */
  vectors?: VectorColumn;
  /** How items expire when a call does not say (see `StoreTtlConfig`). */
  ttl?: StoreTtlConfig;
}

/**
 * A `Store` over SQL. Namespaces are stored as their labels joined by `.` (labels cannot
 * contain it), so a prefix search is one index range; expired items are invisible at
 * once and deleted as later writes pass by.
 *
 * @example
 * const store = storeFor(new PGliteCheckpointer("./data")); // a SqlStore on the same database
 * const semantic = storeFor(checkpointer, { index: { dims: 1536, embed: initEmbeddings("openai:text-embedding-3-small") } });
 */
export class SqlStore implements Store {
  readonly #driver: () => Promise<SqlDriver>;
  readonly #table: string;
  readonly #index: EmbeddingIndex | undefined;
  readonly #vectorColumn: VectorColumn;
  readonly #ttl: Required<StoreTtlConfig>;
  #vectors: SqlVectors | undefined;
  #ready: Promise<SqlDriver> | undefined;

  constructor(options: SqlStoreOptions) {
    const prefix = options.tablePrefix ?? DEFAULT_TABLE_PREFIX;
    if (!/^[a-z_][a-z0-9_]*$/i.test(prefix)) {
      throw new InvalidStoreRequestError(
        `tablePrefix must be letters, digits and _; got ${JSON.stringify(prefix)}.`,
      );
    }
    this.#driver = options.driver;
    this.#table = `${prefix}store_items`;
    this.#index = options.index ? new EmbeddingIndex(options.index) : undefined;
    const vectors = options.vectors ?? "auto";
    if (!["auto", "pgvector", "array"].includes(vectors)) {
      throw new InvalidStoreRequestError(
        `vectors is "auto", "pgvector" or "array"; got ${JSON.stringify(vectors)}.`,
      );
    }
    this.#vectorColumn = vectors;
    this.#ttl = ttlSettingsOf(options.ttl);
  }

  /** How this store keeps embeddings (`"pgvector"` or `"array"`), once open; none without an index. */
  async vectorColumn(): Promise<"pgvector" | "array" | undefined> {
    await this.#open();
    return this.#vectors?.kind;
  }

  #open(): Promise<SqlDriver> {
    if (this.#ready) return this.#ready;
    const t = this.#table;
    const starting = this.#driver().then(async (driver) => {
      await driver.query(
        `create table if not exists ${t} (
           prefix text not null,
           key text not null,
           value jsonb not null,
           created_at timestamptz not null default now(),
           updated_at timestamptz not null default now(),
           ttl_minutes double precision,
           expires_at timestamptz,
           primary key (prefix, key))`,
      );
      await driver.query(`create index if not exists ${t}_updated on ${t} (updated_at desc)`);
      await driver.query(
        `create index if not exists ${t}_expires on ${t} (expires_at) where expires_at is not null`,
      );
      if (this.#index) {
        this.#vectors = await SqlVectors.open(driver, t, this.#index.dims, this.#vectorColumn);
      }
      return driver;
    });
    starting.catch(() => {
      if (this.#ready === starting) this.#ready = undefined;
    });
    this.#ready = starting;
    return starting;
  }

  async get(
    namespace: Namespace,
    key: string,
    options: StoreGetOptions = {},
  ): Promise<Item | null> {
    checkNamespace(namespace);
    checkKey(key);
    const db = await this.#open();
    const refresh = options.refreshTtl ?? this.#ttl.refreshOnRead;
    const { rows } = refresh
      ? await db.query(
          `update ${this.#table}
              set expires_at = case when ttl_minutes is null then null
                                    else now() + ttl_minutes * interval '1 minute' end
            where prefix = $1 and key = $2 and (expires_at is null or expires_at > now())
        returning ${COLUMNS}`,
          [namespace.join("."), key],
        )
      : // Prepared where the driver can (parsed once per connection): every run's assistant
        // is read this way, so it is on the path of each request that starts one.
        await (db.queryPrepared ?? db.query)(
          `select ${COLUMNS} from ${this.#table}
            where prefix = $1 and key = $2 and (expires_at is null or expires_at > now())`,
          [namespace.join("."), key],
        );
    return rows[0] ? toItem(rows[0]) : null;
  }

  async put(
    namespace: Namespace,
    key: string,
    value: Record<string, unknown>,
    options: StorePutOptions = {},
  ): Promise<void> {
    const ttl = checkPut(namespace, key, value, options, this.#ttl.defaultTtl);
    await this.#write(namespace, key, undefined, value, ttl, options);
  }

  async putIf(
    namespace: Namespace,
    key: string,
    expected: Record<string, unknown> | null,
    value: Record<string, unknown> | null,
    options: StorePutOptions = {},
  ): Promise<boolean> {
    const ttl = checkPutIf(namespace, key, expected, value, options, this.#ttl.defaultTtl);
    return this.#write(namespace, key, expected, value, ttl, options);
  }

  /**
   * Writes (or with `value` null removes) the item when `expected` (undefined: anything)
   * is what it holds. Each case is one statement, so the row lock makes it atomic: a
   * writer that waited on another sees the other's value, not the one it read.
   */
  async #write(
    namespace: Namespace,
    key: string,
    expected: Record<string, unknown> | null | undefined,
    value: Record<string, unknown> | null,
    ttl: number | null,
    options: StorePutOptions,
  ): Promise<boolean> {
    const db = await this.#open();
    const t = this.#table;
    const prefix = namespace.join(".");
    const live = "(expires_at is null or expires_at > now())";
    if (value === null) {
      const { rows } =
        expected === null
          ? await db.query(`select 1 from ${t} where prefix = $1 and key = $2 and ${live}`, [
              prefix,
              key,
            ])
          : await db.query(
              `delete from ${t} where prefix = $1 and key = $2 and ${live}
                  and value = $3::jsonb returning 1`,
              [prefix, key, JSON.stringify(expected)],
            );
      return expected === null ? rows.length === 0 : rows.length > 0;
    }
    // Embedded before the transaction: an embedder that fails leaves the item as it was.
    const vectors = await this.#index?.vectorsOf(value, options.index);
    const expires = `case when $4::double precision is null then null
                          else now() + $4::double precision * interval '1 minute' end`;
    const params = [prefix, key, JSON.stringify(value), ttl];
    // An expired row is replaced as new (its createdAt goes with it), and counts as absent.
    const write = (query: Query) =>
      expected
        ? query(
            `update ${t} set value = $3::jsonb, updated_at = now(), ttl_minutes = $4::double precision,
                    expires_at = ${expires}
              where prefix = $1 and key = $2 and ${live} and value = $5::jsonb
          returning 1`,
            [...params, JSON.stringify(expected)],
          )
        : query(
            `insert into ${t} as t (prefix, key, value, ttl_minutes, expires_at)
             values ($1, $2, $3::jsonb, $4::double precision, ${expires})
             on conflict (prefix, key) do update
                set value = excluded.value, updated_at = now(), ttl_minutes = excluded.ttl_minutes,
                    expires_at = excluded.expires_at,
                    created_at = case when t.expires_at is not null and t.expires_at <= now()
                                      then now() else t.created_at end
              ${expected === null ? "where t.expires_at <= now()" : ""}
          returning 1`,
            params,
          );
    const table = this.#vectors;
    const wrote =
      vectors && table
        ? // The item and its embeddings change together, or neither does.
          await db.transaction(async (query) => {
            const { rows } = await write(query);
            if (rows.length > 0) await table.replace(query, prefix, key, vectors);
            return rows.length > 0;
          })
        : (await write((text, params) => db.query(text, params))).rows.length > 0;
    await this.sweepExpired();
    return wrote;
  }

  async sweepExpired(): Promise<number> {
    const db = await this.#open();
    const { rowCount } = await db.query(`delete from ${this.#table} where expires_at <= now()`);
    return rowCount;
  }

  async delete(namespace: Namespace, key: string): Promise<void> {
    checkNamespace(namespace);
    checkKey(key);
    const db = await this.#open();
    await db.query(`delete from ${this.#table} where prefix = $1 and key = $2`, [
      namespace.join("."),
      key,
    ]);
  }

  async search(
    namespacePrefix: Namespace,
    options: StoreSearchOptions = {},
  ): Promise<SearchItem[]> {
    const { limit, offset } = checkSearch(namespacePrefix, options);
    const params: unknown[] = [];
    const where = ["(expires_at is null or expires_at > now())"];
    if (namespacePrefix.length > 0) {
      const prefix = namespacePrefix.join(".");
      params.push(prefix, `${prefix}.`);
      where.push(`(prefix = $1 or left(prefix, length($2)) = $2)`);
    }
    for (const [field, condition] of Object.entries(options.filter ?? {})) {
      where.push(...conditionSql(field, condition, params));
    }
    const db = await this.#open();
    // A query without an index is ignored, as LangGraph's stores do.
    const vectors = options.query ? this.#vectors : undefined;
    let score = "null::double precision";
    if (vectors && this.#index) {
      params.push(vectors.literal(await this.#index.queryVector(options.query!)));
      score = vectors.scoreSql(`$${params.length}`);
    }
    params.push(limit, offset);
    const order = vectors
      ? "order by score desc nulls last, updated_at desc, prefix, key"
      : "order by updated_at desc, prefix, key";
    const page = `limit $${params.length - 1} offset $${params.length}`;
    const scored = `select ${COLUMNS}, ${score} as score from ${this.#table} t where ${where.join(" and ")}`;
    const refresh = options.refreshTtl ?? this.#ttl.refreshOnRead;
    const { rows } = refresh
      ? await db.query(
          `with hit as (
             select prefix, key, score, row_number() over (${order}) as rank
               from (${scored}) s ${order} ${page})
           update ${this.#table} t
              set expires_at = case when t.ttl_minutes is null then null
                                    else now() + t.ttl_minutes * interval '1 minute' end
             from hit where t.prefix = hit.prefix and t.key = hit.key
         returning hit.rank, hit.score, ${COLUMNS.split(", ")
           .map((c) => `t.${c}`)
           .join(", ")}`,
          params,
        )
      : await db.query(`select * from (${scored}) s ${order} ${page}`, params);
    // UPDATE … RETURNING does not keep the subquery's order: put it back by rank.
    if (refresh) rows.sort((a, b) => Number(a.rank) - Number(b.rank));
    return rows.map((row) => ({
      ...toItem(row),
      ...(row.score !== null && row.score !== undefined && { score: Number(row.score) }),
    }));
  }

  async listNamespaces(options: ListNamespacesOptions = {}): Promise<string[][]> {
    const db = await this.#open();
    const { rows } = await db.query(
      `select distinct prefix from ${this.#table} where expires_at is null or expires_at > now()`,
    );
    return listNamespacesOf(
      rows.map((row) => String(row.prefix).split(".")),
      options,
    );
  }
}

const COLUMNS = "prefix, key, value, created_at, updated_at";

/** SQL for one filter condition, the twin of `matchesFilter`: JSON equality, numbers compared. */
function conditionSql(field: string, condition: unknown, params: unknown[]): string[] {
  const at = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  const f = at(field);
  const ops = operatorsOf(condition) ?? [["$eq", condition]];
  return ops.map(([op, operand]) => {
    switch (op) {
      case "$eq":
        return `value -> ${f}::text = ${at(JSON.stringify(operand))}::jsonb`;
      case "$ne":
        return `(value -> ${f}::text) is distinct from ${at(JSON.stringify(operand))}::jsonb`;
      case "$in":
        return `value -> ${f}::text in (select jsonb_array_elements(${at(JSON.stringify(operand))}::jsonb))`;
      case "$nin":
        return `(value -> ${f}::text is null or value -> ${f}::text not in (select jsonb_array_elements(${at(JSON.stringify(operand))}::jsonb)))`;
      default: {
        const cmp = { $gt: ">", $gte: ">=", $lt: "<", $lte: "<=" }[op as "$gt"];
        return `(jsonb_typeof(value -> ${f}::text) = 'number' and (value ->> ${f}::text)::numeric ${cmp} ${at(operand)}::numeric)`;
      }
    }
  });
}

function toItem(row: Record<string, unknown>): Item {
  const value = typeof row.value === "string" ? JSON.parse(row.value) : row.value;
  return {
    namespace: String(row.prefix).split("."),
    key: String(row.key),
    value: value as Record<string, unknown>,
    createdAt: new Date(row.created_at as string | Date),
    updatedAt: new Date(row.updated_at as string | Date),
  };
}
