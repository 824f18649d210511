// The auth file's on(resource/action) handlers, as the server applies them: which handler
// answers, how one refuses, the metadata it adds and the filters it returns, down to the
// inbox's lists and pages.
import { randomUUID } from "node:crypto";
import { Client } from "@langchain/langgraph-sdk";
import { Auth, HTTPException } from "@langchain/langgraph-sdk/auth";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { MemoryCheckpointer } from "../../src/checkpoint/index.js";
import { AccessRefusedError } from "../../src/errors/index.js";
import { matchesFilters } from "../../src/server/auth/auth-filters.js";
import { authorize } from "../../src/server/auth/authorize.js";
import type { RequestIdentity } from "../../src/server/auth/identity.js";
import { requestEvent } from "../../src/server/auth/request-events.js";
import { type RunningServer, startServer } from "./fixtures/server.js";

vi.setConfig({ testTimeout: 30_000 });

const who = (identity: string, permissions: string[] = []): RequestIdentity => ({
  user: { identity, display_name: identity, permissions, is_authenticated: true },
  method: "auth_handler",
});

describe("which handler answers", () => {
  const called: string[] = [];
  const auth = new Auth()
    .authenticate(() => "ana")
    .on("*", () => {
      called.push("*");
    })
    .on("*:read", () => {
      called.push("*:read");
    })
    .on("threads", () => {
      called.push("threads");
    })
    .on("threads:read", () => {
      called.push("threads:read");
    });

  it("is the most specific: resource:action, then resource, then *:action, then *", async () => {
    await authorize(auth, who("ana"), "threads:read", {});
    await authorize(auth, who("ana"), "threads:delete", {});
    await authorize(auth, who("ana"), "assistants:read", {});
    await authorize(auth, who("ana"), "store:put", {});
    expect(called).toEqual(["threads:read", "threads", "*:read", "*"]);
  });

  it("gets the event, the resource, the bare action, the value, the user and their permissions", async () => {
    let seen: unknown;
    const spy = new Auth()
      .authenticate(() => "ana")
      .on("threads:create", (params) => {
        seen = params;
      });
    await authorize(spy, who("ana", ["ops"]), "threads:create", { metadata: {} });
    expect(seen).toMatchObject({
      event: "threads:create",
      resource: "threads",
      action: "create",
      value: { metadata: {} },
      user: { identity: "ana" },
      permissions: ["ops"],
    });
  });
});

describe("a handler's answer", () => {
  const refusing = new Auth()
    .authenticate(() => "ana")
    .on("threads:delete", () => false)
    .on("threads:update", () => {
      throw new HTTPException(404, { message: "No such thread for you." });
    })
    .on("threads:read", () => "owner" as never)
    .on("threads:search", () => true);

  it("false refuses with 403", async () => {
    const refused = authorize(refusing, who("ana"), "threads:delete", {});
    await expect(refused).rejects.toThrow(AccessRefusedError);
    await expect(refused).rejects.toMatchObject({ status: 403, code: "ACCESS_REFUSED" });
  });

  it("an HTTPException refuses with its status and message", async () => {
    await expect(authorize(refusing, who("ana"), "threads:update", {})).rejects.toMatchObject({
      status: 404,
      message: "No such thread for you.",
    });
  });

  it("true or nothing allows everything (no filters)", async () => {
    expect((await authorize(refusing, who("ana"), "threads:search", {})).filters).toBeUndefined();
    expect((await authorize(refusing, who("ana"), "store:get", {})).filters).toBeUndefined();
  });

  it("anything but a filter object is a configuration error that says what to return", async () => {
    await expect(authorize(refusing, who("ana"), "threads:read", {})).rejects.toThrow(
      /returns nothing or true \(allow\), false \(refuse\), or a filter object/,
    );
  });
});

describe("the event each request is", () => {
  it.each([
    ["POST", "/threads", "threads:create"],
    ["POST", "/threads/search", "threads:search"],
    ["POST", "/threads/count", "threads:search"],
    ["POST", "/threads/prune", "threads:delete"],
    ["GET", "/threads/t1", "threads:read"],
    ["POST", "/threads/t1/history", "threads:read"],
    ["GET", "/threads/t1/state/c1", "threads:read"],
    ["POST", "/threads/t1/state", "threads:update"],
    ["PATCH", "/threads/t1", "threads:update"],
    ["PATCH", "/threads/t1/state", "threads:update"],
    ["GET", "/threads/t1/stream", "threads:read"],
    ["DELETE", "/threads/t1", "threads:delete"],
    ["POST", "/threads/t1/runs/wait", "threads:create_run"],
    ["GET", "/threads/t1/runs/r1/stream", "threads:read"],
    ["GET", "/runs/r1/stream", "threads:read"],
    ["POST", "/runs/cancel", "threads:update"],
    ["POST", "/threads/t1/runs/r1/cancel", "threads:update"],
    ["DELETE", "/threads/t1/runs/r1", "threads:delete"],
    ["POST", "/runs/stream", "threads:create_run"],
    ["GET", "/inbox/items", "threads:search"],
    ["GET", "/inbox/threads/t1", "threads:read"],
    ["POST", "/inbox/threads/t1/decisions", "threads:create_run"],
    ["POST", "/threads/t1/stream/events", "threads:read"],
    // A command's own method decides (run.start: create_run), see resource-access.
    ["POST", "/threads/t1/commands", "threads:read"],
    ["POST", "/inbox/threads", "threads:create_run"],
    ["POST", "/assistants", "assistants:create"],
    ["POST", "/assistants/search", "assistants:search"],
    ["GET", "/assistants/a1/subgraphs/tools", "assistants:read"],
    ["POST", "/assistants/a1/versions", "assistants:read"],
    ["POST", "/assistants/a1/latest", "assistants:update"],
    ["DELETE", "/assistants/a1", "assistants:delete"],
    ["PUT", "/store/items", "store:put"],
    ["POST", "/store/namespaces", "store:list_namespaces"],
  ])("%s %s is %s", (method, path, event) => {
    expect(requestEvent(method, path)?.event).toBe(event);
  });

  it("leaves health, sign-in and the graph list to no handler", () => {
    for (const [method, path] of [
      ["GET", "/ok"],
      ["POST", "/auth/login"],
      ["GET", "/inbox/graphs"],
    ] as const)
      expect(requestEvent(method, path)).toBeUndefined();
  });
});

describe("filters match metadata as LangGraph's do", () => {
  it.each([
    [{ owner: "ana" }, { owner: "ana" }, true],
    [{ owner: "bo" }, { owner: "ana" }, false],
    [{ owner: "ana" }, { owner: { $eq: "ana" } }, true],
    [{}, { owner: { $eq: "ana" } }, false],
    [{ teams: ["ops", "dba"] }, { teams: { $contains: "ops" } }, true],
    [{ teams: ["ops"] }, { teams: { $contains: ["ops", "dba"] } }, false],
    [{ teams: "ops" }, { teams: { $contains: "ops" } }, false],
    [{ owner: "ana", org: "x" }, { owner: "ana", org: "y" }, false],
  ])("%j against %j: %s", (metadata, filters, expected) => {
    expect(matchesFilters(metadata, filters as never)).toBe(expected);
  });
});

/** Tokens of the people the server below knows. */
const people: Record<string, { identity: string; permissions: string[]; teams: string[] }> = {
  "token-ana": { identity: "ana", permissions: ["review"], teams: ["ops"] },
  "token-bo": { identity: "bo", permissions: ["review"], teams: ["dba"] },
};

/** Owner-only threads; a team sees what is tagged with one of its teams. */
const ownerAuth = new Auth()
  .authenticate((request) => {
    const user = people[request.headers.get("authorization")?.replace(/^Bearer /, "") ?? ""];
    if (!user) throw new HTTPException(401, { message: "Unknown token." });
    return user;
  })
  .on("threads:create", ({ value, user }) => {
    value.metadata ??= {};
    value.metadata.owner = user.identity;
  })
  .on("threads:create_run", ({ value, user }) => {
    value.metadata ??= {};
    value.metadata.owner = user.identity;
    return { owner: user.identity };
  })
  .on("threads:search", ({ user }): Record<string, string | { $contains: string }> => {
    const teams = (user as unknown as { teams: string[] }).teams;
    return teams.includes("dba") ? { teams: { $contains: "dba" } } : { owner: user.identity };
  })
  .on("threads", ({ user }) => ({ owner: user.identity }));

describe("a server with an auth file's handlers", () => {
  let running: RunningServer;
  const client = (token: string) =>
    new Client({ apiUrl: running.url, defaultHeaders: { authorization: `Bearer ${token}` } });
  const inbox = async (token: string, path: string) => {
    const res = await fetch(`${running.url}${path}`, {
      headers: { accept: "application/json", authorization: `Bearer ${token}` },
    });
    return { status: res.status, body: (await res.json()) as any };
  };

  beforeAll(async () => {
    running = await startServer({ checkpointer: new MemoryCheckpointer(), auth: ownerAuth });
  });
  afterAll(() => running.stop());

  it("stores the owner the create handler adds, whatever the client sent", async () => {
    const thread = await client("token-ana").threads.create({
      metadata: { owner: "bo", ticket: "T-1" },
    });
    expect(thread.metadata).toMatchObject({ owner: "ana", ticket: "T-1" });
  });

  it("lets a user find only the threads the search filters allow ($eq and $contains)", async () => {
    const ticket = randomUUID();
    // Threads a run has written (a thread no run wrote is not in the memory store's index).
    const ran = async (token: string, metadata: Record<string, unknown>) => {
      const threadId = randomUUID();
      await client(token).runs.wait(threadId, "pair", {
        input: {},
        metadata,
        ifNotExists: "create",
      });
      return threadId;
    };
    const mine = await ran("token-ana", { ticket });
    const dbaTagged = await ran("token-ana", { ticket, teams: ["dba", "ops"] });
    await ran("token-bo", { ticket });
    const anaFinds = await client("token-ana").threads.search({ metadata: { ticket } });
    expect(anaFinds.map((t) => t.thread_id).sort()).toEqual([mine, dbaTagged].sort());
    const boFinds = await client("token-bo").threads.search({ metadata: { ticket } });
    expect(boFinds.map((t) => t.thread_id)).toEqual([dbaTagged]);
    // Asking for another owner finds nothing, rather than one's own threads.
    expect(await client("token-ana").threads.search({ metadata: { ticket, owner: "bo" } })).toEqual(
      [],
    );
  });

  it("answers 404 for another user's thread, and leaves it unchanged", async () => {
    const thread = await client("token-ana").threads.create({ metadata: { note: "ana's" } });
    await expect(client("token-bo").threads.get(thread.thread_id)).rejects.toThrow("HTTP 404");
    await expect(client("token-bo").threads.delete(thread.thread_id)).rejects.toThrow("HTTP 404");
    expect(await client("token-ana").threads.get(thread.thread_id)).toMatchObject({
      metadata: { note: "ana's", owner: "ana" },
    });
  });

  it("patches a checkpoint's metadata only for who may update its thread", async () => {
    const threadId = randomUUID();
    await client("token-ana").runs.wait(threadId, "pair", { input: {}, ifNotExists: "create" });
    await expect(
      client("token-bo").threads.patchState(threadId, { reviewed: "bo" }),
    ).rejects.toThrow("HTTP 404");
    await client("token-ana").threads.patchState(threadId, { reviewed: "ana" });
    expect((await client("token-ana").threads.getState(threadId)).metadata).toMatchObject({
      reviewed: "ana",
    });
  });

  it("joins a thread's stream only for who may read the thread", async () => {
    const threadId = randomUUID();
    const run = await client("token-ana").runs.create(threadId, "pair", {
      input: {},
      ifNotExists: "create",
    });
    await client("token-ana").runs.join(threadId, run.run_id);
    const first = async (token: string) => {
      const stop = new AbortController();
      try {
        for await (const chunk of client(token).threads.joinStream(threadId, {
          lastEventId: "-",
          signal: stop.signal,
        }))
          return chunk;
      } finally {
        stop.abort();
      }
    };
    expect(await first("token-ana")).toMatchObject({ event: "metadata" });
    await expect(first("token-bo")).rejects.toThrow("HTTP 404");
  });

  it("joins a run's stream by the run id alone only for who may read its thread", async () => {
    const threadId = randomUUID();
    const run = await client("token-ana").runs.create(threadId, "pair", {
      input: {},
      ifNotExists: "create",
    });
    await client("token-ana").runs.join(threadId, run.run_id);
    const events = async (token: string) => {
      const out: Array<{ event: string; data: unknown }> = [];
      for await (const chunk of client(token).runs.joinStream(null, run.run_id, {
        lastEventId: "-1",
      }))
        out.push(chunk);
      return out;
    };
    expect((await events("token-ana")).map((e) => e.event)).toContain("values");
    expect(await events("token-bo")).toEqual([
      { event: "error", data: { error: "Error", message: "404: Thread not found" } },
    ]);
  });

  it("cancels only the runs of threads the user may see, another user's named run being a 404", async () => {
    const { thread_id: threadId } = await client("token-ana").threads.create();
    const anas = await client("token-ana").runs.create(threadId, "pair", {
      input: {},
      afterSeconds: 600,
    });
    await expect(client("token-bo").runs.cancelMany({ runIds: [anas.run_id] })).rejects.toThrow(
      "HTTP 404",
    );
    await client("token-bo").runs.cancelMany({ status: "all" });
    expect((await client("token-ana").runs.get(threadId, anas.run_id)).status).toBe("pending");
    await client("token-ana").runs.cancelMany({ status: "all" });
    expect((await client("token-ana").runs.get(threadId, anas.run_id)).status).toBe("interrupted");
  });

  it("prunes only the threads the user may see: another user's is skipped and kept", async () => {
    const anas = randomUUID();
    const bos = randomUUID();
    await client("token-ana").runs.wait(anas, "pair", { input: {}, ifNotExists: "create" });
    await client("token-bo").runs.wait(bos, "pair", { input: {}, ifNotExists: "create" });
    expect(await client("token-bo").threads.prune([anas, bos])).toEqual({ pruned_count: 1 });
    expect(await client("token-ana").threads.get(anas)).toMatchObject({ thread_id: anas });
    await expect(client("token-bo").threads.get(bos)).rejects.toThrow("HTTP 404");
  });

  it("owns a thread that a run creates, through the create_run handler", async () => {
    const threadId = randomUUID();
    await client("token-ana").runs.wait(threadId, "pair", { input: {}, ifNotExists: "create" });
    expect(await client("token-ana").threads.get(threadId)).toMatchObject({
      metadata: { owner: "ana" },
    });
    await expect(client("token-bo").threads.getState(threadId)).rejects.toThrow("HTTP 404");
  });

  it("shows each user only their own pending reviews in the inbox, and 404 for another's page", async () => {
    const anaThread = await client("token-ana").threads.create();
    await client("token-ana").runs.wait(anaThread.thread_id, "question", {
      input: { question: "ana's question?" },
    });
    const boThread = await client("token-bo").threads.create();
    await client("token-bo").runs.wait(boThread.thread_id, "question", {
      input: { question: "bo's question?" },
    });
    const anaItems = (await inbox("token-ana", "/inbox/items")).body.items;
    expect(anaItems.map((i: { threadId: string }) => i.threadId)).toContain(anaThread.thread_id);
    expect(anaItems.map((i: { threadId: string }) => i.threadId)).not.toContain(boThread.thread_id);
    expect((await inbox("token-ana", `/inbox/threads/${boThread.thread_id}`)).status).toBe(404);
    expect((await inbox("token-bo", `/inbox/threads/${boThread.thread_id}`)).status).toBe(200);
  });

  it("answers 404 for the review link of another user's decision", async () => {
    const thread = await client("token-ana").threads.create();
    await client("token-ana").runs.wait(thread.thread_id, "question", {
      input: { question: "link?" },
    });
    const [item] = (await inbox("token-ana", `/inbox/threads/${thread.thread_id}`)).body.pending;
    const decided = await fetch(`${running.url}/inbox/threads/${thread.thread_id}/decisions`, {
      method: "POST",
      headers: { authorization: "Bearer token-ana", "content-type": "application/json" },
      body: JSON.stringify({
        checkpointId: item.checkpointId,
        interruptId: item.interruptId,
        answer: "yes",
        idempotencyKey: randomUUID(),
      }),
    });
    expect(decided.status).toBe(202);
    const link = `/inbox/reviews/${item.interruptId}`;
    expect((await inbox("token-ana", link)).status).toBe(200);
    expect((await inbox("token-bo", link)).status).toBe(404);
  });

  it("sends a user's inbox change feed only the changes to their own threads", async () => {
    const abort = new AbortController();
    const res = await fetch(`${running.url}/inbox/events`, {
      headers: { authorization: "Bearer token-ana" },
      signal: abort.signal,
    });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let seen = "";
    // Connected first, so the changes below are published to this stream.
    while (!seen.includes(": connected")) seen += decoder.decode((await reader.read()).value);
    const boThread = randomUUID();
    await client("token-bo").runs.wait(boThread, "pair", { input: {}, ifNotExists: "create" });
    const anaThread = randomUUID();
    await client("token-ana").runs.wait(anaThread, "pair", { input: {}, ifNotExists: "create" });
    // Events come in the order they happened: bo's change would be here before ana's.
    while (!seen.includes(anaThread)) seen += decoder.decode((await reader.read()).value);
    abort.abort();
    expect(seen).not.toContain(boThread);
  });
});

describe("a server whose auth file has crons handlers", () => {
  const cronAuth = new Auth()
    .authenticate((request) => {
      const user = people[request.headers.get("authorization")?.replace(/^Bearer /, "") ?? ""];
      if (!user) throw new HTTPException(401, { message: "Unknown token." });
      return user;
    })
    .on("crons:create", ({ value, user }) => {
      // Our cron's value is its request body, metadata included (LangGraph's type lacks it).
      const body = value as { metadata?: Record<string, unknown> };
      body.metadata ??= {};
      body.metadata.owner = user.identity;
    })
    .on("crons", ({ user }) => ({ owner: user.identity }))
    .on("threads:create", ({ value, user }) => {
      value.metadata ??= {};
      value.metadata.owner = user.identity;
    })
    .on("threads", ({ user }) => ({ owner: user.identity }));
  let running: RunningServer;
  const client = (token: string) =>
    new Client({ apiUrl: running.url, defaultHeaders: { authorization: `Bearer ${token}` } });

  beforeAll(async () => {
    running = await startServer({ checkpointer: new MemoryCheckpointer(), auth: cronAuth });
  });
  afterAll(() => running.stop());

  it("records the owner the create handler adds, and shows, changes and deletes a cron only for its owner", async () => {
    const cron = await client("token-ana").crons.create("question", {
      schedule: "0 9 * * *",
      input: { question: "?" },
      metadata: { owner: "bo" },
    });
    expect(cron.metadata).toEqual({ owner: "ana" });
    expect((await client("token-ana").crons.search()).map((c) => c.cron_id)).toEqual([
      cron.cron_id,
    ]);
    expect(await client("token-bo").crons.search()).toEqual([]);
    expect(await client("token-bo").crons.count()).toBe(0);
    await expect(client("token-bo").crons.update(cron.cron_id, { enabled: false })).rejects.toThrow(
      /404/,
    );
    await expect(client("token-bo").crons.delete(cron.cron_id)).rejects.toThrow(/404/);
    expect((await client("token-ana").crons.search())[0]?.enabled).toBe(true);
  });

  it("refuses a cron on a thread the caller may not run on, as a 404", async () => {
    const thread = await client("token-ana").threads.create();
    await expect(
      client("token-bo").crons.createForThread(thread.thread_id, "question", {
        schedule: "0 9 * * *",
      }),
    ).rejects.toThrow(/404/);
    const mine = await client("token-ana").crons.createForThread(thread.thread_id, "question", {
      schedule: "0 9 * * *",
    });
    expect(mine.thread_id).toBe(thread.thread_id);
  });
});
