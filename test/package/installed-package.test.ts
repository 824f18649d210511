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
import { execFile, spawn } from "node:child_process";
import { cp, mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { type AddressInfo, createServer as createNetServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

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
  bin: Record<string, string>;
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

/** Pack the working tree as a clone would (npm runs `prepare`), install it offline into a new project. */
async function installPackedPackage(): Promise<{ app: string; clone: string; pkg: PackageJson }> {
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
          bin: pkg.bin,
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
  return { app, clone, pkg };
}

let project: { app: string; clone: string; pkg: PackageJson } | undefined;
beforeAll(async () => {
  project = await installPackedPackage();
}, 600_000);

describe("the installed package", () => {
  it("builds through prepare when packed from a clone, installs offline, and every exports entry imports with plain node", async () => {
    const { app, pkg } = project!;

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
  });

  it("runs the demo with npm start in the clone, from what prepare built: the inbox page and the seeded reviews, with plain node", async () => {
    const { clone } = project!;
    const dataDir = join(work!, "demo-data");
    const { DATABASE_URL: _db, STATEWEAVER_TOKEN: _token, ...userEnv } = env;
    // npm start as the README runs it, in a clone whose dist/ only prepare made.
    const child = spawn("npm", ["start"], {
      cwd: clone,
      env: { ...userEnv, PORT: "0", STATEWEAVER_DATA_DIR: dataDir },
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    const serving = new Promise<string>((resolve, reject) => {
      const take = (chunk: Buffer) => {
        output += chunk;
        const url = /serving ops at (http:\/\/\S+)/.exec(output)?.[1];
        if (url) resolve(url);
      };
      child.stdout.on("data", take);
      child.stderr.on("data", take);
      child.once("exit", () => reject(new Error(`npm start ended:\n${output}`)));
    });
    try {
      const url = await serving;
      const page = await fetch(`${url}/`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain("<html");
      const waiting = await fetch(`${url}/threads/search`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ status: "interrupted" }),
      });
      expect(((await waiting.json()) as unknown[]).length).toBe(4);
    } finally {
      await stopGroup(child.pid);
    }
    // The command runs the built CLI on the built demo: no tsx, no sources.
    const { scripts } = JSON.parse(await readFile(join(clone, "package.json"), "utf8")) as {
      scripts: Record<string, string>;
    };
    expect(scripts.start).not.toMatch(/tsx|source/);
    expect(output).not.toMatch(/error|warn/i);
  }, 120_000);

  it("serves a project's own .ts and .js graphs with npx stateweaver serve: each resumes over the SDK and through the inbox's decision endpoint, across restarts", async () => {
    const { app } = project!;
    // A user's project: tsx installed, one graph in TypeScript and one in JavaScript.
    await symlink(join(repo, "node_modules", "tsx"), join(app, "node_modules", "tsx"), "dir");
    await mkdir(join(app, "graphs"));
    await writeFile(join(app, "graphs", "publish.ts"), TS_GRAPH);
    await writeFile(join(app, "graphs", "publish.js"), JS_GRAPH);
    await writeFile(
      join(app, "stateweaver.json"),
      JSON.stringify({
        graphs: { typed: "./graphs/publish.ts:graph", plain: "./graphs/publish.js:graph" },
      }),
    );
    const ids = ["typed", "plain"] as const;
    const threads: Record<string, string> = {};
    const runs: Record<string, string> = {};

    // First run: each graph pauses at its first question.
    let server = await serve(app);
    try {
      for (const id of ids) {
        const thread = await server.client.threads.create({ graphId: id });
        threads[id] = thread.thread_id;
        await server.client.runs.wait(thread.thread_id, id, { input: { topic: `post-${id}` } });
        const state = await server.client.threads.getState(thread.thread_id);
        expect(state.next, id).toEqual(["ask"]);
      }
    } finally {
      await server.stop();
    }

    // After a restart, the SDK's resume command answers the first question.
    server = await serve(app);
    try {
      for (const id of ids) {
        const values = await server.client.runs.wait(threads[id]!, id, {
          command: { resume: `yes-${id}` },
        });
        expect(values, id).toMatchObject({ topic: `post-${id}`, first: `yes-${id}` });
        const state = await server.client.threads.getState(threads[id]!);
        expect(state.next, id).toEqual(["confirm"]);
      }
    } finally {
      await server.stop();
    }

    // After another restart, the inbox's decision endpoint answers the second.
    server = await serve(app);
    try {
      for (const id of ids) {
        const page = (await server.inbox(`/inbox/threads/${threads[id]}`)) as {
          pending: Array<{ interruptId: string; value: unknown }>;
          checkpointId: string;
        };
        expect(page.pending.map((p) => p.value)).toEqual([{ question: `Sure about post-${id}?` }]);
        const decided = (await server.inbox(`/inbox/threads/${threads[id]}/decisions`, {
          checkpointId: page.checkpointId,
          interruptId: page.pending[0]!.interruptId,
          answer: `sure-${id}`,
          idempotencyKey: `decide-${id}`,
        })) as { runId: string };
        runs[id] = decided.runId;
      }
      for (const id of ids) {
        await server.client.runs.join(threads[id]!, runs[id]!);
        const thread = await server.client.threads.get(threads[id]!);
        expect(thread.status, id).toBe("idle");
        // The answers reached the nodes, and nothing of the command leaked into the state.
        expect(thread.values, id).toEqual({
          topic: `post-${id}`,
          first: `yes-${id}`,
          second: `sure-${id}`,
          ...(id === "typed" && { loadedFrom: SHARED_STATEWEAVER }),
        });
        const state = await server.client.threads.getState(threads[id]!);
        expect(state.next, id).toEqual([]);
      }
    } finally {
      await server.stop();
    }
  }, 300_000);
});

// Type annotations make this file TypeScript for real: plain node cannot load it. `loadedFrom`
// records which stateweaver the graph got: the one the server runs, not a second copy.
const TS_GRAPH = `import { END, Graph, interrupt, START } from "stateweaver";

interface Publish {
  topic: string;
  first?: string;
  second?: string;
  loadedFrom?: string;
}

const ask = (s: Publish): Partial<Publish> => ({
  first: interrupt<string>({ question: \`Publish \${s.topic}?\` }),
  loadedFrom: import.meta.resolve("stateweaver"),
});

export const graph = new Graph<Publish>({ name: "PublishTyped" })
  .addNode("ask", ask)
  .addNode("confirm", (s: Publish) => ({ second: interrupt<string>({ question: \`Sure about \${s.topic}?\` }) }))
  .addEdge(START, "ask")
  .addEdge("ask", "confirm")
  .addEdge("confirm", END)
  .compile();
`;

const JS_GRAPH = `import { END, Graph, interrupt, START } from "stateweaver";

export const graph = new Graph({ name: "PublishPlain" })
  .addNode("ask", (s) => ({ first: interrupt({ question: \`Publish \${s.topic}?\` }) }))
  .addNode("confirm", (s) => ({ second: interrupt({ question: \`Sure about \${s.topic}?\` }) }))
  .addEdge(START, "ask")
  .addEdge("ask", "confirm")
  .addEdge("confirm", END)
  .compile();
`;

/** What `import.meta.resolve("stateweaver")` gives in the user's graph: the installed entry, no loader namespace. */
const SHARED_STATEWEAVER = expect.stringMatching(
  /\/app\/node_modules\/stateweaver\/dist\/src\/index\.js$/,
);

/** A free port on loopback. */
async function freePort(): Promise<number> {
  const probe = createNetServer();
  await new Promise<void>((done) => probe.listen(0, "127.0.0.1", done));
  const { port } = probe.address() as AddressInfo;
  await new Promise((done) => probe.close(done));
  return port;
}

/** `npx stateweaver serve` in `app` on a free port, with the SDK client and the inbox's API. */
async function serve(app: string) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const { DATABASE_URL: _db, STATEWEAVER_TOKEN: _token, ...userEnv } = env;
  const child = spawn("npx", ["--no-install", "stateweaver", "serve", "--port", String(port)], {
    cwd: app,
    env: userEnv,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk) => {
    output += chunk;
  });
  child.stderr.on("data", (chunk) => {
    output += chunk;
  });
  const exited = new Promise<void>((done) => child.once("exit", () => done()));
  const started = Date.now();
  for (;;) {
    const up = await fetch(`${url}/ok`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    if (child.exitCode !== null || Date.now() - started > 60_000) {
      await stopGroup(child.pid);
      throw new Error(`stateweaver serve did not start:\n${output}`);
    }
    await new Promise((done) => setTimeout(done, 200));
  }
  const client = new Client({ apiUrl: url });
  return {
    client,
    /** GET a path of the inbox API, or POST `body` to it; the JSON answer (2xx only). */
    async inbox(path: string, body?: unknown): Promise<unknown> {
      const response = await fetch(`${url}${path}`, {
        method: body === undefined ? "GET" : "POST",
        headers: { "content-type": "application/json" },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
      const json = (await response.json()) as unknown;
      if (!response.ok) throw new Error(`${path}: ${response.status} ${JSON.stringify(json)}`);
      return json;
    },
    async stop() {
      await stopGroup(child.pid);
      await exited;
      expect(output, "the server's output").toMatch(/^stateweaver serving typed, plain at /);
      expect(output, "the server's output").not.toMatch(/error|warn/i);
    },
  };
}

/**
 * SIGTERM to the process group this test spawned (npx and the server it runs), then wait
 * until all of it has ended: the next server must find the PGlite directory unlocked.
 */
async function stopGroup(pid: number | undefined): Promise<void> {
  if (pid === undefined) return;
  const alive = () => {
    try {
      process.kill(-pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  if (alive()) process.kill(-pid, "SIGTERM");
  while (alive()) await new Promise((done) => setTimeout(done, 100));
}
