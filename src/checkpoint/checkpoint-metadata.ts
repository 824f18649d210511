import { InvalidConfigError } from "../errors/index.js";
import { assertThreadMetadata } from "./thread-records.js";

/**
 * The checkpoint metadata keys the runtime writes and reads back (the step, why it was
 * written, what each node wrote, where a paused step began, the parent step of a
 * subgraph's checkpoint, the run that wrote it): a patch may not change them, or history
 * and resuming would read something the run never did.
 */
export const RUNTIME_METADATA_KEYS: ReadonlySet<string> = new Set([
  "step",
  "source",
  "writes",
  "stepOrigin",
  "parentStep",
  "runId",
]);

/**
 * Throws `InvalidConfigError` unless `metadata` can be merged into a stored checkpoint's
 * metadata (`Checkpointer.patchCheckpointMetadata`): thread metadata's rules (a plain JSON
 * object, no NUL), and none of `RUNTIME_METADATA_KEYS`.
 */
export function assertMetadataPatch(metadata: unknown): void {
  assertThreadMetadata("metadata", metadata);
  const owned = Object.keys(metadata as object).filter((key) => RUNTIME_METADATA_KEYS.has(key));
  if (owned.length > 0) {
    throw new InvalidConfigError(
      `metadata ${owned.map((k) => JSON.stringify(k)).join(", ")} ${owned.length === 1 ? "is" : "are"} the runtime's own (${[...RUNTIME_METADATA_KEYS].join(", ")}): a patch cannot change what a run recorded. Use other keys. Nothing was written.`,
    );
  }
}
