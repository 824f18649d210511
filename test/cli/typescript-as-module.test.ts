// The CLI's module hook: in a CommonJS package, TypeScript resolves as an ES module (so that it
// imports the server's stateweaver); everything else keeps the format the next hook gives.
import { describe, expect, it } from "vitest";
import { resolve } from "../../src/cli/typescript-as-module.js";

type Resolved = { url: string; format?: string | null };

/** Resolve `url` through the hook, the next hook answering with `format`. */
async function formatOf(url: string, format?: string): Promise<string | null | undefined> {
  const next = async (): Promise<Resolved> => ({ url, format });
  const context = {
    conditions: ["node", "import"],
    importAttributes: {},
    importAssertions: {},
    parentURL: "file:///app/stateweaver.js",
  };
  const resolved = (await resolve(url, context, next as never)) as Resolved | undefined;
  expect(resolved?.url).toBe(url);
  return resolved?.format;
}

describe("the CLI's TypeScript module hook", () => {
  it("resolves a .ts or .tsx file as an ES module whether the next hook says CommonJS or nothing", async () => {
    expect(await formatOf("file:///app/graphs/publish.ts", "commonjs")).toBe("module");
    expect(await formatOf("file:///app/graphs/publish.ts")).toBe("module");
    expect(await formatOf("file:///app/graphs/view.tsx", "commonjs-typescript")).toBe("module");
  });

  it("leaves .cts, JavaScript, JSON and builtins as the next hook resolved them", async () => {
    expect(await formatOf("file:///app/legacy.cts", "commonjs")).toBe("commonjs");
    expect(await formatOf("file:///app/plain.cjs", "commonjs")).toBe("commonjs");
    expect(await formatOf("file:///app/plain.js", "commonjs")).toBe("commonjs");
    expect(await formatOf("file:///app/data.json", "json")).toBe("json");
    expect(await formatOf("node:fs", "builtin")).toBe("builtin");
  });
});
