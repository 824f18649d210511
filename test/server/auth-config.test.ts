import { fileURLToPath } from "node:url";
import { Client } from "@langchain/langgraph-sdk";
import { describe, expect, it } from "vitest";
import { MemoryCheckpointer } from "../../src/checkpoint/index.js";
import { END, Graph, START } from "../../src/index.js";
import { createServer, loadServerConfig, ServerConfigError } from "../../src/server/index.js";
import { auth } from "./fixtures/review-rights.js";

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

describe('stateweaver.json "auth": { "path" }', () => {
  it("loads the Auth it names, and the server identifies callers with it", async () => {
    const config = await loadServerConfig(fixture("auth-config.json"));
    expect(config.auth).toBeDefined();
    const server = createServer({
      graphs: config.graphs,
      checkpointer: new MemoryCheckpointer(),
      ...(config.auth && { auth: config.auth }),
    });
    const unknown = await server.app.request("/inbox/items", { headers: { host: "127.0.0.1" } });
    expect(unknown.status).toBe(401);
    const known = await server.app.request("/inbox/items", {
      headers: { host: "127.0.0.1", authorization: "Bearer token-ana" },
    });
    expect(known.status).toBe(200);
    await server.close();
  });

  it("refuses an export that is not an Auth, saying what to export", async () => {
    await expect(loadServerConfig(fixture("auth-config-wrong.json"))).rejects.toThrow(
      ServerConfigError,
    );
    await expect(loadServerConfig(fixture("auth-config-wrong.json"))).rejects.toThrow(
      /auth\.path: ".\/review-rights\.ts:users": The auth export is not an Auth/,
    );
  });
});

describe("the authenticated user reaches nodes", () => {
  it("as config.configurable.langgraph_auth_user, through the SDK client", async () => {
    const whoami = new Graph<{ who?: string; can?: string[] }>({ name: "whoami" })
      .addNode("look", (_s, runtime) => {
        const user = runtime.config.configurable?.langgraph_auth_user as
          | { identity: string; permissions: string[] }
          | undefined;
        return { who: user?.identity ?? "nobody", can: user?.permissions ?? [] };
      })
      .addEdge(START, "look")
      .addEdge("look", END)
      .compile();
    const server = createServer({
      graphs: { whoami },
      checkpointer: new MemoryCheckpointer(),
      auth,
    });
    const { url } = await server.listen({ port: 0 });
    try {
      const client = new Client({
        apiUrl: url,
        defaultHeaders: { authorization: "Bearer token-dana" },
      });
      const thread = await client.threads.create();
      const values = await client.runs.wait(thread.thread_id, "whoami", { input: {} });
      expect(values).toMatchObject({ who: "dana", can: ["dba"] });
    } finally {
      await server.close();
    }
  });
});
