/**
 * The bottom layers stand alone: the shared value types (src/control) import nothing of
 * ours, errors only the brands, and models nothing from the graph or anything above it.
 * Inside src/graph, each job's folder imports only the folders below it, with no circles.
 */
import { readdir, readFile } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const src = new URL("../../src", import.meta.url).pathname;

/** Every relative import (or module augmentation) of the files under `folder` (a path below src/), as paths below src/. */
async function importsUnder(folder: string): Promise<Array<{ file: string; target: string }>> {
  const found: Array<{ file: string; target: string }> = [];
  const files = (await readdir(join(src, folder), { recursive: true })).filter((f) =>
    f.endsWith(".ts"),
  );
  for (const file of files) {
    const path = join(src, folder, file);
    const text = await readFile(path, "utf8");
    for (const [, specifier] of text.matchAll(/(?:from|import\(|declare module)\s*"(\.[^"]+)"/g)) {
      found.push({
        file: `${folder}/${file}`,
        target: relative(src, resolve(dirname(path), specifier!)),
      });
    }
  }
  return found;
}

/** The folders under src/ that a layer's files import from (its own excluded). */
async function importedLayers(layer: string): Promise<Map<string, string[]>> {
  const found = new Map<string, string[]>();
  for (const { file, target } of await importsUnder(layer)) {
    const targetLayer = target.split("/")[0]!;
    if (targetLayer === layer) continue;
    found.set(targetLayer, [...(found.get(targetLayer) ?? []), file]);
  }
  return found;
}

describe("the bottom layers", () => {
  it.each([
    ["control", []],
    ["errors", ["control"]],
    // models may name the store's Embeddings shape (runtime, below models, holds the store).
    ["models", ["checkpoint", "control", "errors", "runtime", "store"]],
    // The audit log sits below runs and the server, so workers and the CLI use it alone.
    ["audit", ["checkpoint", "control", "errors"]],
  ])("%s imports only from the layers below it", async (layer, allowed) => {
    const imported = await importedLayers(layer);
    const above = [...imported].filter(([target]) => !allowed.includes(target));
    expect(Object.fromEntries(above)).toEqual({});
  });
});

/**
 * src/graph's folders, each with those it may import. `Graph` and `CompiledGraph` sit on
 * top (files directly in src/graph, "top" here) and may import them all; no folder imports
 * the top.
 */
const graphFolders: Record<string, string[]> = {
  definition: [],
  compiling: ["definition"],
  running: ["definition", "compiling"],
  drawing: ["definition"],
};

/** The folder of src/graph a path below src/ lies in: a job's folder, or "top". */
const graphFolderOf = (path: string) => {
  const parts = path.split("/");
  return parts.length > 2 ? parts[1]! : "top";
};

/** Imports between src/graph's folders, as folder -> the folders it imports (with one file each). */
async function graphFolderImports(): Promise<Map<string, Map<string, string>>> {
  const edges = new Map<string, Map<string, string>>();
  for (const { file, target } of await importsUnder("graph")) {
    if (!target.startsWith("graph/")) continue;
    const from = graphFolderOf(file);
    const to = graphFolderOf(target);
    if (from === to) continue;
    const out = edges.get(from) ?? new Map<string, string>();
    if (!out.has(to)) out.set(to, `${file} -> ${target}`);
    edges.set(from, out);
  }
  return edges;
}

/** Every circle in a graph of folders, each as the folders along it (first one repeated at the end). */
function circles(edges: Map<string, Map<string, string>>): string[][] {
  const found: string[][] = [];
  const walk = (path: string[]) => {
    for (const next of edges.get(path.at(-1)!)?.keys() ?? []) {
      if (next === path[0]) found.push([...path, next]);
      // Each circle once: from its smallest folder name.
      else if (!path.includes(next) && next > path[0]!) walk([...path, next]);
    }
  };
  for (const start of edges.keys()) walk([start]);
  return found;
}

describe("the folders of src/graph", () => {
  it("are the ones the layering names (a new folder gets a place in it)", async () => {
    const entries = await readdir(join(src, "graph"), { withFileTypes: true });
    const folders = entries.filter((e) => e.isDirectory()).map((e) => e.name);
    expect(folders.sort()).toEqual(Object.keys(graphFolders).sort());
  });

  it.each(Object.entries(graphFolders))(
    "%s imports only the folders below it",
    async (folder, allowed) => {
      const imported = (await graphFolderImports()).get(folder) ?? new Map<string, string>();
      const above = [...imported].filter(([to]) => !allowed.includes(to));
      expect(Object.fromEntries(above)).toEqual({});
    },
  );

  it("import each other in no circle", async () => {
    expect(circles(await graphFolderImports())).toEqual([]);
  });

  it("find a circle when there is one (the check above can fail)", () => {
    const edges = new Map([
      ["compiling", new Map([["running", "compiling/compile.ts -> graph/running/runner.ts"]])],
      ["running", new Map([["compiling", "running/runner.ts -> graph/compiling/compile.ts"]])],
    ]);
    expect(circles(edges)).toEqual([["compiling", "running", "compiling"]]);
  });
});
