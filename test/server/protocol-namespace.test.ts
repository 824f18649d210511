import { describe, expect, it } from "vitest";
import { checkpointNamespace, protocolSegment } from "../../src/server/protocol/namespace.js";

describe("protocol namespaces", () => {
  it("write a subgraph's task id without colons, so the SDK names the subgraph by its node", () => {
    expect(protocolSegment("child:2:child:0")).toBe("child:2.child.0");
    expect(protocolSegment("child")).toBe("child");
  });

  it("name the checkpoint namespace they came from, level by level", () => {
    const levels = ["outer:1:outer:0", "inner:3:inner:2"];
    expect(checkpointNamespace(levels.map(protocolSegment))).toBe(levels.join("|"));
    expect(checkpointNamespace([])).toBe("");
  });
});
