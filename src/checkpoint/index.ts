/**
 * `stateweaver/checkpoint`: where threads are saved. Importing this entry is cheap —
 * PGlite and `pg` are loaded only when a store that needs them is first used.
 */

export { assertMetadataPatch, RUNTIME_METADATA_KEYS } from "./checkpoint-metadata.js";
export type {
  Checkpoint,
  Checkpointer,
  CheckpointMetadata,
  CheckpointSource,
  CheckpointTuple,
  InterruptRecord,
  LatestClaim,
  ListOptions,
  PendingWrite,
  PruneOptions,
  PruneThreadsOptions,
  PutOptions,
  RewindOptions,
  SearchThreadsOptions,
  ThreadClaim,
  ThreadError,
  ThreadPage,
  ThreadRecord,
  ThreadRelease,
  ThreadStatus,
  ThreadWrite,
} from "./checkpointer.js";
export { isTransientDatabaseError } from "./database-faults.js";
export { checkpointId, createdAtOf } from "./id.js";
export { MemoryCheckpointer } from "./memory.js";
export { INTERRUPT, type PausedTask, pauseWrite } from "./paused-tasks.js";
export { PGliteCheckpointer, type PGliteCheckpointerOptions } from "./pglite.js";
export { PostgresCheckpointer, type PostgresCheckpointerOptions } from "./postgres.js";
export { assertJson, MAX_JSON_DEPTH } from "./serde.js";
export {
  hasThreadChangeFeed,
  type ThreadChange,
  type ThreadChangeFeed,
} from "./thread-changes.js";
export {
  DEFAULT_THREAD_PAGE,
  jsonContains,
  MAX_THREAD_ERROR_CHARS,
  MAX_THREAD_PAGE,
} from "./thread-records.js";
