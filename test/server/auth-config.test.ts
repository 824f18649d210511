import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { MemoryCheckpointer } from "../../src/checkpoint/index.js";
import { createServer, loadServerConfig, ServerConfigError } from "../../src/server/index.js";

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
