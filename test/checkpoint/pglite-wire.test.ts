import { protocol } from "@electric-sql/pglite";
import { describe, expect, it } from "vitest";
import { executeMessage } from "../../src/checkpoint/pglite-wire.js";

/** What PGlite's own serializer writes for the same run of a prepared statement. */
function pgliteMessage(name: string, values: Array<string | null>): Uint8Array {
  const { serialize } = protocol;
  const parts = [
    serialize.bind({ statement: name, values }),
    serialize.describe({ type: "P" }),
    serialize.execute({}),
    serialize.sync(),
  ];
  return Uint8Array.from(parts.flatMap((part) => [...part]));
}

describe("executeMessage", () => {
  it.each([
    ["no parameters", "stateweaver_a", []],
    ["text, empty and null parameters", "stateweaver_b", ["t1", "", null, "x"]],
    ["multi-byte text", "stateweaver_c", ["é", "日本語", "👍 ok", '{"a":"\\"q\\""}']],
    ["a long JSON payload", "stateweaver_d", [JSON.stringify({ text: "y".repeat(5_000) }), null]],
    ["an array literal", "stateweaver_e", ['{"a","b\\"c",NULL}', "{}"]],
  ] as Array<[string, string, Array<string | null>]>)(
    "writes what PGlite's serializer writes: %s",
    (_what, name, values) => {
      expect([...executeMessage(name, values)]).toEqual([...pgliteMessage(name, values)]);
    },
  );
});
