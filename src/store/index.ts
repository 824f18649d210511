/**
 * The long-term store (`runtime.store`, the HTTP API's `/store`): documents by namespace
 * and key that outlive threads, in the shape of LangGraph's `BaseStore`.
 */
export type {
  Embeddings,
  EmbedFunction,
  StoreIndexConfig,
} from "./embedding-index.js";
export { MemoryStore } from "./memory-store.js";
export { SqlStore, type SqlStoreOptions } from "./sql-store.js";
export type { VectorColumn } from "./sql-vectors.js";
export type {
  Item,
  ListNamespacesOptions,
  Namespace,
  SearchItem,
  Store,
  StoreFilter,
  StoreGetOptions,
  StorePutOptions,
  StoreSearchOptions,
  StoreTtlConfig,
} from "./store.js";
export { storeFor } from "./store-for.js";
