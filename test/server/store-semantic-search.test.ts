// Semantic search through the server: langgraph.json's store.index read as LangGraph reads
// it, items embedded by the real openai client against a local /v1/embeddings, and
// `client.store.searchItems(ns, { query })` answering with scored items.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PGliteCheckpointer } from "../../src/checkpoint/index.js";
import { loadServerConfig, ServerConfigError } from "../../src/server/index.js";
import { MemoryStore, type SqlStore } from "../../src/store/index.js";
import { wordEmbeddings } from "../../src/testing/index.js";
import { embeddingsObject } from "../models/openai-wire.js";
import { type ProviderServer, startProviderServer } from "../models/provider-server.js";
import { type RunningServer, startServer } from "./fixtures/server.js";

const DIMS = 32;
const words = wordEmbeddings(DIMS);
let provider: ProviderServer;
let dir: string;

/** Answers the next `n` embeddings requests with word vectors of their inputs. */
const answerEmbeddings = (n: number) => {
  for (let i = 0; i < n; i++)
    provider.reply({
      answer: async (body: { input: string[] }) =>
        embeddingsObject(await words.embedDocuments(body.input)),
    });
};

async function configFile(store: unknown, name = "langgraph.json"): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, JSON.stringify({ graphs: {}, store }));
  return file;
}

beforeAll(async () => {
  provider = await startProviderServer();
  dir = await mkdtemp(join(tmpdir(), "stateweaver-semantic-"));
});
afterAll(async () => {
  await provider.close();
  await rm(dir, { recursive: true, force: true });
});

describe("semantic search over HTTP", () => {
  let running: RunningServer;
  let client: Client;
  beforeAll(async () => {
    const file = await configFile({
      index: { embed: "openai:text-embedding-test", dims: DIMS, fields: ["text"] },
      ttl: { default_ttl: 60 },
    });
    const config = await loadServerConfig(file, undefined, {
      OPENAI_API_KEY: "sk-local",
      OPENAI_BASE_URL: `${provider.url}/v1`,
    });
    expect(config.unused).toEqual([]);
    expect(config.storeTtl).toBeDefined();
    running = await startServer({
      checkpointer: new PGliteCheckpointer("memory://"),
      storeIndex: config.storeIndex!,
    });
    client = new Client({ apiUrl: running.url, callerOptions: { maxRetries: 0 } });
    await running.checkpointer.searchThreads({ limit: 1 });
  }, 120_000);
  afterAll(async () => {
    await running.stop();
    await running.checkpointer.close?.();
  });

  it("embeds what is put with the openai client and ranks a query's hits by score", async () => {
    answerEmbeddings(3);
    await client.store.putItem(["notes", "u1"], "a", { text: "the user likes a dark theme" });
    await client.store.putItem(["notes", "u1"], "b", { text: "coffee with oat milk" });
    await client.store.putItem(["notes", "u1"], "c", { text: "meetings after lunch" });
    const sent = provider.requests.slice(-3).map((r) => r.body);
    expect(sent[0]).toMatchObject({
      model: "text-embedding-test",
      input: ["the user likes a dark theme"],
    });
    expect(provider.requests.at(-1)!.headers.authorization).toBe("Bearer sk-local");
    answerEmbeddings(1);
    const { items } = await client.store.searchItems(["notes"], { query: "dark theme" });
    expect(items.map((i) => i.key)[0]).toBe("a");
    expect(items[0]!.score).toBeGreaterThan(0.5);
    const scores = items.map((i) => i.score!);
    expect(scores).toEqual([...scores].sort((x, y) => y - x));
    // On PGlite, in pgvector's type: @electric-sql/pglite-pgvector is installed here.
    expect(await (running.server.context.store as SqlStore).vectorColumn()).toBe("pgvector");
  });

  it("a put with index: false is not embedded, and comes after the scored items", async () => {
    answerEmbeddings(1);
    await client.store.putItem(["plain"], "x", { text: "dark theme" }, { index: false });
    await client.store.putItem(["plain"], "y", { text: "dark theme too" });
    const before = provider.requests.length;
    answerEmbeddings(1);
    const { items } = await client.store.searchItems(["plain"], { query: "dark theme" });
    expect(provider.requests.length).toBe(before + 1); // only the query was embedded
    expect(items.map((i) => [i.key, i.score === undefined])).toEqual([
      ["y", false],
      ["x", true],
    ]);
  });

  it("an embeddings provider that fails is a 502 naming the embedder, and nothing is stored", async () => {
    provider.reply({ status: 400, json: { error: { message: "model not found" } } });
    const res = await fetch(`${running.url}/store/items`, {
      method: "PUT",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({ namespace: ["broken"], key: "k", value: { text: "hello" } }),
    });
    expect(res.status).toBe(502);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("STORE_EMBEDDING");
    expect(body.error.message).toMatch(/embedder failed.*model not found/);
    expect(await client.store.getItem(["broken"], "k")).toBeNull();
  });
});

describe("store.index in the config file", () => {
  it("names an embed function in a module as the graphs are named", async () => {
    await writeFile(
      join(dir, "embed.mjs"),
      "export const embed = async (texts) => texts.map((t) => [t.length, 1]);\n",
    );
    const file = await configFile({ index: { embed: "./embed.mjs:embed", dims: 2 } });
    const { storeIndex } = await loadServerConfig(file, undefined, {});
    const store = new MemoryStore({ index: storeIndex! });
    await store.put(["n"], "k", { text: "hi" });
    expect((await store.search(["n"], { query: "hi" }))[0]!.score).toBeGreaterThan(0.9);
  });

  it("refuses an embed it cannot use, a missing key, or bad dims, saying what to write", async () => {
    const refused = async (store: unknown, env: NodeJS.ProcessEnv, text: RegExp) => {
      const file = await configFile(store, "stateweaver.json");
      const loading = loadServerConfig(file, undefined, env);
      await expect(loading).rejects.toBeInstanceOf(ServerConfigError);
      await expect(loadServerConfig(file, undefined, env)).rejects.toThrow(text);
    };
    await refused({ index: { embed: "cohere:embed-english-v3.0", dims: 8 } }, {}, /openai:<model>/);
    await refused(
      { index: { embed: "openai:text-embedding-3-small", dims: 8 } },
      {},
      /OPENAI_API_KEY/,
    );
    await refused({ index: { embed: "openai:m", dims: 0 } }, {}, /store\.index\.dims/);
    await writeFile(join(dir, "not-embed.mjs"), "export const embed = 42;\n");
    await refused(
      { index: { embed: "./not-embed.mjs:embed", dims: 2 } },
      {},
      /not an embed function/,
    );
  });
});
