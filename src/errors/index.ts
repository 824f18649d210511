// The errors stateweaver throws, one file per area, re-exported here; and their brands.
import { brandClass, hasBrand } from "../control/brand.js";
import { AgentConfigError, NotAReviewError } from "./agent.js";
import {
  CheckpointerClosedError,
  CheckpointNotFoundError,
  ConcurrentUpdateError,
  CorruptCheckpointError,
  DataDirectoryLockedError,
  DuplicateCheckpointError,
  InvalidIdError,
  InvalidSearchError,
  SchemaTooNewError,
  ThreadBusyError,
} from "./checkpoint.js";
import {
  AbortError,
  CheckpointMismatchError,
  GraphValidationError,
  InterruptReplayError,
  InterruptSwallowedError,
  InvalidConfigError,
  InvalidResumeError,
  InvalidUpdateError,
  NodeError,
  NodeTimeoutError,
  NonSerializableError,
  RecursionLimitError,
  SnapshotMismatchError,
  ValueTooDeepError,
} from "./graph.js";
import { ModelConfigError, ModelError, StructuredOutputError } from "./models.js";
import {
  InvalidRetentionError,
  RewindTargetNotFoundError,
  ThreadExistsError,
  ThreadNotFoundError,
} from "./retention.js";
import { InvalidRunError, RunNotFoundError, RunsNotBoundError } from "./runs.js";
import { StateweaverError } from "./stateweaver-error.js";
import { InvalidStoreRequestError } from "./store.js";

export * from "./agent.js";
export * from "./checkpoint.js";
export * from "./graph.js";
export * from "./models.js";
export * from "./retention.js";
export * from "./runs.js";
export * from "./stateweaver-error.js";
export * from "./store.js";

// Each error class carries its brand (`stateweaver.error.<Name>`), so `instanceof` answers for
// errors from any copy of stateweaver. A class added to these files must be listed here (a test checks).

const STATEWEAVER_ERROR = brandClass(StateweaverError, "error.StateweaverError");
for (const errorClass of [
  GraphValidationError,
  InvalidUpdateError,
  InvalidResumeError,
  InvalidConfigError,
  NonSerializableError,
  ValueTooDeepError,
  InterruptSwallowedError,
  InterruptReplayError,
  RecursionLimitError,
  NodeError,
  NodeTimeoutError,
  ConcurrentUpdateError,
  ThreadBusyError,
  CheckpointMismatchError,
  SnapshotMismatchError,
  AbortError,
  ModelError,
  ModelConfigError,
  AgentConfigError,
  NotAReviewError,
  DuplicateCheckpointError,
  CheckpointNotFoundError,
  CheckpointerClosedError,
  SchemaTooNewError,
  InvalidSearchError,
  InvalidIdError,
  CorruptCheckpointError,
  DataDirectoryLockedError,
  InvalidRetentionError,
  ThreadNotFoundError,
  ThreadExistsError,
  RewindTargetNotFoundError,
  StructuredOutputError,
  RunNotFoundError,
  RunsNotBoundError,
  InvalidRunError,
  InvalidStoreRequestError,
]) {
  brandClass(errorClass, `error.${errorClass.name}`);
}

/**
 * True for any error stateweaver throws, whichever copy of stateweaver threw it.
 *
 * @example
 * catch (e) { if (isStateweaverError(e)) console.log(e.code); else throw e; }
 */
export function isStateweaverError(value: unknown): value is StateweaverError {
  return hasBrand(value, STATEWEAVER_ERROR);
}
