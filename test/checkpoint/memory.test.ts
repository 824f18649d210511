import { MemoryCheckpointer } from "../../src/checkpoint/index.js";
import { describeCheckpointerConformance } from "../../src/testing/index.js";

describeCheckpointerConformance("MemoryCheckpointer", () => new MemoryCheckpointer());
