export { describeCheckpointerConformance, makeCheckpoint } from "./checkpointer-conformance.js";
export { type GraphPath, graphPaths } from "./graph-paths.js";
