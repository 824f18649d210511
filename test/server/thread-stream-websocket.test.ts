import { randomUUID } from "node:crypto";
import { Client, ProtocolError, ProtocolWebSocketTransportAdapter } from "@langchain/langgraph-sdk";
import { Auth, HTTPException } from "@langchain/langgraph-sdk/auth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer, DEFAULT_BODY_LIMIT } from "../../src/server/index.js";
import { startAuthFileServer, tokenOf } from "./fixtures/auth-file-server.js";
import { reader, summary } from "./fixtures/protocol-events.js";
import { openProtocolSocket, webSocketFactory } from "./fixtures/protocol-socket.js";
import { type RunningServer, startServer, tempDataDir, testGraphs } from "./fixtures/server.js";
import { serverOnStore, serverStores } from "./fixtures/server-stores.js";

const ALL = ["lifecycle", "input", "values", "updates"] as const;

// The SDK's `threads.stream` over its WebSocket transport (as a Node 20 program uses it:
// with `ws` as its WebSocket), against our server on PGlite and on PostgreSQL.
describe.each(serverStores)(
  "the SDK's threads.stream over a WebSocket on %s",
  { timeout: 60_000 },
  (_name, enabled, open) => {
    const on = serverOnStore(enabled, open, {}, { streamProtocol: "v2-websocket" });

    it.skipIf(!enabled)(
      "starts a run, reads it to its interrupt, answers it and reads the run to its end on one socket; another socket replays the same numbered events",
      async () => {
        const thread = on.client.threads.stream({
          assistantId: "question",
          webSocketFactory: webSocketFactory(),
        });
        try {
          // Subscribed first: a subscription made while the SDK's own lifecycle watcher
          // subscribes may get that watcher's replay ahead of its own (the SDK's ordering).
          const readUntil = reader(await thread.subscribe(ALL));
          const { run_id } = await thread.run.start({ input: { question: "Why?" } });
          expect(run_id).toEqual(expect.any(String));
          const first = await readUntil("interrupted");
          expect(summary(first)).toEqual([
            "lifecycle:running",
            "values",
            "input.requested",
            "lifecycle:interrupted",
          ]);
          const asked = first.find((e) => e.method === "input.requested")!;
          expect(asked.params.data.payload).toEqual({ question: "Why?" });
          expect(thread.interrupted).toBe(true);

          await thread.input.respond({
            namespace: [],
            interrupt_id: asked.params.data.interrupt_id,
            response: "Because.",
          });
          const second = await readUntil("completed");
          expect(summary(second)).toEqual([
            "lifecycle:running",
            "values",
            "updates:ask",
            "values",
            "lifecycle:completed",
          ]);
          expect(second.at(-2)!.params.data).toEqual({ question: "Why?", answer: "Because." });
          // Numbered in the thread's log, whose other channels (tasks, checkpoints) take the
          // numbers between: rising from the log's first event, never repeated.
          const seqs = [...first, ...second].map((e) => e.seq);
          expect(seqs[0]).toBe(1);
          expect(seqs.every((n, i) => i === 0 || n! > seqs[i - 1]!)).toBe(true);
          expect(await thread.state.get({ namespace: [] })).toMatchObject({
            values: { question: "Why?", answer: "Because." },
            checkpoint: { id: expect.any(String) },
          });

          const again = on.client.threads.stream(thread.threadId, {
            assistantId: "question",
            webSocketFactory: webSocketFactory(),
          });
          try {
            const replay = reader(await again.subscribe(ALL));
            expect((await replay("interrupted")).map((e) => [e.event_id, e.method])).toEqual(
              first.map((e) => [e.event_id, e.method]),
            );
          } finally {
            await again.close();
          }
        } finally {
          await thread.close();
        }
      },
    );

    it.skipIf(!enabled)(
      "answers a subscribe before replaying what matches its channels, namespaces and since; unsubscribe stops its events",
      async () => {
        const threadId = randomUUID();
        const socket = await openProtocolSocket(on.running.url, threadId);
        try {
          const lifecycle = await socket.command("subscription.subscribe", {
            channels: ["lifecycle"],
          });
          expect(lifecycle).toMatchObject({
            type: "success",
            result: { subscription_id: expect.any(String), replayed_events: 0 },
          });
          const started = await socket.command("run.start", {
            assistant_id: "stepper",
            input: { n: 1 },
          });
          expect(started).toMatchObject({
            type: "success",
            result: { run_id: expect.any(String) },
          });
          const paused = await socket.waitFor(
            (f) => f.method === "lifecycle" && f.params?.data.event === "interrupted",
          );

          // Replayed: the answer first, then the matching events so far, numbered as before.
          const at = socket.frames.length;
          const values = await socket.command("subscription.subscribe", {
            channels: ["values", "lifecycle"],
            since: 1,
          });
          const replayed = socket.frames.slice(at + 1, at + 1 + values.result.replayed_events);
          expect(socket.frames[at]).toBe(values);
          expect(replayed.length).toBeGreaterThan(1);
          expect(replayed.every((f) => f.type === "event" && f.seq! > 1)).toBe(true);
          expect(replayed.at(-1)).toMatchObject({ seq: paused.seq, method: "lifecycle" });
          // A namespace nothing streams under, or a depth below it: nothing to replay.
          expect(
            await socket.command("subscription.subscribe", {
              channels: ["values"],
              namespaces: [["child"]],
              depth: 0,
            }),
          ).toMatchObject({ type: "success", result: { replayed_events: 0 } });

          expect(
            await socket.command("subscription.unsubscribe", {
              subscription_id: lifecycle.result.subscription_id,
            }),
          ).toMatchObject({ type: "success", result: {} });
          expect(
            await socket.command("subscription.unsubscribe", {
              subscription_id: lifecycle.result.subscription_id,
            }),
          ).toMatchObject({ type: "error", error: "no_such_subscription" });
          expect(
            await socket.command("subscription.reconnect", { run_id: started.result.run_id }),
          ).toMatchObject({ type: "error", error: "not_supported", message: /since/ });
          expect(
            await socket.command("subscription.unsubscribe", {
              subscription_id: values.result.subscription_id,
            }),
          ).toMatchObject({ type: "success" });

          // Nothing subscribed to lifecycle any more: the next run's events are not sent.
          const before = socket.frames.length;
          const resumed = await socket.command("run.start", {
            assistant_id: "stepper",
            input: null,
          });
          expect(resumed.type).toBe("success");
          await on.client.runs.join(threadId, resumed.result.run_id);
          const state = await socket.command("state.get", {});
          expect(state).toMatchObject({
            type: "success",
            result: { values: { n: 2, published: true } },
          });
          expect(socket.frames.slice(before).filter((f) => f.type === "event")).toEqual([]);
        } finally {
          socket.close();
        }
      },
    );

    it.skipIf(!enabled)(
      "answers bad frames with the protocol's error frame and keeps the socket open",
      async () => {
        const socket = await openProtocolSocket(on.running.url, randomUUID());
        try {
          socket.sendRaw("not json");
          expect(await socket.waitFor((f) => f.type === "error")).toEqual({
            type: "error",
            id: null,
            error: "invalid_argument",
            message: expect.stringMatching(/JSON command/),
          });
          socket.sendRaw(JSON.stringify({ method: "state.get" }));
          expect(
            await socket.waitFor((f) => f.type === "error" && f.message!.includes("id")),
          ).toMatchObject({
            id: null,
            error: "invalid_argument",
          });
          expect(await socket.command("run.rewind", {})).toMatchObject({
            type: "error",
            error: "unknown_command",
          });
          expect(await socket.command("subscription.subscribe", { channels: [] })).toMatchObject({
            type: "error",
            error: "invalid_argument",
            message: expect.stringMatching(/params\.channels/),
          });
          expect(
            await socket.command("run.start", { assistant_id: "nope", input: {} }),
          ).toMatchObject({ type: "error", error: "invalid_argument" });
          // Still open: a good command is answered; a frame over the body limit closes it (1009).
          expect(
            await socket.command("subscription.subscribe", { channels: ["values"] }),
          ).toMatchObject({
            type: "success",
          });
          socket.sendRaw("x".repeat(DEFAULT_BODY_LIMIT + 1));
          expect(await socket.closed).toBe(1009);
        } finally {
          socket.close();
        }
      },
    );

    it.skipIf(!enabled)(
      "refuses a browser's upgrade from another origin on a server without a token (this machine only)",
      async () => {
        const threadId = randomUUID();
        await expect(
          openProtocolSocket(on.running.url, threadId, { origin: "http://evil.example" }),
        ).rejects.toMatchObject({ status: 403 });
        // DNS rebinding: another name for this machine is refused as on HTTP.
        await expect(
          openProtocolSocket(on.running.url, threadId, { host: "evil.example" }),
        ).rejects.toMatchObject({ status: 403 });
        const own = await openProtocolSocket(on.running.url, threadId, {
          origin: on.running.url,
        });
        own.close();
      },
    );
  },
);

describe("the protocol WebSocket's doors", { timeout: 60_000 }, () => {
  let running: RunningServer;
  beforeAll(async () => {
    running = await startServer({ token: "secret" });
  });
  afterAll(() => running.stop());

  it("needs the token as on HTTP: none is refused, a bearer or x-api-key header from the factory is taken", async () => {
    const threadId = randomUUID();
    await expect(openProtocolSocket(running.url, threadId)).rejects.toMatchObject({ status: 401 });
    await expect(
      openProtocolSocket(running.url, threadId, { authorization: "Bearer wrong" }),
    ).rejects.toMatchObject({ status: 401 });
    const keyed = await openProtocolSocket(running.url, threadId, { "x-api-key": "secret" });
    keyed.close();

    // The SDK on Node: a client without default headers, the token in the factory's headers.
    const client = new Client({ apiUrl: running.url, streamProtocol: "v2-websocket" });
    const thread = client.threads.stream(threadId, {
      assistantId: "stepper",
      webSocketFactory: webSocketFactory({ authorization: "Bearer secret" }),
    });
    try {
      const { run_id } = await thread.run.start({ input: { n: 1 } });
      const http = new Client({ apiUrl: running.url, apiKey: "secret" });
      await http.runs.join(threadId, run_id!);
      expect((await thread.state.get({ namespace: [] })).values).toEqual({ n: 2 });
    } finally {
      await thread.close();
    }

    // A client with an apiKey refuses to open its own socket (no headers on a browser's
    // WebSocket): it takes a transport made with the factory instead.
    const keyedClient = new Client({ apiUrl: running.url, apiKey: "secret" });
    const refused = keyedClient.threads.stream(threadId, {
      assistantId: "stepper",
      transport: "websocket",
    });
    await expect(refused.state.get({ namespace: [] })).rejects.toThrow(/defaultHeaders/);
    await refused.close();
    const viaTransport = keyedClient.threads.stream(threadId, {
      assistantId: "stepper",
      transport: new ProtocolWebSocketTransportAdapter({
        apiUrl: running.url,
        webSocketFactory: webSocketFactory({ authorization: "Bearer secret" }),
      }),
    });
    try {
      expect((await viaTransport.state.get({ namespace: [] })).values).toEqual({ n: 2 });
    } finally {
      await viaTransport.close();
    }
  });

  it("refuses a browser's upgrade from another origin, even with the inbox's session cookie", async () => {
    const login = await fetch(`${running.url}/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ token: "secret" }),
    });
    const cookie = login.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    const threadId = randomUUID();
    const host = new URL(running.url).host;
    await expect(
      openProtocolSocket(running.url, threadId, { cookie, origin: "https://evil.example" }),
    ).rejects.toMatchObject({ status: 403 });
    await expect(
      openProtocolSocket(running.url, threadId, { cookie, "sec-fetch-site": "cross-site" }),
    ).rejects.toMatchObject({ status: 403 });
    const own = await openProtocolSocket(running.url, threadId, {
      cookie,
      origin: `http://${host}`,
    });
    expect(await own.command("subscription.subscribe", { channels: ["values"] })).toMatchObject({
      type: "success",
    });
    own.close();
  });

  it("answers a GET that is no WebSocket with 426, saying how to connect", async () => {
    const res = await fetch(`${running.url}/threads/${randomUUID()}/stream/events`, {
      headers: { authorization: "Bearer secret", accept: "application/json" },
    });
    expect(res.status).toBe(426);
    expect(await res.json()).toMatchObject({
      error: { code: "WEBSOCKET_REQUIRED", message: expect.stringMatching(/v2-websocket/) },
    });
  });
});

// An auth file's handlers guard the socket as the HTTP routes: the upgrade reads the
// thread, and each command is checked with its own rights as it comes.
describe("the protocol WebSocket under an auth file", { timeout: 60_000 }, () => {
  let running: { url: string; stop(): Promise<void> };
  beforeAll(async () => {
    running = await startAuthFileServer();
  }, 60_000);
  afterAll(() => running.stop());

  it("lets the owner run on the thread and hides it from another user's socket", async () => {
    const owner = `Bearer ${await tokenOf("johndoe", ["me"])}`;
    const client = new Client({ apiUrl: running.url, streamProtocol: "v2-websocket" });
    const thread = client.threads.stream({
      assistantId: "agent_simple",
      webSocketFactory: webSocketFactory({ authorization: owner }),
    });
    try {
      const { run_id } = await thread.run.start({
        input: { messages: [{ role: "human", content: "hi" }] },
      });
      const http = new Client({ apiUrl: running.url, defaultHeaders: { Authorization: owner } });
      await http.runs.join(thread.threadId, run_id!);
      expect((await http.threads.get(thread.threadId)).metadata).toMatchObject({
        owner: "johndoe",
      });
      const alice = `Bearer ${await tokenOf("alice", ["me"])}`;
      await expect(
        openProtocolSocket(running.url, thread.threadId, { authorization: alice }),
      ).rejects.toMatchObject({ status: 404 });
      // No credential: refused at the upgrade, as on every route.
      await expect(openProtocolSocket(running.url, thread.threadId)).rejects.toMatchObject({
        status: 401,
      });
    } finally {
      await thread.close();
    }
  });

  it("closes a socket opened before its thread existed, when the thread is made another user's (4404), having sent none of its events", async () => {
    const threadId = randomUUID();
    const alice = await openProtocolSocket(running.url, threadId, {
      authorization: `Bearer ${await tokenOf("alice", ["me"])}`,
    });
    expect(
      await alice.command("subscription.subscribe", { channels: ["lifecycle", "values"] }),
    ).toMatchObject({ type: "success" });
    const owner = new Client({
      apiUrl: running.url,
      defaultHeaders: { Authorization: `Bearer ${await tokenOf("johndoe", ["me"])}` },
    });
    await owner.runs.wait(threadId, "agent_simple", {
      input: { messages: [{ role: "human", content: "hi" }] },
      ifNotExists: "create",
    });
    expect(await alice.closed).toBe(4404);
    expect(alice.frames.filter((f) => f.type === "event")).toEqual([]);
  });

  it("checks each command's own rights: a reader may subscribe and read, not run", async () => {
    const auth = new Auth()
      .authenticate(async (request) => {
        const who = request.headers.get("authorization")?.replace(/^Bearer /, "");
        if (who !== "reader" && who !== "writer") throw new HTTPException(401);
        return { identity: who, permissions: [who] };
      })
      .on("threads:create_run", ({ permissions }) => {
        if (!permissions.includes("writer"))
          throw new HTTPException(403, { message: "Readers do not run." });
      });
    const dir = await tempDataDir();
    const checkpointer = dir.open();
    const server = createServer({ graphs: testGraphs(), checkpointer, auth });
    const { url } = await server.listen({ port: 0 });
    try {
      const threadId = randomUUID();
      const writer = await openProtocolSocket(url, threadId, { authorization: "Bearer writer" });
      expect(
        await writer.command("run.start", { assistant_id: "stepper", input: { n: 1 } }),
      ).toMatchObject({ type: "success" });
      writer.close();
      const reader = await openProtocolSocket(url, threadId, { authorization: "Bearer reader" });
      expect(
        await reader.command("subscription.subscribe", { channels: ["lifecycle"] }),
      ).toMatchObject({
        type: "success",
      });
      const refused = await reader.command("run.start", { assistant_id: "stepper", input: {} });
      expect(refused).toMatchObject({
        type: "error",
        error: "permission_denied",
        message: "Readers do not run.",
      });
      expect(await reader.command("state.get", {})).toMatchObject({ type: "success" });
      reader.close();
      // The SDK tells the refusal as a ProtocolError.
      const client = new Client({ apiUrl: url, streamProtocol: "v2-websocket" });
      const thread = client.threads.stream(threadId, {
        assistantId: "stepper",
        webSocketFactory: webSocketFactory({ authorization: "Bearer reader" }),
      });
      try {
        const error = await thread.run.start({ input: {} }).catch((e) => e);
        expect(error).toBeInstanceOf(ProtocolError);
        expect(error).toMatchObject({ code: "permission_denied" });
      } finally {
        await thread.close();
      }
    } finally {
      await server.close();
      await checkpointer.close();
      await dir.dispose();
    }
  });
});
