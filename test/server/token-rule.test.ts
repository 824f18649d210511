import { request } from "node:http";
import type { AddressInfo } from "node:net";
import { networkInterfaces } from "node:os";
import { type ServerType, serve } from "@hono/node-server";
import { describe, expect, it } from "vitest";
import { MemoryCheckpointer } from "../../src/checkpoint/index.js";
import { createServer, ServerConfigError } from "../../src/server/index.js";
import { testGraphs } from "./fixtures/server.js";

// "Without a token, this machine only; with one, only its holders", for every way the
// server runs: app.request(), app.fetch in the user's own Node server, listen(). (The CLI's
// `stateweaver serve`, plain and worker-backed, is in serve-command.test.ts.)

const TOKEN = "token-rule-7f3a";

/** An address of this machine that is not loopback, to connect from as another host would. */
const outside = Object.values(networkInterfaces())
  .flat()
  .find((a) => a && !a.internal && a.family === "IPv4")?.address;

const newServer = (token?: string) =>
  createServer({
    graphs: testGraphs(),
    checkpointer: new MemoryCheckpointer(),
    concurrency: 0,
    ...(token !== undefined && { token }),
  });

/** POST /threads/search over a real connection from `from`, with the headers given. */
function searchFrom(
  from: string,
  port: number,
  headers: Record<string, string>,
): Promise<{ status: number; code: string | undefined }> {
  return new Promise((resolve, reject) => {
    request(
      {
        host: from,
        localAddress: from,
        port,
        path: "/threads/search",
        method: "POST",
        headers: { accept: "application/json", ...headers },
      },
      (res) => {
        let text = "";
        res.on("data", (chunk) => {
          text += chunk;
        });
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, code: JSON.parse(text).error?.code }),
        );
      },
    )
      .on("error", reject)
      .end("{}");
  });
}

/** The app as a user embeds it: their own @hono/node-server on every interface. */
async function embedded(app: { fetch: (req: Request, ...rest: any[]) => any }) {
  const http = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: "0.0.0.0" }, () => resolve(s));
  });
  return {
    port: (http.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => http.close(() => resolve())),
  };
}

describe("the token itself", () => {
  it("refuses an empty or blank token as a ServerConfigError that says what to pass", () => {
    for (const token of ["", "   "]) {
      expect(() => newServer(token)).toThrow(ServerConfigError);
      expect(() => newServer(token)).toThrow(/token is empty.*Pass a long random string/);
    }
    expect(() => newServer(42 as never)).toThrow(/token is a number/);
  });
});

describe("app.request(), with no connection to see", () => {
  it("refuses the API without a token, saying to set one; health stays open", async () => {
    const server = newServer();
    expect((await server.app.request("/ok")).status).toBe(200);
    const res = await server.app.request("/threads/search", {
      method: "POST",
      headers: { accept: "application/json" },
      body: "{}",
    });
    expect(res.status).toBe(403);
    const { error } = (await res.json()) as any;
    expect(error.code).toBe("TOKEN_REQUIRED");
    expect(error.message).toContain("createServer({ token })");
    await server.close();
  });

  it("answers the token's holder, and not an empty or wrong x-api-key", async () => {
    const server = newServer(TOKEN);
    const search = (headers: Record<string, string>) =>
      server.app.request("/threads/search", { method: "POST", body: "{}", headers });
    expect((await search({})).status).toBe(401);
    expect((await search({ "x-api-key": "" })).status).toBe(401);
    expect((await search({ "x-api-key": "nope" })).status).toBe(401);
    expect((await search({ authorization: "Bearer " })).status).toBe(401);
    expect((await search({ "x-api-key": TOKEN })).status).toBe(200);
    expect((await search({ authorization: `Bearer ${TOKEN}` })).status).toBe(200);
    await server.close();
  });
});

describe("app.fetch in the user's own Node server, on every interface", () => {
  it("without a token answers this machine, and refuses another host even with a loopback Host", async () => {
    const server = newServer();
    const http = await embedded(server.app);
    try {
      const host = `127.0.0.1:${http.port}`;
      expect(await searchFrom("127.0.0.1", http.port, { host })).toEqual({
        status: 200,
        code: undefined,
      });
      if (outside) {
        expect(await searchFrom(outside, http.port, { host })).toEqual({
          status: 403,
          code: "TOKEN_REQUIRED",
        });
      }
    } finally {
      await http.close();
      await server.close();
    }
  });

  it.skipIf(!outside)(
    "with a token answers another host that sends it, and not one with an empty key",
    async () => {
      const server = newServer(TOKEN);
      const http = await embedded(server.app);
      try {
        const host = `${outside}:${http.port}`;
        expect((await searchFrom(outside!, http.port, { host, "x-api-key": "" })).status).toBe(401);
        expect((await searchFrom(outside!, http.port, { host, "x-api-key": TOKEN })).status).toBe(
          200,
        );
      } finally {
        await http.close();
        await server.close();
      }
    },
  );
});

describe("listen()", () => {
  it("refuses 0.0.0.0 without a token; with one, answers another host that sends it", async () => {
    const open = newServer();
    await expect(open.listen({ port: 0, host: "0.0.0.0" })).rejects.toThrow(ServerConfigError);
    await open.close();
    const server = newServer(TOKEN);
    const { port } = await server.listen({ port: 0, host: "0.0.0.0" });
    try {
      const from = outside ?? "127.0.0.1";
      const host = `${from}:${port}`;
      expect((await searchFrom(from, port, { host })).status).toBe(401);
      expect((await searchFrom(from, port, { host, "x-api-key": "" })).status).toBe(401);
      expect(
        (await searchFrom(from, port, { host, authorization: `Bearer ${TOKEN}` })).status,
      ).toBe(200);
    } finally {
      await server.close();
    }
  });

  it("without a token on loopback answers this machine and refuses a foreign Host", async () => {
    const server = newServer();
    const { port } = await server.listen({ port: 0 });
    try {
      expect((await searchFrom("127.0.0.1", port, { host: `localhost:${port}` })).status).toBe(200);
      expect(await searchFrom("127.0.0.1", port, { host: "evil.example" })).toEqual({
        status: 403,
        code: "HOST_NOT_ALLOWED",
      });
    } finally {
      await server.close();
    }
  });
});
