import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createAgent, type ReviewDeadlinePolicy } from "../../src/agent/index.js";
import { FakeChatModel, type FakeResponse, tool } from "../../src/models/index.js";
import { questionGraph } from "./fixtures/graphs.js";
import { type RunningServer, startServer } from "./fixtures/server.js";

// Review deadlines as the inbox shows them: through the HTTP routes the web page uses.
const transfer = tool({
  name: "transfer",
  description: "Send money.",
  schema: z.object({ amount: z.number() }),
  run: ({ amount }) => `sent ${amount}`,
});
const reply: FakeResponse = (messages) =>
  messages.at(-1)?.role === "tool"
    ? `Tool said: ${messages.at(-1)?.content}`
    : { toolCalls: [{ name: "transfer", args: { amount: 10 } }] };
const payments = (name: string, deadline: ReviewDeadlinePolicy) =>
  createAgent({
    name,
    model: new FakeChatModel({ responses: Array.from({ length: 200 }, () => reply) }),
    tools: [transfer],
    interruptOn: { transfer: { allowedDecisions: ["approve", "reject"], deadline } },
  });

let running: RunningServer;
beforeAll(async () => {
  running = await startServer({
    graphs: {
      soon: payments("soon", { after: "1h", onExpiry: "wait" }),
      later: payments("later", { after: "2h", onExpiry: "wait" }),
      escalating: payments("escalating", {
        after: 300,
        onExpiry: { handOff: { group: "oncall", message: "No answer within 300 ms" } },
      }),
      expiring: payments("expiring", { after: 300, onExpiry: { reject: { message: "Expired." } } }),
      question: questionGraph(),
    },
  });
});
afterAll(() => running.stop());

const api = async (path: string, init: { method?: string; body?: unknown } = {}) => {
  const res = await fetch(`${running.url}${path}`, {
    method: init.method ?? "GET",
    headers: { "content-type": "application/json" },
    ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
  });
  return { status: res.status, body: (await res.json()) as any };
};

async function newThread(graphId: string, input: unknown): Promise<string> {
  const { body } = await api("/inbox/threads", { method: "POST", body: { graphId, input } });
  await api(`/threads/${body.threadId}/runs/${body.runId}/join`);
  return body.threadId;
}
const pay = { messages: [{ type: "human", content: "pay" }] };

async function until<T>(what: string, read: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const v = await read();
    if (ok(v)) return v;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`Gave up waiting for ${what}`);
}

describe("the inbox and review deadlines", () => {
  it("lists the soonest deadline first, then reviews without one, newest first", async () => {
    const later = await newThread("later", pay);
    const oldQuestion = await newThread("question", { question: "First?" });
    const soon = await newThread("soon", pay);
    const newQuestion = await newThread("question", { question: "Second?" });
    const { body } = await api("/inbox/items");
    const mine = body.items.filter((i: any) =>
      [later, oldQuestion, soon, newQuestion].includes(i.threadId),
    );
    expect(mine.map((i: any) => i.threadId)).toEqual([soon, later, newQuestion, oldQuestion]);
    expect(mine[0].deadline).toEqual({ at: expect.any(String), onExpiry: "wait" });
    expect(Date.parse(mine[0].deadline.at)).toBeLessThan(Date.parse(mine[1].deadline.at));
    expect(mine[2].deadline).toBeNull();
    expect(mine.every((i: any) => i.reviewGroup === null)).toBe(true);
  });

  it("a handed-off review shows its group, and the list filters by group", async () => {
    const threadId = await newThread("escalating", pay);
    const item = await until(
      "the hand-off",
      async () => (await api("/inbox/items")).body.items.find((i: any) => i.threadId === threadId),
      (i) => i?.reviewGroup === "oncall",
    );
    expect(item.threadMetadata["stateweaver:deadlines"][item.interruptId]).toMatchObject({
      action: "handed_off",
      group: "oncall",
      message: "No answer within 300 ms",
    });
    const oncall = (await api("/inbox/items?group=oncall")).body.items;
    expect(oncall.map((i: any) => i.threadId)).toContain(threadId);
    expect(oncall.every((i: any) => i.reviewGroup === "oncall")).toBe(true);
  });

  it("a review rejected by its deadline leaves the inbox and shows in the history as the deadline's decision", async () => {
    const threadId = await newThread("expiring", pay);
    const page = await until(
      "the deadline's reject",
      async () => (await api(`/inbox/threads/${threadId}`)).body,
      (p) => p.thread.status === "idle",
    );
    expect(page.pending).toEqual([]);
    expect(page.decisions).toEqual([
      expect.objectContaining({
        reviewer: "deadline",
        answer: { decisions: [{ type: "reject", message: "Expired." }] },
      }),
    ]);
    expect(page.messages.at(-1).content).toBe("Tool said: Expired.");
    const items = (await api("/inbox/items")).body.items;
    expect(items.some((i: any) => i.threadId === threadId)).toBe(false);
  });
});
