import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ThreadBusyError } from "../../src/errors/index.js";
import { errorResponse } from "../../src/server/errors.js";
import { type RunningServer, startServer } from "./fixtures/server.js";

// An error's body comes in the form the client asks for: LangGraph's plain text for the
// SDK client and anyone else, our JSON with its stable code for a client asking for JSON.

let running: RunningServer;
beforeAll(async () => {
  running = await startServer();
});
afterAll(() => running.stop());

describe("error bodies", () => {
  it("answers the SDK client with the message as plain text, as LangGraph's server does", async () => {
    const client = new Client({ apiUrl: running.url, callerOptions: { maxRetries: 0 } });
    const error = await client.assistants.get("nobody").catch((e: Error) => e);
    expect((error as Error).message).toMatch(/^HTTP 404: Assistant not found: "nobody"\./);
  });

  it("answers a client that asks for JSON with the code and the fields at fault", async () => {
    const res = await fetch(`${running.url}/threads/search`, {
      method: "POST",
      headers: { accept: "application/json", "content-type": "application/json" },
      body: JSON.stringify({ limit: -1 }),
    });
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    const { error } = (await res.json()) as any;
    expect(error).toMatchObject({ code: "INVALID_BODY", fields: [{ path: "limit" }] });
  });

  it("lists the fields at fault on lines of their own in the text", async () => {
    const res = await fetch(`${running.url}/threads/search`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ limit: -1 }),
    });
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
    const [message, field] = (await res.text()).split("\n");
    expect(message).not.toContain("{");
    expect(field).toMatch(/^limit: /);
  });

  it("answers an unknown route in the same two forms", async () => {
    const missing = await fetch(`${running.url}/nowhere`);
    expect(missing.status).toBe(404);
    expect(await missing.text()).toBe("No route GET /nowhere.");
    const asJson = await fetch(`${running.url}/nowhere`, {
      headers: { accept: "application/json" },
    });
    expect(((await asJson.json()) as any).error.code).toBe("NOT_FOUND");
  });
});

describe("a lock conflict in the database", () => {
  it("is answered 409 as the busy thread it was, not 503 as a database that is away", () => {
    const deadlock = Object.assign(new Error("deadlock detected"), { code: "40P01" });
    const { status, body, headers } = errorResponse(
      new ThreadBusyError("t1", null, { cause: deadlock }),
    );
    expect(status).toBe(409);
    expect(headers).toBeUndefined();
    expect(body).toEqual({
      error: { code: "CONCURRENT_UPDATE", message: expect.stringContaining('Thread "t1" is busy') },
    });
  });

  it("leaves a dropped connection a 503 to try again", () => {
    const dropped = Object.assign(new Error("terminating connection"), { code: "57P01" });
    expect(errorResponse(dropped).status).toBe(503);
  });
});
