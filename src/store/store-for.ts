/** The store that goes with a checkpointer: same database when it has one. */
import type { Checkpointer } from "../checkpoint/index.js";
import { SqlCheckpointer } from "../checkpoint/sql/index.js";
import { MemoryStore } from "./memory-store.js";
import { SqlStore } from "./sql-store.js";
import type { Store } from "./store.js";

/**
 * A long-term store beside `checkpointer`: a `SqlStore` on the same PGlite or PostgreSQL
 * connection (and table prefix) for the SQL checkpointers, else a `MemoryStore`.
 *
 * @example
 * const checkpointer = new PGliteCheckpointer("./.stateweaver");
 * const store = storeFor(checkpointer); // items live in ./.stateweaver too
 */
export function storeFor(checkpointer: Checkpointer): Store {
  if (checkpointer instanceof SqlCheckpointer) {
    return new SqlStore({
      driver: () => checkpointer.sharedDriver(),
      tablePrefix: checkpointer.tablePrefix,
    });
  }
  return new MemoryStore();
}
