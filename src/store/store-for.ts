/** The store that goes with a checkpointer: same database when it has one. */
import type { Checkpointer } from "../checkpoint/index.js";
import { SqlCheckpointer } from "../checkpoint/sql/index.js";
import type { StoreIndexConfig } from "./embedding-index.js";
import { MemoryStore } from "./memory-store.js";
import { SqlStore } from "./sql-store.js";
import type { VectorColumn } from "./sql-vectors.js";
import type { Store, StoreTtlConfig } from "./store.js";

/**
 * A long-term store beside `checkpointer`: a `SqlStore` on the same PGlite or PostgreSQL
 * connection (and table prefix) for the SQL checkpointers, else a `MemoryStore`.
 *
 * @example
 * const checkpointer = new PGliteCheckpointer("./.stateweaver");
 * const store = storeFor(checkpointer); // items live in ./.stateweaver too
 * const private = storeFor(checkpointer, { tables: "assistants" }); // its own table there
 * const semantic = storeFor(checkpointer, { index: { dims: 1536, embed: initEmbeddings("openai:text-embedding-3-small") } });
 * const noPgvector = storeFor(checkpointer, { index, vectors: "array" }); // real[] even where pgvector is
 * const expiring = storeFor(checkpointer, { ttl: { defaultTtl: 60 } }); // puts without ttl live an hour
 */
export function storeFor(
  checkpointer: Checkpointer,
  options: {
    tables?: string;
    index?: StoreIndexConfig;
    /** SQL stores: where embeddings are kept (default `"auto"`, see `VectorColumn`). */
    vectors?: VectorColumn;
    ttl?: StoreTtlConfig;
  } = {},
): Store {
  if (checkpointer instanceof SqlCheckpointer) {
    // A store of its own (the server's assistants) is a table the long-term one never reads.
    const own = options.tables === undefined ? "" : `${options.tables}_`;
    return new SqlStore({
      driver: () => checkpointer.sharedDriver(),
      tablePrefix: `${checkpointer.tablePrefix}${own}`,
      ...(options.index && { index: options.index }),
      ...(options.vectors && { vectors: options.vectors }),
      ...(options.ttl && { ttl: options.ttl }),
    });
  }
  return new MemoryStore({
    ...(options.index && { index: options.index }),
    ...(options.ttl && { ttl: options.ttl }),
  });
}
