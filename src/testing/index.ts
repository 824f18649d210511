export { describeCheckpointerConformance } from "./checkpointer-conformance.js";
