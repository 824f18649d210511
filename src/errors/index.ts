// The errors stateweaver throws, one file per area, each class branded where it is declared.
export * from "./access.js";
export * from "./agent.js";
export * from "./audit.js";
export * from "./checkpoint.js";
export * from "./graph.js";
export * from "./models.js";
export * from "./retention.js";
export * from "./runs.js";
export * from "./stateweaver-error.js";
export * from "./store.js";
