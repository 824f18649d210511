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
    await installTsx(app);
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

  it("serves a graph factory a project exports with npx stateweaver serve: each run's graph is built from its own config", async () => {
    const { app } = project!;
    await installTsx(app);
    const made = join(dirname(app), "app-factory");
    await mkdir(made);
    await writeFile(
      join(made, "package.json"),
      JSON.stringify({ name: "app-factory", type: "module" }),
    );
    await symlink(join(app, "node_modules"), join(made, "node_modules"), "dir");
    await writeFile(join(made, "factory.ts"), FACTORY_GRAPH);
    // Generative UI too: the installed esbuild bundles the project's components at start.
    await writeFile(join(made, "ui.tsx"), UI_COMPONENTS);
    await writeFile(
      join(made, "stateweaver.json"),
      JSON.stringify({ graphs: { made: "./factory.ts:graph" }, ui: { made: "./ui.tsx" } }),
    );
    const server = await serve(made);
    try {
      const html = await server.client["~ui"].getComponent("made", "card");
      const src =
        /<script src="([^"]+)" onload='__LGUI_made\.render\("card", "\{\{shadowRootId\}\}"\)'>/.exec(
          html,
        )?.[1];
      expect(src, html).toBeDefined();
      expect(await fetch(src!).then((r) => r.text())).toContain(
        'globalThis[Symbol.for("LGUI_REQUIRE")]("react/jsx-runtime")',
      );

      const thread = await server.client.threads.create();
      const values = await server.client.runs.wait(thread.thread_id, "made", {
        input: {},
        config: { configurable: { step: "from_config" } },
      });
      expect(values).toEqual({ ran: "from_config" });
      // The thread is updated with the graph its run used: "from_config" is one of its nodes.
      await server.client.threads.updateState(thread.thread_id, {
        values: { ran: "edited" },
        asNode: "from_config",
      });
      expect((await server.client.threads.getState(thread.thread_id)).values).toEqual({
        ran: "edited",
      });
    } finally {
      await server.stop();
    }
  }, 120_000);

  it("require()s every exports entry from a CommonJS project, and gets the very modules import gives", async () => {
    const cjs = await commonJsProject();
    await writeFile(
      join(cjs, "entries.js"),
      `const entries = ${JSON.stringify(Object.keys(KNOWN_EXPORTS))};
(async () => {
  const same = {};
  for (const entry of entries) {
    const name = "stateweaver" + entry.slice(1);
    same[entry] = require(name) === (await import(name));
  }
  const { Graph, START, END } = require("stateweaver");
  const graph = new Graph().addNode("inc", (s) => ({ n: s.n + 1 })).addEdge(START, "inc").addEdge("inc", END).compile();
  console.log(JSON.stringify({ same, run: await graph.invoke({ n: 1 }) }));
})();
`,
    );
    const required = await exec(process.execPath, ["entries.js"], { cwd: cjs, env });
    expect(required.stderr).toBe("");
    expect(JSON.parse(required.stdout)).toEqual({
      same: Object.fromEntries(Object.keys(KNOWN_EXPORTS).map((entry) => [entry, true])),
      run: { status: "done", state: { n: 2 } },
    });
  });

  it("serves a CommonJS project's .ts graph, seed, auth and http.app and its .cjs graph with npx stateweaver serve: the modules share the server's stateweaver, and each thread resumes over the SDK after a restart", async () => {
    const cjs = await commonJsProject();
    await mkdir(join(cjs, "graphs"));
    await writeFile(join(cjs, "graphs", "publish.ts"), CJS_PROJECT_TS_GRAPH);
    await writeFile(join(cjs, "graphs", "question.ts"), CJS_PROJECT_QUESTION);
    await writeFile(join(cjs, "graphs", "publish.cjs"), CJS_PROJECT_CJS_GRAPH);
    await writeFile(join(cjs, "seed.ts"), CJS_PROJECT_SEED);
    await writeFile(join(cjs, "auth.ts"), CJS_PROJECT_AUTH);
    await writeFile(join(cjs, "routes.ts"), CJS_PROJECT_ROUTES);
    await writeFile(
      join(cjs, "stateweaver.json"),
      JSON.stringify({
        graphs: { typed: "./graphs/publish.ts:graph", plain: "./graphs/publish.cjs:graph" },
        seed: "./seed.ts:seed",
        auth: { path: "./auth.ts:auth" },
        http: { app: "./routes.ts:app" },
      }),
    );
    const ada = { authorization: "Bearer key-ada" };
    const threads: Record<string, { graph: string; topic: string }> = {
      [SEEDED_THREAD]: { graph: "typed", topic: "seeded" },
    };

    // First run: the seed paused one thread of the .ts graph; each graph pauses one more.
    let server = await serve(cjs, ada);
    try {
      const anonymous = await fetch(`${server.url}/threads/search`, { method: "POST", body: "{}" });
      expect(anonymous.status, "the .ts auth file guards the API").toBe(401);
      const hello = await fetch(`${server.url}/hello`, { headers: ada });
      expect(await hello.json(), "the .ts http.app answers its route").toEqual({
        hello: "from a CommonJS project",
      });
      expect((await server.client.threads.getState(SEEDED_THREAD)).next).toEqual(["ask"]);
      for (const graph of ["typed", "plain"]) {
        const thread = await server.client.threads.create({ graphId: graph });
        threads[thread.thread_id] = { graph, topic: `post-${graph}` };
        await server.client.runs.wait(thread.thread_id, graph, {
          input: { topic: `post-${graph}` },
        });
        expect((await server.client.threads.getState(thread.thread_id)).next).toEqual(["ask"]);
      }
    } finally {
      await server.stop();
    }

    // After a restart, the SDK's resume command answers both questions of every thread.
    server = await serve(cjs, ada);
    try {
      for (const [id, { graph, topic }] of Object.entries(threads)) {
        await server.client.runs.wait(id, graph, { command: { resume: `yes-${topic}` } });
        expect((await server.client.threads.getState(id)).next, topic).toEqual(["confirm"]);
        const values = await server.client.runs.wait(id, graph, {
          command: { resume: `sure-${topic}` },
        });
        expect(values, topic).toEqual({
          topic,
          first: `yes-${topic}`,
          second: `sure-${topic}`,
          ...(graph === "typed" && { reviewer: "ada", loadedFrom: SHARED_STATEWEAVER }),
        });
        expect((await server.client.threads.get(id)).status, topic).toBe("idle");
      }
    } finally {
      await server.stop();
    }
  }, 300_000);

  it("stops serve with what to do when a CommonJS project's TypeScript expects CommonJS: __dirname in a .ts module, or a .cts module", async () => {
    const cjs = await commonJsProject();
    await writeFile(join(cjs, "dirname.ts"), "export const graph: string = __dirname;\n");
    await writeFile(join(cjs, "legacy.cts"), 'exports.graph = require("stateweaver");\n');
    const refusal = async (module: string) => {
      const config = join(cjs, `${module}.json`);
      await writeFile(config, JSON.stringify({ graphs: { typed: `./${module}:graph` } }));
      const served = await exec(
        "npx",
        ["--no-install", "stateweaver", "serve", "--config", config],
        {
          cwd: cjs,
          env: userEnv(),
        },
      ).then(
        () => ({ stderr: "it started" }),
        (failed: { stderr: string }) => failed,
      );
      return served.stderr;
    };
    expect(await refusal("dirname.ts")).toMatch(
      /^stateweaver: graphs.typed: file:\S+\/dirname.ts runs as an ES module \(stateweaver serve and worker load .ts files as ES modules, in a CommonJS package too, so that they share the server's stateweaver\), and __dirname is not defined there: use import in place of require, and import.meta.dirname or import.meta.filename in place of __dirname or __filename.$/m,
    );
    expect(await refusal("legacy.cts")).toMatch(
      /^stateweaver: graphs.typed: file:\S+\/legacy.cts is CommonJS TypeScript \(.cts\), which stateweaver serve and worker cannot load \(.*\): rename it .ts or .mts \(an ES module that imports stateweaver\), or compile it to JavaScript.$/m,
    );
  }, 120_000);
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

const FACTORY_GRAPH = `import { END, Graph, type RunConfig, START } from "stateweaver";

export const graph = async (config: RunConfig) => {
  const step = String(config.configurable?.step ?? "first");
  return new Graph<{ ran?: string }>({ name: "Made" })
    .addNode(step, () => ({ ran: step }))
    .addEdge(START, step)
    .addEdge(step, END);
};
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

/** A thread the CommonJS project's seed starts. */
const SEEDED_THREAD = "5eed0000-0000-4000-8000-000000000001";

// The CommonJS project's modules, written as such a project writes them: ES module syntax in
// .ts, extensionless relative imports, CommonJS in .cjs. `loadedFrom` needs import.meta: the
// .ts graph runs as an ES module even though its package is CommonJS.
const CJS_PROJECT_TS_GRAPH = `import { END, Graph, interrupt, type NodeRuntime, START } from "stateweaver";
import { question } from "./question";

interface Publish {
  topic: string;
  first?: string;
  second?: string;
  reviewer?: string;
  loadedFrom?: string;
}

export const SEEDED_THREAD = "${SEEDED_THREAD}";

export const graph = new Graph<Publish>({ name: "PublishCommonJs" })
  .addNode("ask", (s: Publish) => ({ first: interrupt<string>({ question: question(s.topic) }) }))
  .addNode("confirm", (s: Publish, runtime: NodeRuntime) => ({
    second: interrupt<string>({ question: \`Sure about \${s.topic}?\` }),
    reviewer: (runtime.config.configurable?.langgraph_auth_user as { identity: string }).identity,
    loadedFrom: import.meta.resolve("stateweaver"),
  }))
  .addEdge(START, "ask")
  .addEdge("ask", "confirm")
  .addEdge("confirm", END)
  .compile();
`;

const CJS_PROJECT_QUESTION = `export const question = (topic: string): string => \`Publish \${topic}?\`;
`;

const CJS_PROJECT_CJS_GRAPH = `const { END, Graph, interrupt, START } = require("stateweaver");

exports.graph = new Graph({ name: "PublishRequired" })
  .addNode("ask", (s) => ({ first: interrupt({ question: \`Publish \${s.topic}?\` }) }))
  .addNode("confirm", (s) => ({ second: interrupt({ question: \`Sure about \${s.topic}?\` }) }))
  .addEdge(START, "ask")
  .addEdge("ask", "confirm")
  .addEdge("confirm", END)
  .compile();
`;

const CJS_PROJECT_SEED = `import { type graph, SEEDED_THREAD } from "./graphs/publish";

export async function seed(graphs: Record<string, typeof graph>): Promise<void> {
  const config = { configurable: { thread_id: SEEDED_THREAD } };
  await graphs.typed!.invoke({ topic: "seeded" }, { config });
}
`;

const CJS_PROJECT_AUTH = `import { Auth, HTTPException } from "@langchain/langgraph-sdk/auth";

const users: Record<string, string> = { "Bearer key-ada": "ada" };

export const auth = new Auth().authenticate(async (request: Request) => {
  const identity = users[request.headers.get("authorization") ?? ""];
  if (!identity) throw new HTTPException(401, { message: "Unknown key." });
  return { identity, permissions: [] };
});
`;

const CJS_PROJECT_ROUTES = `import { Hono } from "hono";

const greeting: string = "from a CommonJS project";

export const app = new Hono().get("/hello", (c) => c.json({ hello: greeting }));
`;

/** A generative-UI components module (React comes from the page, so none is installed). */
const UI_COMPONENTS = `const Card = (props: { title: string }) => <b>{props.title}</b>;
export default { card: Card };
`;

/** tsx, as a user installs it (npm i -D tsx), in the project's node_modules. */
async function installTsx(app: string): Promise<void> {
  await symlink(join(repo, "node_modules", "tsx"), join(app, "node_modules", "tsx"), "dir").catch(
    (error: { code?: string }) => {
      if (error.code !== "EEXIST") throw error;
    },
  );
}

let commonJs: Promise<string> | undefined;
/**
 * A CommonJS project beside the installed one: the package.json \`npm init -y\` writes (npm 10;
 * npm 11 adds \`"type": "commonjs"\`, the same to Node), with the installed node_modules and tsx.
 */
function commonJsProject(): Promise<string> {
  commonJs ??= (async () => {
    const { app } = project!;
    await installTsx(app);
    const cjs = join(dirname(app), "app-cjs");
    await mkdir(cjs);
    await writeFile(
      join(cjs, "package.json"),
      JSON.stringify(
        {
          name: "app-cjs",
          version: "1.0.0",
          description: "",
          main: "index.js",
          scripts: { test: 'echo "Error: no test specified" && exit 1' },
          keywords: [],
          author: "",
          license: "ISC",
        },
        null,
        2,
      ),
    );
    await symlink(join(app, "node_modules"), join(cjs, "node_modules"), "dir");
    return cjs;
  })();
  return commonJs;
}

/** The environment a user's shell gives `npx stateweaver`: no database, no token. */
function userEnv(): NodeJS.ProcessEnv {
  const { DATABASE_URL: _db, STATEWEAVER_TOKEN: _token, ...rest } = env;
  return rest;
}

/** A free port on loopback. */
async function freePort(): Promise<number> {
  const probe = createNetServer();
  await new Promise<void>((done) => probe.listen(0, "127.0.0.1", done));
  const { port } = probe.address() as AddressInfo;
  await new Promise((done) => probe.close(done));
  return port;
}

/**
 * `npx stateweaver serve` in `app` on a free port, with the SDK client and the inbox's API,
 * both sending `headers`.
 */
async function serve(app: string, headers: Record<string, string> = {}) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn("npx", ["--no-install", "stateweaver", "serve", "--port", String(port)], {
    cwd: app,
    env: userEnv(),
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
    // The line comes once the seed has run (the API answers while it runs).
    if (up && /^stateweaver serving /m.test(output)) break;
    if (child.exitCode !== null || Date.now() - started > 60_000) {
      await stopGroup(child.pid);
      throw new Error(`stateweaver serve did not start:\n${output}`);
    }
    await new Promise((done) => setTimeout(done, 200));
  }
  const client = new Client({ apiUrl: url, defaultHeaders: headers });
  return {
    url,
    client,
    /** GET a path of the inbox API, or POST `body` to it; the JSON answer (2xx only). */
    async inbox(path: string, body?: unknown): Promise<unknown> {
      const response = await fetch(`${url}${path}`, {
        method: body === undefined ? "GET" : "POST",
        headers: { ...headers, "content-type": "application/json" },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
      const json = (await response.json()) as unknown;
      if (!response.ok) throw new Error(`${path}: ${response.status} ${JSON.stringify(json)}`);
      return json;
    },
    async stop() {
      await stopGroup(child.pid);
      await exited;
      expect(output, "the server's output").toMatch(/^stateweaver serving \S.* at http:\/\//m);
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
