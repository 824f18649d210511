// The config file `serve` and `worker` read: stateweaver.json, or an existing langgraph.json
// as LangGraph writes it (graph entries, env, http.app, per-graph config).
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@langchain/langgraph-sdk";
import { afterEach, describe, expect, it } from "vitest";
import { MemoryCheckpointer } from "../../src/checkpoint/index.js";
import {
  createServer,
  findConfigFile,
  isFactoryGraph,
  loadServerConfig,
  parseEnv,
  ServerConfigError,
} from "../../src/server/index.js";

const graphs = fileURLToPath(new URL("./fixtures/cli-graphs.ts", import.meta.url));
const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** A project folder with these files in it. */
async function project(files: Record<string, string | object>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "stateweaver-config-"));
  dirs.push(dir);
  for (const [name, content] of Object.entries(files)) {
    await writeFile(
      join(dir, name),
      typeof content === "string" ? content : JSON.stringify(content),
    );
  }
  return dir;
}

describe("the config file", () => {
  it("is stateweaver.json when there is one, else langgraph.json, else a clear error", async () => {
    const both = await project({ "stateweaver.json": {}, "langgraph.json": {} });
    expect(findConfigFile(both)).toBe(join(both, "stateweaver.json"));
    const langgraph = await project({ "langgraph.json": {} });
    expect(findConfigFile(langgraph)).toBe(join(langgraph, "langgraph.json"));
    expect(findConfigFile(langgraph, "other.json")).toBe(join(langgraph, "other.json"));
    const empty = await project({});
    expect(() => findConfigFile(empty)).toThrow(ServerConfigError);
    expect(() => findConfigFile(empty)).toThrow(
      /No stateweaver.json or langgraph.json in .*--config/,
    );
  });

  it("reads a langgraph.json as LangGraph writes it, and names the keys it does not use", async () => {
    const dir = await project({
      "langgraph.json": {
        $schema: "https://langgra.ph/schema.json",
        node_version: "20",
        dependencies: ["."],
        graphs: { ops: `${graphs}:ops`, described: { path: `${graphs}:ops`, description: "d" } },
        env: ".env",
        http: { cors: { allow_origins: ["*"] } },
      },
      ".env": "# comment\nSW_CONFIG_TEST_A=from-file\nexport SW_CONFIG_TEST_B='quoted # kept'\n",
    });
    const env: NodeJS.ProcessEnv = { SW_CONFIG_TEST_A: "already set" };
    const config = await loadServerConfig(join(dir, "langgraph.json"), undefined, env);
    expect(Object.keys(config.graphs)).toEqual(["ops", "described"]);
    expect(env).toMatchObject({
      SW_CONFIG_TEST_A: "already set",
      SW_CONFIG_TEST_B: "quoted # kept",
    });
    expect(config.unused).toEqual(["node_version", "dependencies", "$schema", "http.cors"]);
    expect(config.routes).toBeUndefined();
  });

  it("reads store.ttl in LangGraph's shape, and refuses a TTL that is not minutes above 0", async () => {
    const dir = await project({
      "langgraph.json": {
        graphs: {},
        store: { ttl: { default_ttl: 10080, refresh_on_read: false, sweep_interval_minutes: 120 } },
      },
      "bad.json": { graphs: {}, store: { ttl: { default_ttl: -1 } } },
      "typo.json": { graphs: {}, store: { ttl: { default_tll: 5 } } },
    });
    const config = await loadServerConfig(join(dir, "langgraph.json"), undefined, {});
    expect(config.storeTtl).toEqual({
      defaultTtl: 10080,
      refreshOnRead: false,
      sweepIntervalMinutes: 120,
    });
    expect(config.unused).toEqual([]);
    await expect(loadServerConfig(join(dir, "bad.json"), undefined, {})).rejects.toThrow(
      /store\.ttl\.default_ttl: default_ttl is a number of minutes above 0/,
    );
    await expect(loadServerConfig(join(dir, "typo.json"), undefined, {})).rejects.toThrow(
      /default_tll/,
    );
  });

  it("refuses a key it does not know, naming it", async () => {
    const dir = await project({ "stateweaver.json": { graphs: {}, graps: {} } });
    await expect(loadServerConfig(join(dir, "stateweaver.json"))).rejects.toThrow(/graps/);
  });

  it("gives each graph's system assistant the config and context the file or LANGGRAPH_CONFIG set", async () => {
    const dir = await project({
      "stateweaver.json": {
        graphs: { ops: { path: `${graphs}:ops`, config: { configurable: { team: "infra" } } } },
      },
    });
    const file = join(dir, "stateweaver.json");
    expect((await loadServerConfig(file, undefined, {})).graphDefaults).toEqual({
      ops: { config: { configurable: { team: "infra" } } },
    });
    // LANGGRAPH_CONFIG, as LangGraph's server reads it, wins over the file.
    const env = {
      LANGGRAPH_CONFIG: JSON.stringify({
        ops: { configurable: { model_name: "openai" }, context: { tone: "brief" } },
      }),
    };
    const config = await loadServerConfig(file, undefined, env);
    expect(config.graphDefaults).toEqual({
      ops: { config: { configurable: { model_name: "openai" } }, context: { tone: "brief" } },
    });
    const server = createServer({
      graphs: config.graphs,
      checkpointer: new MemoryCheckpointer(),
      graphDefaults: config.graphDefaults,
    });
    const { url } = await server.listen({ port: 0 });
    try {
      const client = new Client({ apiUrl: url });
      const [ops] = await client.assistants.search({
        graphId: "ops",
        metadata: { created_by: "system" },
      });
      expect(ops).toMatchObject({
        config: { configurable: { model_name: "openai" } },
        context: { tone: "brief" },
      });
    } finally {
      await server.close();
    }

    const wrong = { LANGGRAPH_CONFIG: JSON.stringify({ nope: {} }) };
    await expect(loadServerConfig(file, undefined, wrong)).rejects.toThrow(
      /LANGGRAPH_CONFIG names graph "nope", which .* does not serve/,
    );
    const broken = { LANGGRAPH_CONFIG: "{" };
    await expect(loadServerConfig(file, undefined, broken)).rejects.toThrow(
      /LANGGRAPH_CONFIG is not valid JSON/,
    );
  });

  it("mounts the Hono app http.app names, and refuses an export that is not one", async () => {
    const dir = await project({
      "routes.ts": `import { Hono } from "hono";
export const app = new Hono().get("/custom/hello", (c) => c.json({ hello: "world" }));
export const notAnApp = { fetch: 1 };
`,
      "stateweaver.json": { graphs: { ops: `${graphs}:ops` }, http: { app: "./routes.ts:app" } },
      "wrong.json": { graphs: { ops: `${graphs}:ops` }, http: { app: "./routes.ts:notAnApp" } },
    });
    const config = await loadServerConfig(join(dir, "stateweaver.json"));
    const server = createServer({
      graphs: config.graphs,
      checkpointer: new MemoryCheckpointer(),
      ...(config.routes && { routes: config.routes }),
    });
    const { url } = await server.listen({ port: 0 });
    try {
      expect(await (await fetch(`${url}/custom/hello`)).json()).toEqual({ hello: "world" });
      expect((await fetch(`${url}/threads/search`, { method: "POST", body: "{}" })).status).toBe(
        200,
      );
    } finally {
      await server.close();
    }
    await expect(loadServerConfig(join(dir, "wrong.json"))).rejects.toThrow(
      /http.app: ".\/routes.ts:notAnApp" is not a Hono app/,
    );
  });

  it("serves a graph factory a module exports: each run gets the graph built from its own config", async () => {
    const dir = await project({
      "stateweaver.json": { graphs: { steps: `${graphs}:stepFactory` } },
    });
    const config = await loadServerConfig(join(dir, "stateweaver.json"), undefined, {});
    expect(isFactoryGraph(config.graphs.steps)).toBe(true);
    const server = createServer({ graphs: config.graphs, checkpointer: new MemoryCheckpointer() });
    const { url } = await server.listen({ port: 0 });
    try {
      const client = new Client({ apiUrl: url });
      // Shown as what it builds for an empty config.
      expect((await client.assistants.getGraph("steps")).nodes.map((n) => n.id)).toContain("first");
      const thread = await client.threads.create();
      const done = await client.runs.wait(thread.thread_id, "steps", {
        input: {},
        config: { configurable: { step: "second" } },
      });
      expect(done).toEqual({ done: "second" });
      // The thread's state is updated with the graph its last run used: node "second" is its.
      await client.threads.updateState(thread.thread_id, {
        values: { done: "edited" },
        asNode: "second",
      });
      expect((await client.threads.getState(thread.thread_id)).values).toEqual({ done: "edited" });
      // A factory that throws fails that run, with its message; the server goes on.
      const other = await client.threads.create();
      const failed = await client.runs.create(other.thread_id, "steps", {
        input: {},
        config: { configurable: { refuse: true } },
      });
      await client.runs.join(other.thread_id, failed.run_id);
      const run = await client.runs.get(other.thread_id, failed.run_id);
      expect(run.status).toBe("error");
    } finally {
      await server.close();
    }
  });

  it("refuses a graph factory that cannot build a graph for an empty config, saying what it must do", async () => {
    const dir = await project({
      "stateweaver.json": { graphs: { made: `${graphs}:stepFactory` } },
    });
    const refusing = async () => {
      throw new Error("no tenant");
    };
    await expect(
      loadServerConfig(join(dir, "stateweaver.json"), async () => ({ stepFactory: refusing }), {}),
    ).rejects.toThrow(
      /graphs.made: the graph factory failed when called with an empty config \(no tenant\); it must build a graph for \{ configurable: \{\} \} too/,
    );
    const notAGraph = () => ({ nodes: [] });
    await expect(
      loadServerConfig(join(dir, "stateweaver.json"), async () => ({ stepFactory: notAGraph }), {}),
    ).rejects.toThrow(/graphs.made: the graph factory returned object, not a graph/);
  });

  it("passes on a loader's own refusal under the entry's name, without blaming the path", async () => {
    const dir = await project({ "stateweaver.json": { graphs: { g: "./g.cts:graph" } } });
    const refuse = async (): Promise<never> => {
      throw new ServerConfigError("g.cts is CommonJS TypeScript: rename it .ts.");
    };
    const refused = loadServerConfig(join(dir, "stateweaver.json"), refuse);
    await expect(refused).rejects.toThrow(ServerConfigError);
    await expect(refused).rejects.toThrow(
      /^graphs.g: g.cts is CommonJS TypeScript: rename it .ts.$/,
    );
  });

  it("reads .env lines: export, quotes, comments, blank and malformed lines", () => {
    expect(
      parseEnv("A=1\n\n# no\nexport B=\"two\\nlines\"\nC=three # note\nnot a line\nD='x # y'\n"),
    ).toEqual({ A: "1", B: "two\nlines", C: "three", D: "x # y" });
  });
});
