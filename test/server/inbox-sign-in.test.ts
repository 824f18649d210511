// Signing in to the inbox through the deployment's auth file: the credential goes to
// `authenticate`, the user it returns is kept in a signed session cookie, and decisions
// record that user, never a typed name. Without an auth file, the typed name is marked
// as not verified.
import { createHmac, randomUUID } from "node:crypto";
import { Auth, HTTPException } from "@langchain/langgraph-sdk/auth";
import pg from "pg";
import { afterAll, describe, expect, it, vi } from "vitest";
import { MemoryCheckpointer, PostgresCheckpointer } from "../../src/checkpoint/index.js";
import {
  createServer,
  type ServerOptions,
  type StateweaverServer,
} from "../../src/server/index.js";
import { dropStoreTables } from "../setup/store-tables.js";
import { tempDataDir, testGraphs } from "./fixtures/server.js";

vi.setConfig({ testTimeout: 30_000 });

const people: Record<string, { identity: string; display_name: string; permissions: string[] }> = {
  "token-ana": { identity: "ana", display_name: "Ana", permissions: ["review"] },
  "token-bob": { identity: "bob", display_name: "Bob", permissions: ["review"] },
  "token-root": { identity: "root", display_name: "Root", permissions: ["admin"] },
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
const serverWith = (options: Partial<ServerOptions>) => {
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
        // As the inbox's page asks: JSON errors.
        accept: "application/json",
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

/** An API client's request with a bearer credential (no cookies). */
const asBearer = (server: StateweaverServer, token: string, path: string, body?: unknown) =>
  server.app.request(path, {
    method: body === undefined ? "GET" : "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json",
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
const codeOf = async (res: Response) => ((await res.json()) as any).error?.code;
/** Sign-ins after a revocation must be issued after it: a millisecond clock ticks first. */
const nextMillisecond = () => new Promise((resolve) => setTimeout(resolve, 2));

describe("signing out and revoking sessions", () => {
  it("refuses a session's cookie after its sign-out, even when sent again by someone else", async () => {
    const server = serverWith({ auth });
    const browser = await signIn(server, "token-ana");
    const other = await signIn(server, "token-ana");
    const out = await browser.call("/auth/logout", { method: "POST", body: {} });
    expect(out.status).toBe(200);
    // A copy of the cookie (kept by an attacker, or a browser that missed the deletion).
    const replayed = await browser.call("/inbox/items");
    expect(replayed.status).toBe(401);
    expect(await codeOf(replayed)).toBe("SESSION_REVOKED");
    expect(await (await browser.call("/auth/csrf")).json()).toMatchObject({
      authenticated: false,
    });
    // Only that session ended: the same user's other sign-in goes on.
    expect((await other.call("/inbox/items")).status).toBe(200);
  });

  it("refuses every session of a revoked user issued before the revocation; signing in again works", async () => {
    const server = serverWith({ auth });
    const laptop = await signIn(server, "token-ana");
    const phone = await signIn(server, "token-ana");
    const bob = await signIn(server, "token-bob");
    const revoked = await asBearer(server, "token-root", "/auth/revoke", { identity: "ana" });
    expect(revoked.status).toBe(200);
    expect(await revoked.json()).toMatchObject({ revoked: { identity: "ana" } });
    for (const browser of [laptop, phone]) {
      const res = await browser.call("/inbox/items");
      expect(res.status).toBe(401);
      expect(await codeOf(res)).toBe("SESSION_REVOKED");
    }
    expect((await bob.call("/inbox/items")).status).toBe(200);
    await nextMillisecond();
    const again = await signIn(server, "token-ana");
    expect((await again.call("/inbox/items")).status).toBe(200);
  });

  it("refuses every session issued before everyone's sessions were revoked", async () => {
    const server = serverWith({ auth });
    const ana = await signIn(server, "token-ana");
    const bob = await signIn(server, "token-bob");
    expect((await asBearer(server, "token-root", "/auth/revoke", { everyone: true })).status).toBe(
      200,
    );
    expect((await ana.call("/inbox/items")).status).toBe(401);
    expect((await bob.call("/inbox/items")).status).toBe(401);
    // API clients are not sessions: authenticate still decides for them.
    expect((await asBearer(server, "token-ana", "/inbox/items")).status).toBe(200);
  });

  it("lets a user revoke their own sessions, and refuses others' without the admin permission", async () => {
    const server = serverWith({ auth });
    const ana = await signIn(server, "token-ana");
    const bob = await signIn(server, "token-bob");
    const refused = await bob.call("/auth/revoke", { method: "POST", body: { identity: "ana" } });
    expect(refused.status).toBe(403);
    expect(await codeOf(refused)).toBe("ADMIN_PERMISSION_REQUIRED");
    const everyone = await asBearer(server, "token-bob", "/auth/revoke", { everyone: true });
    expect(everyone.status).toBe(403);
    expect((await ana.call("/inbox/items")).status).toBe(200);
    // Signing out everywhere: bob's own sessions.
    const own = await bob.call("/auth/revoke", { method: "POST", body: { identity: "bob" } });
    expect(own.status).toBe(200);
    expect((await bob.call("/inbox/items")).status).toBe(401);
    expect((await ana.call("/inbox/items")).status).toBe(200);
  });

  it("refuses a revocation that names nobody, at its field", async () => {
    const server = serverWith({ auth });
    const res = await asBearer(server, "token-root", "/auth/revoke", { identity: "" });
    expect(res.status).toBe(400);
    expect(await codeOf(res)).toBe("INVALID_BODY");
    const both = await asBearer(server, "token-root", "/auth/revoke", {
      identity: "ana",
      everyone: true,
    });
    expect(both.status).toBe(400);
  });

  it("refuses a cookie signed before sessions had ids, which could not be revoked", async () => {
    const server = serverWith({ auth, sessionSecret: "the-secret" });
    const payload = Buffer.from(
      JSON.stringify({ user: people["token-ana"], exp: Date.now() + 60_000 }),
    ).toString("base64url");
    const mac = createHmac("sha256", "the-secret").update(payload).digest("base64url");
    const browser = await signIn(server, "token-ana");
    expect((await browser.call("/inbox/items")).status).toBe(200);
    expect((await browser.call("/inbox/items", { session: `${payload}.${mac}` })).status).toBe(401);
  });

  it("says there are no user sessions to revoke without an auth file", async () => {
    const server = serverWith({ token: "shared-secret" });
    const res = await asBearer(server, "shared-secret", "/auth/revoke", { everyone: true });
    expect(res.status).toBe(400);
    expect(await codeOf(res)).toBe("NO_USER_SESSIONS");
  });
});

const pgUrl = process.env.STATEWEAVER_PG_URL;
describe("revocations shared through the database", () => {
  it("refuses a session on every server of a PGlite deployment once it signed out on one", async () => {
    const data = await tempDataDir();
    const checkpointer = data.open();
    try {
      const one = serverWith({ auth, checkpointer, sessionSecret: "shared" });
      const two = serverWith({ auth, checkpointer, sessionSecret: "shared" });
      const browser = await signIn(one, "token-ana");
      await browser.call("/auth/logout", { method: "POST", body: {} });
      const atTwo = await two.app.request("/inbox/items", {
        headers: { cookie: `sw_user=${browser.session}` },
      });
      expect(atTwo.status).toBe(401);
    } finally {
      await checkpointer.close();
      await data.dispose();
    }
  });

  it.skipIf(!pgUrl)(
    "refuses a revoked user's session at another server on PostgreSQL (its own pool)",
    async () => {
      const tablePrefix = `sw_sessions_${randomUUID().slice(0, 8)}_`;
      const a = new PostgresCheckpointer({ connectionString: pgUrl!, tablePrefix });
      const b = new PostgresCheckpointer({ connectionString: pgUrl!, tablePrefix });
      try {
        const one = serverWith({ auth, checkpointer: a, sessionSecret: "shared" });
        const two = serverWith({ auth, checkpointer: b, sessionSecret: "shared" });
        const browser = await signIn(one, "token-ana");
        const atTwo = () =>
          two.app.request("/inbox/items", { headers: { cookie: `sw_user=${browser.session}` } });
        expect((await atTwo()).status).toBe(200);
        expect(
          (await asBearer(one, "token-root", "/auth/revoke", { identity: "ana" })).status,
        ).toBe(200);
        expect((await atTwo()).status).toBe(401);
      } finally {
        for (const s of servers.splice(-2)) await s.close();
        await a.close();
        await b.close();
        const pool = new pg.Pool({ connectionString: pgUrl });
        await dropStoreTables(pool, tablePrefix);
        await pool.end();
      }
    },
  );
});

describe("without an auth file", () => {
  it("records the typed name as a shared-token decision (not verified)", async () => {
    const server = serverWith({ token: "shared-secret" });
    const call = (path: string, body?: unknown) =>
      server.app.request(path, {
        method: body === undefined ? "GET" : "POST",
        headers: {
          authorization: "Bearer shared-secret",
          "content-type": "application/json",
          accept: "application/json",
        },
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
