/**
 * The package as a user installs it: dist/ is not committed, so `prepare` must
 * build it whenever npm installs from a git repository or a folder. This test
 * copies the working tree as a fresh clone would have it (no dist, no
 * node_modules), packs it (npm runs `prepare`), installs the tarball into an
 * empty project and imports every entry point of "exports" with plain node.
 *
 * No network: the consumer's lockfile is this repository's, cut down to the
 * runtime dependencies, so `npm ci --offline` takes every tarball from the npm
 * cache that `npm ci` here filled.
 */
import { execFile } from "node:child_process";
import { cp, mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

const exec = promisify(execFile);
const repo = new URL("../..", import.meta.url).pathname;

/** One export each entry point must offer, and what it must be. */
const KNOWN_EXPORTS: Record<string, { name: string; type: string }> = {
  ".": { name: "Graph", type: "function" },
  "./checkpoint": { name: "MemoryCheckpointer", type: "function" },
  "./agent": { name: "createAgent", type: "function" },
  "./models": { name: "initChatModel", type: "function" },
  "./testing": { name: "graphPaths", type: "function" },
  "./server": { name: "createServer", type: "function" },
  "./runs": { name: "createRuns", type: "function" },
  "./store": { name: "MemoryStore", type: "function" },
};

interface PackageJson {
  name: string;
  version: string;
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional: boolean }>;
  exports: Record<string, Record<string, string>>;
}
interface LockEntry {
  dev?: boolean;
  devOptional?: boolean;
}

// npm's own variables (set when vitest runs under `npm test`) would leak into the child npm.
const env = Object.fromEntries(
  Object.entries(process.env).filter(([key]) => !key.toLowerCase().startsWith("npm_")),
);
const npm = (args: string[], cwd: string) =>
  exec("npm", [...args, "--no-audit", "--no-fund", "--no-update-notifier"], { cwd, env });

let work: string | undefined;
afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

/** The working tree's files as a clone of it would have them: tracked and new, not ignored. */
async function copyCheckout(to: string): Promise<void> {
  const { stdout } = await exec(
    "git",
    ["ls-files", "-z", "--cached", "--others", "--exclude-standard"],
    {
      cwd: repo,
    },
  );
  for (const file of stdout.split("\0").filter(Boolean)) {
    const exists = await stat(join(repo, file)).then(
      (s) => s.isFile(),
      () => false, // deleted in the working tree, not yet committed
    );
    if (!exists) continue;
    await mkdir(dirname(join(to, file)), { recursive: true });
    await cp(join(repo, file), join(to, file));
  }
  // The build tools, as `npm ci` in a clone installs them.
  await symlink(join(repo, "node_modules"), join(to, "node_modules"), "dir");
}

describe("the installed package", () => {
  it("builds through prepare when packed from a clone, installs offline, and every exports entry imports with plain node", async () => {
    work = await mkdtemp(join(tmpdir(), "stateweaver-install-"));
    const clone = join(work, "stateweaver");
    const app = join(work, "app");
    await copyCheckout(clone);
    await expect(stat(join(clone, "dist"))).rejects.toThrow(/ENOENT/);

    const packed = await npm(["pack", "--json", "--pack-destination", work], clone);
    const [{ filename }] = JSON.parse(packed.stdout) as [{ filename: string }];

    const pkg = JSON.parse(await readFile(join(repo, "package.json"), "utf8")) as PackageJson;
    const lock = JSON.parse(await readFile(join(repo, "package-lock.json"), "utf8")) as {
      packages: Record<string, LockEntry>;
    };
    const runtime = Object.entries(lock.packages).filter(
      ([path, entry]) => path !== "" && !entry.dev && !entry.devOptional,
    );
    const tarball = `file:../${filename}`;
    const manifest = { name: "app", version: "1.0.0", private: true, type: "module" };
    await mkdir(app);
    await writeFile(
      join(app, "package.json"),
      JSON.stringify({ ...manifest, dependencies: { [pkg.name]: tarball } }),
    );
    await writeFile(
      join(app, "package-lock.json"),
      JSON.stringify({
        ...manifest,
        lockfileVersion: 3,
        requires: true,
        packages: {
          "": { ...manifest, dependencies: { [pkg.name]: tarball } },
          [`node_modules/${pkg.name}`]: {
            version: pkg.version,
            resolved: tarball,
            dependencies: pkg.dependencies,
            peerDependencies: pkg.peerDependencies,
            peerDependenciesMeta: pkg.peerDependenciesMeta,
          },
          ...Object.fromEntries(runtime),
        },
      }),
    );
    await npm(["ci", "--offline"], app).catch((error: { stderr: string }) => {
      throw new Error(
        `npm ci --offline failed; is the npm cache filled (run npm ci in the repository)?\n${error.stderr}`,
      );
    });

    // stateweaver/testing runs on vitest, an optional peer: a user of it has vitest installed.
    await symlink(join(repo, "node_modules", "vitest"), join(app, "node_modules", "vitest"), "dir");

    // Every entry point, as a user's ESM code imports it: plain node, no tsx, no "source" condition.
    expect(Object.keys(pkg.exports).sort()).toEqual(Object.keys(KNOWN_EXPORTS).sort());
    const script = `
      const known = ${JSON.stringify(KNOWN_EXPORTS)};
      const seen = {};
      for (const [entry, { name }] of Object.entries(known)) {
        const mod = await import(${JSON.stringify(pkg.name)} + entry.slice(1));
        seen[entry] = typeof mod[name];
      }
      const { Graph, START, END } = await import(${JSON.stringify(pkg.name)});
      const graph = new Graph().addNode("inc", (s) => ({ n: s.n + 1 })).addEdge(START, "inc").addEdge("inc", END).compile();
      console.log(JSON.stringify({ seen, run: await graph.invoke({ n: 1 }) }));
    `;
    const imported = await exec(process.execPath, ["--input-type=module", "-e", script], {
      cwd: app,
      env,
    });
    expect(imported.stderr).toBe("");
    expect(JSON.parse(imported.stdout)).toEqual({
      seen: Object.fromEntries(Object.entries(KNOWN_EXPORTS).map(([e, { type }]) => [e, type])),
      run: { status: "done", state: { n: 2 } },
    });

    // Every file an entry names (types and sources too) was packed.
    const installed = join(app, "node_modules", pkg.name);
    for (const targets of Object.values(pkg.exports)) {
      for (const [condition, target] of Object.entries(targets)) {
        await expect(
          stat(join(installed, target)),
          `${condition}: ${target}`,
        ).resolves.toBeTruthy();
      }
    }
  }, 120_000);
});
