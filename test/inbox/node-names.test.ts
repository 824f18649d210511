/** Node names as the reviewer reads them on the list and thread pages. */
import { describe, expect, it } from "vitest";
import { nodeName } from "../../src/inbox/web/node-names.js";

describe("reviewer-facing node names", () => {
  it("calls the human-in-the-loop hook a tool review and spells other hooks out", () => {
    expect(nodeName("humanInTheLoop/afterModel")).toBe("tool review");
    expect(nodeName("modelCallLimit/beforeModel")).toBe("model call limit (before the model)");
    expect(nodeName("audit_log/afterAgent")).toBe("audit log (after the agent)");
  });

  it("keeps the graph's own names and names the runtime's start and end", () => {
    expect(nodeName("model")).toBe("model");
    expect(nodeName("tools")).toBe("tools");
    expect(nodeName("deploy")).toBe("deploy");
    expect(nodeName("__start__")).toBe("start");
    expect(nodeName("__end__")).toBe("end");
  });
});
