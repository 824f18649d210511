import { describe, expect, it } from "vitest";
import { checkpointId, createdAtOf, isoTime } from "../../src/checkpoint/id.js";

describe("checkpoint ids and their times", () => {
  it("isoTime formats every millisecond as Date's toISOString does", () => {
    const day = 86_400_000;
    const times = [0, 1, 999, 1000, day - 1, day, day + 1, Date.UTC(2026, 11, 6, 23, 59, 59, 999)];
    // Across day boundaries (its cached date) and at random over four centuries.
    for (let i = 0; i < 2000; i++) times.push(Math.floor(Math.random() * 400 * 365 * day));
    for (let i = 0; i < 50; i++)
      times.push(Date.UTC(2026, 0, 1) + i * day - 1, Date.UTC(2026, 0, 1) + i * day);
    for (const ms of times) expect(isoTime(ms)).toBe(new Date(ms).toISOString());
  });

  it("createdAtOf reads the millisecond an id was made, and nothing from another layout", () => {
    const before = Date.now();
    const at = Date.parse(createdAtOf(checkpointId())!);
    expect(at).toBeGreaterThanOrEqual(before);
    expect(at).toBeLessThanOrEqual(Date.now());
    expect(createdAtOf("not-an-id")).toBeUndefined();
    expect(createdAtOf("1ef4f797-8335-6428-8001-8a1503f9b875")).toBeUndefined();
  });
});
