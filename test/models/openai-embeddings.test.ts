import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ModelConfigError, ModelError } from "../../src/errors/index.js";
import { initEmbeddings, OpenAIEmbeddings } from "../../src/models/index.js";
import { MemoryStore } from "../../src/store/index.js";
import { embeddingsObject } from "./openai-wire.js";
import { type ProviderServer, startProviderServer } from "./provider-server.js";

let server: ProviderServer;
beforeAll(async () => {
  server = await startProviderServer();
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
});

const embeddings = () =>
  initEmbeddings("openai:text-embedding-test", {
    apiKey: "sk-test",
    baseURL: `${server.url}/v1`,
    maxRetries: 0,
  });

describe("OpenAIEmbeddings (the real openai client against a local /v1/embeddings)", () => {
  it("sends the texts and model, and returns one vector per text in the API's index order", async () => {
    server.reply({
      json: {
        ...embeddingsObject([]),
        data: [
          { object: "embedding", index: 1, embedding: [0, 1] },
          { object: "embedding", index: 0, embedding: [1, 0] },
        ],
      },
    });
    expect(await embeddings().embedDocuments(["first", "second"])).toEqual([
      [1, 0],
      [0, 1],
    ]);
    expect(server.requests[0]).toMatchObject({
      method: "POST",
      path: "/v1/embeddings",
      body: { model: "text-embedding-test", input: ["first", "second"], encoding_format: "float" },
    });
    expect(server.requests[0]!.headers.authorization).toBe("Bearer sk-test");
  });

  it("asks for shorter vectors with dimensions, and embeds a query as one text", async () => {
    server.reply({ json: embeddingsObject([[0.5, 0.5]]) });
    const short = new OpenAIEmbeddings({
      model: "text-embedding-3-small",
      dimensions: 2,
      apiKey: "k",
      baseURL: `${server.url}/v1`,
    });
    expect(await short.embedQuery("hello")).toEqual([0.5, 0.5]);
    expect(server.requests[0]!.body).toMatchObject({ input: ["hello"], dimensions: 2 });
  });

  it("a provider error is a ModelError with its status, and a store's put then stores nothing", async () => {
    server.reply({ status: 401, json: { error: { message: "Incorrect API key provided" } } });
    await expect(embeddings().embedDocuments(["x"])).rejects.toMatchObject({
      name: "ModelError",
      status: 401,
    });
    server.reply({ status: 500, json: { error: { message: "boom" } } });
    const store = new MemoryStore({ index: { dims: 2, embed: embeddings() } });
    await expect(store.put(["docs"], "a", { text: "x" })).rejects.toMatchObject({
      name: "StoreEmbeddingError",
      cause: expect.any(ModelError),
    });
    expect(await store.get(["docs"], "a")).toBeNull();
  });

  it("initEmbeddings takes openai:<model> and refuses other ids with the form to use", () => {
    expect(embeddings().model).toBe("text-embedding-test");
    expect(() => initEmbeddings("text-embedding-3-small")).toThrow(ModelConfigError);
    expect(() => initEmbeddings("cohere:embed-english-v3.0")).toThrow(/openai:<model>/);
    expect(() => initEmbeddings("openai:")).toThrow(ModelConfigError);
  });
});
