import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  loadServerConfig,
  ServerConfigError,
  verifyWebhookSignature,
  webhookOptionsOf,
} from "../../src/server/index.js";
import { startReceiver, type WebhookReceiver } from "../runs/fixtures/webhook-receiver.js";
import { type RunningServer, startServer } from "./fixtures/server.js";
import { type ServerStore, serverStores } from "./fixtures/server-stores.js";

const SECRET = "server-webhook-secret";
const RUN_SECRET = "run-webhook-secret";

// The server's webhooks, driven as users drive it: the SDK client for runs (LangGraph's
// per-run `webhook`), the inbox's decision endpoint for reviews.
describe.each(serverStores)("webhooks from the server, on %s", (_name, enabled, open) => {
  let running: RunningServer;
  let store: ServerStore;
  let client: Client;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    if (!enabled) return;
    receiver = await startReceiver();
    store = await open();
    running = await startServer({
      checkpointer: store.checkpointer,
      ...(store.queue && { queue: store.queue }),
      webhooks: webhookOptionsOf({
        endpoints: [
          { url: receiver.url, secret: SECRET, events: ["review.waiting", "review.decided"] },
        ],
        runWebhook: { secret: RUN_SECRET },
        inboxUrl: "https://reviews.example.com",
        initialDelayMs: 20,
      }),
    });
    client = new Client({ apiUrl: running.url });
  });
  afterAll(async () => {
    if (!enabled) return;
    await running.stop();
    await store.dispose();
    await receiver.close();
  });

  it.skipIf(!enabled)(
    "a run created with `webhook` through the SDK client is posted there when it ends, as LangGraph does",
    async () => {
      const thread = await client.threads.create();
      receiver.failNext(1);
      await client.runs.wait(thread.thread_id, "ops", {
        input: { messages: [{ type: "human", content: "hello" }] },
        webhook: receiver.url,
      });
      const [run] = await client.runs.list(thread.thread_id);
      const hit = await receiver.waitFor(
        (r) => r.json?.run_id === run!.run_id,
        "the run's webhook",
      );
      expect(hit.json).toMatchObject({
        run_id: run!.run_id,
        thread_id: thread.thread_id,
        assistant_id: "ops",
        status: "success",
      });
      // Messages as LangChain shapes them, as in the run's own answers.
      expect(hit.json.values.messages.map((m: { type: string }) => m.type)).toEqual([
        "human",
        "ai",
      ]);
      expect(hit.headers["stateweaver-attempt"]).toBe("2");
      expect(verifyWebhookSignature(RUN_SECRET, hit.headers, hit.body)).toBe(true);
    },
  );

  it.skipIf(!enabled)(
    "a stateless run's webhook carries its final values although its thread is deleted",
    async () => {
      const values = await client.runs.wait(null, "ops", {
        input: { messages: [{ type: "human", content: "hi there" }] },
        webhook: receiver.url,
      });
      const hit = await receiver.waitFor(
        (r) => r.json?.values?.messages?.[0]?.content === "hi there",
        "the stateless run's webhook",
      );
      expect(hit.json.status).toBe("success");
      expect(hit.json.values).toEqual(values);
    },
  );

  it.skipIf(!enabled)(
    "a run whose webhook is not an http(s) URL is refused, and nothing runs",
    async () => {
      const thread = await client.threads.create();
      await expect(
        client.runs.create(thread.thread_id, "ops", {
          input: { messages: [{ type: "human", content: "hello" }] },
          webhook: "javascript:alert(1)",
        }),
      ).rejects.toThrow(/webhook/);
      expect(await client.runs.list(thread.thread_id)).toEqual([]);
    },
  );

  it.skipIf(!enabled)(
    "a run whose webhook path would leave this server is refused, and nothing runs",
    async () => {
      const thread = await client.threads.create();
      for (const webhook of ["//evil.example/hook", "/\\evil.example/hook"]) {
        await expect(
          client.runs.create(thread.thread_id, "ops", {
            input: { messages: [{ type: "human", content: "hello" }] },
            webhook,
          }),
        ).rejects.toThrow(/HTTP 400: .*webhook/);
      }
      expect(await client.runs.list(thread.thread_id)).toEqual([]);
    },
  );

  it.skipIf(!enabled)(
    "a question and a breakpoint waiting are told as review.waiting too, each in its words",
    async () => {
      const asked = await client.threads.create();
      await client.runs.wait(asked.thread_id, "question", { input: { question: "Ship it?" } });
      const question = await receiver.waitFor(
        (r) => r.json?.event === "review.waiting" && r.json.thread_id === asked.thread_id,
        "the question's review.waiting",
      );
      expect(question.json).toMatchObject({
        kind: "interrupt",
        title: `Review waiting: the question from ask on thread ${asked.thread_id}`,
        tool: null,
        asked: "anyone who can open the inbox",
      });
      expect(question.json.text).toContain("Ship it?");

      const stepped = await client.threads.create();
      await client.runs.wait(stepped.thread_id, "stepper", { input: { n: 1 } });
      const breakpoint = await receiver.waitFor(
        (r) => r.json?.event === "review.waiting" && r.json.thread_id === stepped.thread_id,
        "the breakpoint's review.waiting",
      );
      const { checkpoint_id } = (await client.threads.getState(stepped.thread_id)).checkpoint;
      expect(breakpoint.json).toMatchObject({
        kind: "breakpoint",
        interrupt_id: `breakpoint:${checkpoint_id}`,
        title: `Review waiting: the breakpoint before publish on thread ${stepped.thread_id}`,
        url: `https://reviews.example.com/threads/${stepped.thread_id}`,
      });
    },
  );

  it.skipIf(!enabled)(
    "a decision taken in the inbox is told as review.decided: who, what, and the link",
    async () => {
      const thread = await client.threads.create();
      await client.runs.wait(thread.thread_id, "ops", {
        input: { messages: [{ type: "human", content: "remove old.log" }] },
      });
      const page = (await (
        await fetch(`${running.url}/inbox/threads/${thread.thread_id}`)
      ).json()) as {
        pending: Array<{ checkpointId: string; interruptId: string }>;
      };
      const [item] = page.pending;
      const res = await fetch(`${running.url}/inbox/threads/${thread.thread_id}/decisions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          checkpointId: item!.checkpointId,
          interruptId: item!.interruptId,
          answer: { decisions: [{ type: "reject", message: "Keep it." }] },
          reviewer: "ana",
          idempotencyKey: "webhook-decision-1",
        }),
      });
      expect(res.status).toBe(202);
      const hit = await receiver.waitFor(
        (r) => r.json?.event === "review.decided" && r.json.thread_id === thread.thread_id,
        "review.decided",
      );
      expect(verifyWebhookSignature(SECRET, hit.headers, hit.body)).toBe(true);
      expect(hit.json).toMatchObject({
        title: `Review decided: ana rejected remove_file on thread ${thread.thread_id}`,
        interrupt_id: item!.interruptId,
        tool: "remove_file",
        args: { path: "old.log" },
        url: `https://reviews.example.com/reviews/${item!.interruptId}`,
        decision: { reviewer: "ana", authenticated_by: "shared_token", types: ["reject"] },
      });
    },
  );

  it.skipIf(!enabled)(
    "a resume sent through the runs API is told as review.decided, as its caller",
    async () => {
      const thread = await client.threads.create();
      const paused = (await client.runs.wait(thread.thread_id, "ops", {
        input: { messages: [{ type: "human", content: "remove stale.log" }] },
      })) as { __interrupt__: Array<{ id: string }> };
      const interruptId = paused.__interrupt__[0]!.id;
      const run = await client.runs.create(thread.thread_id, "ops", {
        command: { resume: { decisions: [{ type: "reject", message: "Keep it." }] } },
      });
      const hit = await receiver.waitFor(
        (r) => r.json?.event === "review.decided" && r.json.thread_id === thread.thread_id,
        "review.decided",
      );
      expect(hit.json).toMatchObject({
        title: `Review decided: anonymous rejected remove_file on thread ${thread.thread_id}`,
        interrupt_id: interruptId,
        run_id: run.run_id,
        tool: "remove_file",
        decision: { reviewer: "anonymous", authenticated_by: "shared_token", types: ["reject"] },
      });
      await client.runs.join(thread.thread_id, run.run_id);
    },
  );
});

describe("webhooks in stateweaver.json", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "sw-webhook-config-"));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const configWith = async (webhooks: unknown) => {
    const file = join(dir, `stateweaver-${Math.random().toString(36).slice(2)}.json`);
    await writeFile(file, JSON.stringify({ graphs: {}, webhooks }));
    return file;
  };

  it("are read as written, secrets named by environment variable left for the CLI to read", async () => {
    const file = await configWith([
      { url: "https://hooks.example.com/x", events: ["review.waiting"], secretEnv: "HOOK_SECRET" },
    ]);
    const { webhooks } = await loadServerConfig(file);
    expect(webhookOptionsOf(webhooks, { HOOK_SECRET: "s" }).endpoints).toEqual([
      { url: "https://hooks.example.com/x", events: ["review.waiting"], secret: "s" },
    ]);
  });

  it("that are not usable are refused with a ServerConfigError naming the file and each problem", async () => {
    const file = await configWith({ endpoints: [{ url: "not a url", events: ["review.later"] }] });
    const loading = loadServerConfig(file);
    await expect(loading).rejects.toThrow(ServerConfigError);
    await expect(loadServerConfig(file)).rejects.toThrow(
      /webhooks\.endpoints\[0\]\.url: an http:\/\/ or https:\/\/ URL; webhooks\.endpoints\[0\]\.events\[0\]/,
    );
  });
});
