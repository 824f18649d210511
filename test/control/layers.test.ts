/**
 * The bottom layers stand alone: the shared value types (src/control) import nothing of
 * ours, errors only the brands, and models nothing from the graph or anything above it.
 */
import { readdir, readFile } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const src = new URL("../../src", import.meta.url).pathname;

/** The folders under src/ that a layer's files import from (its own excluded). */
async function importedLayers(layer: string): Promise<Map<string, string[]>> {
  const found = new Map<string, string[]>();
  const files = (await readdir(join(src, layer), { recursive: true })).filter((f) =>
    f.endsWith(".ts"),
  );
  for (const file of files) {
    const path = join(src, layer, file);
    const text = await readFile(path, "utf8");
    for (const [, specifier] of text.matchAll(/(?:from|import\()\s*"(\.[^"]+)"/g)) {
      const target = relative(src, resolve(dirname(path), specifier!)).split("/")[0]!;
      if (target === layer) continue;
      found.set(target, [...(found.get(target) ?? []), `${layer}/${file}`]);
    }
  }
  return found;
}

describe("the bottom layers", () => {
  it.each([
    ["control", []],
    ["errors", ["control"]],
    ["models", ["checkpoint", "control", "errors", "runtime"]],
    // The audit log sits below runs and the server, so workers and the CLI use it alone.
    ["audit", ["checkpoint", "control", "errors"]],
  ])("%s imports only from the layers below it", async (layer, allowed) => {
    const imported = await importedLayers(layer);
    const above = [...imported].filter(([target]) => !allowed.includes(target));
    expect(Object.fromEntries(above)).toEqual({});
  });
});
