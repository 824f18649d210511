import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemoryCheckpointer } from "../../src/checkpoint/index.js";
import {
  CONTENT_SECURITY_POLICY,
  createServer,
  ServerConfigError,
} from "../../src/server/index.js";
import { type RunningServer, startServer, testGraphs } from "./fixtures/server.js";

const TOKEN = "test-token-5b1f";

describe("where the server may listen", () => {
  it("refuses to listen on 0.0.0.0 without a token, and says how to fix it", async () => {
    const server = createServer({ graphs: testGraphs(), checkpointer: new MemoryCheckpointer() });
    await expect(server.listen({ port: 0, host: "0.0.0.0" })).rejects.toThrow(ServerConfigError);
    await expect(server.listen({ port: 0, host: "0.0.0.0" })).rejects.toThrow(
      /Refusing to listen on 0\.0\.0\.0 without STATEWEAVER_TOKEN/,
    );
    await server.close();
  });

  it("listens on 0.0.0.0 when a token is set", async () => {
    const running = await startServer({ token: TOKEN, host: "0.0.0.0" });
    const port = new URL(running.url).port;
    const res = await fetch(`http://127.0.0.1:${port}/ok`);
    expect(res.status).toBe(200);
    await running.stop();
  });
});

describe("without a token, on loopback", () => {
  let running: RunningServer;
  let inboxDir: string;
  beforeAll(async () => {
    inboxDir = await mkdtemp(join(tmpdir(), "sw-inbox-"));
    await writeFile(join(inboxDir, "index.html"), "<!doctype html><title>inbox</title>");
    running = await startServer({ inboxDir, bodyLimit: 64 * 1024 });
  });
  afterAll(async () => {
    await running.stop();
    await rm(inboxDir, { recursive: true, force: true });
  });

  it("sets the strict CSP and hardening headers on every response: page, JSON, error", async () => {
    for (const path of ["/", "/threads/abc", "/ok", "/assistants/nope"]) {
      const res = await fetch(`${running.url}${path}`, { headers: { accept: "text/html" } });
      expect(res.headers.get("content-security-policy")).toBe(CONTENT_SECURITY_POLICY);
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      expect(res.headers.get("x-frame-options")).toBe("DENY");
    }
    const page = await fetch(`${running.url}/reviews/abc`, { headers: { accept: "text/html" } });
    expect(await page.text()).toContain("<title>inbox</title>");
  });

  it("lets API clients (no cookie, no Origin) change state without a CSRF token", async () => {
    const client = new Client({ apiUrl: running.url });
    const thread = await client.threads.create();
    expect(thread.status).toBe("idle");
  });

  it("refuses a browser's state-changing request without the CSRF token, accepts it with", async () => {
    const origin = running.url;
    const bare = await fetch(`${running.url}/threads`, {
      method: "POST",
      headers: { accept: "application/json", origin, "content-type": "application/json" },
      body: "{}",
    });
    expect(bare.status).toBe(403);
    expect(((await bare.json()) as any).error.code).toBe("CSRF_TOKEN_MISSING");

    const csrf = await fetch(`${running.url}/auth/csrf`);
    const cookie = csrf.headers.get("set-cookie")!.split(";")[0]!;
    const { csrfToken } = (await csrf.json()) as any;
    const ok = await fetch(`${running.url}/threads`, {
      method: "POST",
      headers: { origin, cookie, "x-csrf-token": csrfToken, "content-type": "application/json" },
      body: "{}",
    });
    expect(ok.status).toBe(200);
  });

  it("refuses requests from another site even with the token", async () => {
    const csrf = await fetch(`${running.url}/auth/csrf`);
    const cookie = csrf.headers.get("set-cookie")!.split(";")[0]!;
    const { csrfToken } = (await csrf.json()) as any;
    const res = await fetch(`${running.url}/threads`, {
      method: "POST",
      headers: {
        accept: "application/json",
        origin: "https://evil.example",
        cookie,
        "x-csrf-token": csrfToken,
      },
      body: "{}",
    });
    expect(res.status).toBe(403);
    expect(((await res.json()) as any).error.code).toBe("CROSS_SITE");
  });

  it("refuses a Host that is not loopback (DNS rebinding)", async () => {
    const { request } = await import("node:http");
    const port = Number(new URL(running.url).port);
    const status = await new Promise<number>((resolve, reject) => {
      request(
        {
          host: "127.0.0.1",
          port,
          path: "/threads/search",
          method: "POST",
          headers: { host: "evil.example" },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      )
        .on("error", reject)
        .end("{}");
    });
    expect(status).toBe(403);
  });

  it("refuses a body over the limit with 413 and a JSON error", async () => {
    const res = await fetch(`${running.url}/threads`, {
      method: "POST",
      headers: { accept: "application/json", "content-type": "application/json" },
      body: JSON.stringify({ metadata: { blob: "x".repeat(100 * 1024) } }),
    });
    expect(res.status).toBe(413);
    expect(((await res.json()) as any).error.code).toBe("BODY_TOO_LARGE");
  });

  it("answers a malformed body with 400 and the fields at fault", async () => {
    const res = await fetch(`${running.url}/threads/search`, {
      method: "POST",
      headers: { accept: "application/json", "content-type": "application/json" },
      body: JSON.stringify({ limit: -1 }),
    });
    expect(res.status).toBe(400);
    const { error } = (await res.json()) as any;
    expect(error.code).toBe("INVALID_BODY");
    expect(error.fields[0].path).toBe("limit");
    const notJson = await fetch(`${running.url}/threads`, {
      method: "POST",
      headers: { accept: "application/json" },
      body: "{",
    });
    expect(((await notJson.json()) as any).error.code).toBe("INVALID_JSON");
  });
});

describe("with a token", () => {
  let running: RunningServer;
  beforeAll(async () => {
    running = await startServer({ token: TOKEN });
  });
  afterAll(() => running.stop());

  it("refuses API calls without the token and accepts the SDK client with it", async () => {
    const res = await fetch(`${running.url}/threads/search`, { method: "POST", body: "{}" });
    expect(res.status).toBe(401);
    const wrong = new Client({
      apiUrl: running.url,
      apiKey: "nope",
      callerOptions: { maxRetries: 0 },
    });
    await expect(wrong.threads.search()).rejects.toThrow(/401|token/i);
    const client = new Client({
      apiUrl: running.url,
      defaultHeaders: { authorization: `Bearer ${TOKEN}` },
    });
    expect(await client.threads.search()).toBeInstanceOf(Array);
    const byKey = new Client({ apiUrl: running.url, apiKey: TOKEN });
    expect(await byKey.assistants.search()).toHaveLength(4);
  });

  it("logs a browser in with an HttpOnly SameSite=Strict session cookie, then needs CSRF", async () => {
    const origin = running.url;
    const bad = await fetch(`${running.url}/auth/login`, {
      method: "POST",
      headers: { origin, "content-type": "application/json" },
      body: JSON.stringify({ token: "wrong" }),
    });
    expect(bad.status).toBe(401);
    const login = await fetch(`${running.url}/auth/login`, {
      method: "POST",
      headers: { origin, "content-type": "application/json" },
      body: JSON.stringify({ token: TOKEN }),
    });
    expect(login.status).toBe(200);
    const cookies = login.headers.getSetCookie();
    const session = cookies.find((c) => c.startsWith("sw_session="))!;
    expect(session).toMatch(/HttpOnly/);
    expect(session).toMatch(/SameSite=Strict/);
    expect(session).not.toContain(TOKEN);
    const { csrfToken } = (await login.json()) as any;
    const cookie = cookies.map((c) => c.split(";")[0]).join("; ");

    const read = await fetch(`${running.url}/inbox/items`, { headers: { cookie } });
    expect(read.status).toBe(200);
    const noCsrf = await fetch(`${running.url}/threads`, {
      method: "POST",
      headers: { cookie, origin },
      body: "{}",
    });
    expect(noCsrf.status).toBe(403);
    const withCsrf = await fetch(`${running.url}/threads`, {
      method: "POST",
      headers: { cookie, origin, "x-csrf-token": csrfToken },
      body: "{}",
    });
    expect(withCsrf.status).toBe(200);
    const out = await fetch(`${running.url}/auth/logout`, {
      method: "POST",
      headers: { cookie, origin, "x-csrf-token": csrfToken },
    });
    expect(out.status).toBe(200);
    expect(out.headers.getSetCookie().some((c) => /^sw_session=;/.test(c))).toBe(true);
  });

  it("keeps health open and the API closed to a browser that has not logged in", async () => {
    expect((await fetch(`${running.url}/ok`)).status).toBe(200);
    const res = await fetch(`${running.url}/inbox/items`, {
      headers: { accept: "application/json", cookie: "sw_session=forged" },
    });
    expect(res.status).toBe(401);
    expect(((await res.json()) as any).error.code).toBe("LOGIN_REQUIRED");
  });
});
