import { describe, expect, it } from "vitest";
import { checkpointId, createdAtOf, MemoryCheckpointer } from "../../src/checkpoint/index.js";
import { describeCheckpointerConformance } from "../../src/testing/index.js";

const unreachable = "its rows live in private fields that nothing outside the store can damage";
describeCheckpointerConformance("MemoryCheckpointer", () => new MemoryCheckpointer(), {
  skip: {
    "a damaged checkpoint row is refused with CorruptCheckpointError naming it; the rest of the thread still reads, and deleteThread works":
      unreachable,
    "damaged pending writes are refused with CorruptCheckpointError naming the task": unreachable,
  },
});

describe("createdAtOf", () => {
  it("reads the millisecond a checkpointId() holds, and nothing from another layout", () => {
    const before = Date.now();
    const at = createdAtOf(checkpointId());
    expect(Date.parse(at!)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(at!)).toBeLessThanOrEqual(Date.now() + 1);
    expect(createdAtOf("01a2375e-360d-7000-ac9e-053ecdded463")).toBe("2026-12-02T15:27:30.829Z");
    expect(createdAtOf("checkpoint-1")).toBeUndefined();
  });
});
