// command.update in a request body: an object, or LangGraph's [key, value] pairs.
import { describe, expect, it } from "vitest";
import { commandUpdate } from "../../src/server/command-update.js";

describe("command.update", () => {
  it("takes an object of state keys as it is", () => {
    expect(commandUpdate.parse({ keyOne: "value1" })).toEqual({ keyOne: "value1" });
  });

  it("turns [key, value] pairs into the object they name", () => {
    expect(
      commandUpdate.parse([
        ["keyOne", "value1"],
        ["keyTwo", "value2"],
      ]),
    ).toEqual({ keyOne: "value1", keyTwo: "value2" });
  });

  it("keeps a __proto__ pair as a key, never the object's prototype", () => {
    const update = commandUpdate.parse([["__proto__", { polluted: true }]]) as Record<
      string,
      unknown
    >;
    expect(Object.keys(update)).toEqual(["__proto__"]);
    expect(Object.getPrototypeOf(update)).toBe(Object.prototype);
  });

  it("refuses a key named twice, saying to send each key once", () => {
    const parsed = commandUpdate.safeParse([
      ["keyOne", "a"],
      ["keyOne", "b"],
    ]);
    expect(parsed.success).toBe(false);
    expect(JSON.stringify(parsed.error?.issues)).toContain('names \\"keyOne\\" twice');
  });

  it("refuses a pair that is not [string, value]", () => {
    expect(commandUpdate.safeParse([["keyOne"]]).success).toBe(false);
    expect(commandUpdate.safeParse([[1, "a"]]).success).toBe(false);
  });
});
