// Signing in to the inbox through the deployment's auth file: the credential goes to
// `authenticate`, the user it returns is kept in a signed session cookie, and decisions
// record that user, never a typed name. Without an auth file, the typed name is marked
// as not verified.
import { Auth, HTTPException } from "@langchain/langgraph-sdk/auth";
import { afterAll, describe, expect, it, vi } from "vitest";
import { MemoryCheckpointer } from "../../src/checkpoint/index.js";
import { createServer, type StateweaverServer } from "../../src/server/index.js";
import { testGraphs } from "./fixtures/server.js";

vi.setConfig({ testTimeout: 30_000 });

const people: Record<string, { identity: string; display_name: string; permissions: string[] }> = {
  "token-ana": { identity: "ana", display_name: "Ana", permissions: ["review"] },
};
const auth = new Auth().authenticate((request) => {
  const user = people[request.headers.get("authorization")?.replace(/^Bearer /, "") ?? ""];
  if (!user) throw new HTTPException(401, { message: "Unknown token." });
  return user;
});

const servers: StateweaverServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
});
const serverWith = (options: { auth?: typeof auth; token?: string }) => {
  const server = createServer({
    graphs: testGraphs(),
    checkpointer: new MemoryCheckpointer(),
    ...options,
  });
  servers.push(server);
  return server;
};

/** The cookies a response sets, by name, with their attributes. */
const setCookies = (res: Response) =>
  Object.fromEntries(res.headers.getSetCookie().map((c) => [c.split("=")[0], c]));
const cookieValue = (cookie: string) => cookie.split(";")[0]!.split("=").slice(1).join("=");

/** A browser that signed in: its cookies, and requests that send them (and the CSRF header). */
async function signIn(server: StateweaverServer, credential: string) {
  const res = await server.app.request("/auth/login", {
    method: "POST",
    headers: { accept: "application/json", "content-type": "application/json" },
    body: JSON.stringify({ token: credential }),
  });
  const cookies = setCookies(res);
  const session = cookies.sw_user ? cookieValue(cookies.sw_user) : undefined;
  const csrf = cookies.sw_csrf ? cookieValue(cookies.sw_csrf) : "";
  const call = (path: string, init: { method?: string; body?: unknown; session?: string } = {}) =>
    server.app.request(path, {
      method: init.method ?? "GET",
      headers: {
        cookie: `sw_user=${init.session ?? session}; sw_csrf=${csrf}`,
        "x-csrf-token": csrf,
        "content-type": "application/json",
      },
      ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
    });
  return { res, cookies, session, call };
}

describe("inbox sign-in with an auth file", () => {
  it("runs authenticate on the credential and sets an HttpOnly, SameSite=Strict session cookie", async () => {
    const { res, cookies } = await signIn(serverWith({ auth }), "token-ana");
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      authenticated: true,
      user: { identity: "ana", verified: true },
    });
    expect(cookies.sw_user).toMatch(/HttpOnly/);
    expect(cookies.sw_user).toMatch(/SameSite=Strict/);
    // The cookie holds the user the server signed, never the credential.
    expect(cookies.sw_user).not.toContain("token-ana");
  });

  it("refuses a credential authenticate refuses, with 401 and no session", async () => {
    const { res, cookies } = await signIn(serverWith({ auth }), "token-nobody");
    expect(res.status).toBe(401);
    expect(cookies.sw_user).toBeUndefined();
  });

  it("says who is signed in, and that names are not typed", async () => {
    const browser = await signIn(serverWith({ auth }), "token-ana");
    const state = await (await browser.call("/auth/csrf")).json();
    expect(state).toMatchObject({
      authenticated: true,
      signIn: "auth_handler",
      user: { identity: "ana", displayName: "Ana" },
    });
  });

  it("names the person the auth file already knows from what the browser sends (e.g. SSO)", async () => {
    const server = serverWith({ auth });
    const known = await server.app.request("/auth/csrf", {
      headers: { authorization: "Bearer token-ana" },
    });
    expect(await known.json()).toMatchObject({ authenticated: true, user: { identity: "ana" } });
    const unknown = await server.app.request("/auth/csrf");
    expect(await unknown.json()).toMatchObject({ authenticated: false, signIn: "auth_handler" });
  });

  it("records the signed-in user on a decision, not the name the browser sent", async () => {
    const server = serverWith({ auth });
    const browser = await signIn(server, "token-ana");
    const started = await browser.call("/inbox/threads", {
      method: "POST",
      body: { graphId: "question", input: { question: "Ship it?" } },
    });
    expect(started.status).toBe(201);
    const { threadId, runId } = (await started.json()) as any;
    await browser.call(`/threads/${threadId}/runs/${runId}/join`);
    const page = (await (await browser.call(`/inbox/threads/${threadId}`)).json()) as any;
    const [item] = page.pending;
    const decided = await browser.call(`/inbox/threads/${threadId}/decisions`, {
      method: "POST",
      body: {
        checkpointId: item.checkpointId,
        interruptId: item.interruptId,
        answer: "yes",
        reviewer: "mallory",
        idempotencyKey: "sign-in-1",
      },
    });
    expect(decided.status).toBe(202);
    expect(((await decided.json()) as any).decision).toMatchObject({
      reviewer: "ana",
      authenticatedBy: "auth_handler",
    });
  });

  it("refuses a session cookie that was altered, and one after sign-out", async () => {
    const server = serverWith({ auth });
    const browser = await signIn(server, "token-ana");
    const [payload, mac] = browser.session!.split(".");
    const forged = Buffer.from(
      JSON.stringify({ user: { ...people["token-ana"], identity: "root" }, exp: Date.now() + 1e6 }),
    ).toString("base64url");
    expect((await browser.call("/inbox/items", { session: `${forged}.${mac}` })).status).toBe(401);
    expect((await browser.call("/inbox/items", { session: `${payload}.x${mac}` })).status).toBe(
      401,
    );
    expect((await browser.call("/inbox/items")).status).toBe(200);
    const out = await browser.call("/auth/logout", { method: "POST", body: {} });
    expect(setCookies(out).sw_user).toMatch(/Max-Age=0/);
  });

  it("still asks a signed-in browser for the CSRF header on changes", async () => {
    const server = serverWith({ auth });
    const browser = await signIn(server, "token-ana");
    const res = await server.app.request("/inbox/threads", {
      method: "POST",
      headers: {
        accept: "application/json",
        cookie: `sw_user=${browser.session}`,
        "content-type": "application/json",
      },
      body: JSON.stringify({ graphId: "question", input: { question: "?" } }),
    });
    expect(res.status).toBe(403);
    expect(((await res.json()) as any).error.code).toBe("CSRF_TOKEN_MISSING");
  });
});

describe("without an auth file", () => {
  it("records the typed name as a shared-token decision (not verified)", async () => {
    const server = serverWith({ token: "shared-secret" });
    const call = (path: string, body?: unknown) =>
      server.app.request(path, {
        method: body === undefined ? "GET" : "POST",
        headers: { authorization: "Bearer shared-secret", "content-type": "application/json" },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
    expect(await (await call("/auth/csrf")).json()).toMatchObject({ signIn: "shared_token" });
    const { threadId, runId } = (await (
      await call("/inbox/threads", { graphId: "question", input: { question: "?" } })
    ).json()) as any;
    await call(`/threads/${threadId}/runs/${runId}/join`);
    const [item] = ((await (await call(`/inbox/threads/${threadId}`)).json()) as any).pending;
    const decided = await call(`/inbox/threads/${threadId}/decisions`, {
      checkpointId: item.checkpointId,
      interruptId: item.interruptId,
      answer: "yes",
      reviewer: "Dana",
      idempotencyKey: "typed-1",
    });
    expect(((await decided.json()) as any).decision).toMatchObject({
      reviewer: "Dana",
      authenticatedBy: "shared_token",
    });
  });
});
