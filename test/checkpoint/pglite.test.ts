import { describe, expect, it } from "vitest";
import { PGliteCheckpointer } from "../../src/checkpoint/index.js";
import { describeCheckpointerConformance } from "../../src/testing/index.js";

describeCheckpointerConformance(
  "PGliteCheckpointer(memory://)",
  () => new PGliteCheckpointer("memory://"),
);

describe("PGliteCheckpointer", () => {
  it("rejects a table prefix that is not a plain identifier", () => {
    expect(() => new PGliteCheckpointer({ tablePrefix: "x; drop table y" })).toThrow(
      /Table prefix/,
    );
  });

  it("can be closed before first use; later calls say it is closed", async () => {
    const store = new PGliteCheckpointer();
    await store.close();
    await expect(store.getLatest("t")).rejects.toMatchObject({ code: "CHECKPOINTER_CLOSED" });
  });
});
