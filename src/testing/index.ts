export {
  type CheckpointerConformanceOptions,
  type ConformanceRow,
  describeCheckpointerConformance,
  makeCheckpoint,
} from "./checkpointer-conformance.js";
export { type GraphPath, type GraphPathsOptions, graphPaths } from "./graph-paths.js";
export {
  type CoveredRun,
  type PathCoverage,
  type PathCoverageOptions,
  type PausedRun,
  pathCoverage,
} from "./path-coverage.js";
export type { MakeIndexedStore } from "./semantic-search-cases.js";
export { describeStoreConformance } from "./store-conformance.js";
export { wordEmbeddings } from "./word-embeddings.js";
