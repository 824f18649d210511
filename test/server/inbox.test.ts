import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { removed } from "./fixtures/graphs.js";
import { type RunningServer, startServer } from "./fixtures/server.js";

// The inbox endpoints, through plain fetch as the web page and the terminal reviewer use them.
let running: RunningServer;
beforeAll(async () => {
  running = await startServer();
});
afterAll(() => running.stop());

const api = async (path: string, init: { method?: string; body?: unknown } = {}) => {
  const res = await fetch(`${running.url}${path}`, {
    method: init.method ?? "GET",
    headers: { accept: "application/json", "content-type": "application/json" },
    ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
  });
  return { status: res.status, body: (await res.json()) as any };
};

/** Start a thread of `graphId` and wait until its first run has ended. */
async function newThread(graphId: string, input: unknown): Promise<string> {
  const { body } = await api("/inbox/threads", { method: "POST", body: { graphId, input } });
  await api(`/threads/${body.threadId}/runs/${body.runId}/join`);
  return body.threadId;
}

async function pendingOf(threadId: string) {
  const { body } = await api(`/inbox/threads/${threadId}`);
  return body;
}

let keys = 0;
const key = () => `key-${++keys}`;

describe("the inbox lists what waits for a person", () => {
  it("shows tool reviews, plain interrupts and breakpoints with counts per graph", async () => {
    const review = await newThread("ops", {
      messages: [{ type: "human", content: "remove list.txt" }],
    });
    const question = await newThread("question", { question: "Ship it?" });
    const breakpoint = await newThread("stepper", { n: 0 });
    const { body } = await api("/inbox/items");
    const mine = body.items.filter((i: any) => [review, question, breakpoint].includes(i.threadId));
    expect(mine.map((i: any) => [i.graphId, i.kind])).toEqual([
      ["stepper", "breakpoint"],
      ["question", "interrupt"],
      ["ops", "tool_review"],
    ]);
    const tool = mine.find((i: any) => i.kind === "tool_review");
    expect(tool.summary).toBe("remove_file(path: list.txt)");
    expect(mine[0].interruptId).toBe(`breakpoint:${mine[0].checkpointId}`);
    expect(mine[1].summary).toBe("Ship it?");
    expect(body.counts.byGraph.ops).toBeGreaterThanOrEqual(1);
    const opsOnly = await api("/inbox/items?graph=question");
    expect(opsOnly.body.items.every((i: any) => i.graphId === "question")).toBe(true);
  });

  it("serves the graphs with their nodes and edges", async () => {
    const { body } = await api("/inbox/graphs");
    const stepper = body.find((g: any) => g.graphId === "stepper");
    expect(stepper.nodes.map((n: any) => n.id)).toEqual([
      "__start__",
      "count",
      "publish",
      "__end__",
    ]);
  });
});

describe("decisions", () => {
  it("approves a review, records who decided and when, and shows it in the history", async () => {
    const threadId = await newThread("ops", {
      messages: [{ type: "human", content: "remove a1.txt" }],
    });
    const page = await pendingOf(threadId);
    expect(page.waitingAt).toEqual(["humanInTheLoop/afterModel"]);
    const [item] = page.pending;
    const res = await api(`/inbox/threads/${threadId}/decisions`, {
      method: "POST",
      body: {
        checkpointId: item.checkpointId,
        interruptId: item.interruptId,
        answer: { decisions: [{ type: "approve" }] },
        reviewer: "ana",
        idempotencyKey: key(),
        unexpandedApproveOverride: true,
      },
    });
    expect(res.status).toBe(202);
    expect(res.body.decision).toMatchObject({
      reviewer: "ana",
      interruptId: item.interruptId,
      unexpandedApproveOverride: true,
    });
    await api(`/threads/${threadId}/runs/${res.body.runId}/join`);
    const after = await pendingOf(threadId);
    expect(after.pending).toEqual([]);
    expect(after.thread.status).toBe("idle");
    expect(after.decisions).toHaveLength(1);
    expect(after.decisions[0].unexpandedApproveOverride).toBe(true);
    expect(after.decisions[0].proposed[0].args).toEqual({ path: "a1.txt" });
    const decided = after.history.find((h: any) => h.decisions.length > 0);
    expect(decided.pausedAt).toBe(item.checkpointId);
    expect(after.messages.at(-1).content).toBe("Done: removed a1.txt");
  });

  it("answers a decision made on a pause that moved on with 409 and what is pending now", async () => {
    const threadId = await newThread("ops", {
      messages: [{ type: "human", content: "remove s.txt" }],
    });
    const [item] = (await pendingOf(threadId)).pending;
    const first = await api(`/inbox/threads/${threadId}/decisions`, {
      method: "POST",
      body: {
        checkpointId: item.checkpointId,
        interruptId: item.interruptId,
        answer: { decisions: [{ type: "reject", message: "no" }] },
        idempotencyKey: key(),
      },
    });
    await api(`/threads/${threadId}/runs/${first.body.runId}/join`);
    const late = await api(`/inbox/threads/${threadId}/decisions`, {
      method: "POST",
      body: {
        checkpointId: item.checkpointId,
        interruptId: item.interruptId,
        answer: { decisions: [{ type: "approve" }] },
        idempotencyKey: key(),
      },
    });
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe("STALE_DECISION");
    expect(late.body.pending).toEqual([]);
    expect(late.body.checkpointId).not.toBe(item.checkpointId);
    expect(removed).not.toContain("s.txt");
  });

  it("answers the same idempotency key twice with the first decision, running once", async () => {
    const threadId = await newThread("ops", {
      messages: [{ type: "human", content: "remove twice.txt" }],
    });
    const [item] = (await pendingOf(threadId)).pending;
    const body = {
      checkpointId: item.checkpointId,
      interruptId: item.interruptId,
      answer: { decisions: [{ type: "approve" }] },
      idempotencyKey: key(),
    };
    const [a, b] = await Promise.all([
      api(`/inbox/threads/${threadId}/decisions`, { method: "POST", body }),
      api(`/inbox/threads/${threadId}/decisions`, { method: "POST", body }),
    ]);
    expect([a.status, b.status]).toEqual([202, 202]);
    expect(b.body.runId).toBe(a.body.runId);
    await api(`/threads/${threadId}/runs/${a.body.runId}/join`);
    const again = await api(`/inbox/threads/${threadId}/decisions`, { method: "POST", body });
    expect(again.body.runId).toBe(a.body.runId);
    expect(removed.filter((p) => p === "twice.txt")).toHaveLength(1);
    expect((await pendingOf(threadId)).decisions).toHaveLength(1);
  });

  it("refuses an edit whose args fail the tool's schema with fields, leaving the thread unchanged", async () => {
    const threadId = await newThread("ops", {
      messages: [{ type: "human", content: "remove e.txt" }],
    });
    const before = await pendingOf(threadId);
    const [item] = before.pending;
    const res = await api(`/inbox/threads/${threadId}/decisions`, {
      method: "POST",
      body: {
        checkpointId: item.checkpointId,
        interruptId: item.interruptId,
        answer: {
          decisions: [
            { type: "edit", editedAction: { name: "remove_file", args: { path: "../x" } } },
          ],
        },
        idempotencyKey: key(),
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.fields[0].path).toBe("answer.decisions.0.editedAction.args.path");
    const notAllowed = await api(`/inbox/threads/${threadId}/decisions`, {
      method: "POST",
      body: {
        checkpointId: item.checkpointId,
        interruptId: item.interruptId,
        answer: { decisions: [{ type: "respond", message: "hi" }] },
        idempotencyKey: key(),
      },
    });
    expect(notAllowed.status).toBe(400);
    expect(notAllowed.body.error.fields[0].path).toBe("answer.decisions.0.type");
    expect(await pendingOf(threadId)).toEqual(before);
  });

  it("checks an edit against the tool's own schema when the review config has no argsSchema", async () => {
    const threadId = await newThread("ops", {
      messages: [{ type: "human", content: "fetch notes.txt" }],
    });
    const before = await pendingOf(threadId);
    const [item] = before.pending;
    const res = await api(`/inbox/threads/${threadId}/decisions`, {
      method: "POST",
      body: {
        checkpointId: item.checkpointId,
        interruptId: item.interruptId,
        answer: { decisions: [{ type: "edit", editedAction: { name: "fetch_file", args: {} } }] },
        idempotencyKey: key(),
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.fields[0].path).toBe("answer.decisions.0.editedAction.args.path");
    expect(await pendingOf(threadId)).toEqual(before);
  });

  it("keeps a permanent review link with the diff of an edit and what the tool returned", async () => {
    const threadId = await newThread("ops", {
      messages: [{ type: "human", content: "remove draft.txt" }],
    });
    const [item] = (await pendingOf(threadId)).pending;
    const res = await api(`/inbox/threads/${threadId}/decisions`, {
      method: "POST",
      body: {
        checkpointId: item.checkpointId,
        interruptId: item.interruptId,
        answer: {
          decisions: [
            { type: "edit", editedAction: { name: "remove_file", args: { path: "draft.bak" } } },
          ],
        },
        reviewer: "bo",
        idempotencyKey: key(),
      },
    });
    await api(`/threads/${threadId}/runs/${res.body.runId}/join`);
    const link = await api(`/inbox/reviews/${item.interruptId}`);
    expect(link.status).toBe(200);
    expect(link.body.threadId).toBe(threadId);
    expect(link.body.decision.reviewer).toBe("bo");
    expect(link.body.decision.waitedMs).toBeGreaterThanOrEqual(0);
    expect(link.body.diff).toEqual([
      { path: "actions.0.args.path", proposed: "draft.txt", edited: "draft.bak" },
    ]);
    expect(link.body.toolResults).toEqual([
      {
        toolCallId: item.value.actionRequests[0].id,
        name: "remove_file",
        content: "removed draft.bak",
      },
    ]);
    expect((await api("/inbox/reviews/nope")).status).toBe(404);
  });

  it("answers a plain interrupt with JSON and continues a breakpoint with null", async () => {
    const q = await newThread("question", { question: "Name?" });
    const [qi] = (await pendingOf(q)).pending;
    const qa = await api(`/inbox/threads/${q}/decisions`, {
      method: "POST",
      body: {
        checkpointId: qi.checkpointId,
        interruptId: qi.interruptId,
        answer: "Zoe",
        idempotencyKey: key(),
      },
    });
    await api(`/threads/${q}/runs/${qa.body.runId}/join`);
    expect((await pendingOf(q)).values).toEqual({ question: "Name?", answer: "Zoe" });

    const s = await newThread("stepper", { n: 4 });
    const [si] = (await pendingOf(s)).pending;
    const sa = await api(`/inbox/threads/${s}/decisions`, {
      method: "POST",
      body: {
        checkpointId: si.checkpointId,
        interruptId: si.interruptId,
        answer: null,
        idempotencyKey: key(),
      },
    });
    await api(`/threads/${s}/runs/${sa.body.runId}/join`);
    expect((await pendingOf(s)).values).toEqual({ n: 5, published: true });
  });
});

describe("several pauses on one thread", () => {
  it("are answered one at a time, each by its id, on the checkpoint shown", async () => {
    const threadId = await newThread("pair", {});
    const page = await pendingOf(threadId);
    expect(page.pending.map((i: any) => i.value).sort()).toEqual(["first?", "second?"]);
    const [a, b] = page.pending;
    const decide = (item: any, answer: string, checkpointId = item.checkpointId) =>
      api(`/inbox/threads/${threadId}/decisions`, {
        method: "POST",
        body: { checkpointId, interruptId: item.interruptId, answer, idempotencyKey: key() },
      });
    const one = await decide(a, "A");
    await api(`/threads/${threadId}/runs/${one.body.runId}/join`);
    // The other pause is still there, on the same checkpoint: a pause adds none (as in
    // LangGraph), so the checkpoint shown before the first answer still names it.
    const after = await pendingOf(threadId);
    expect(after.pending.map((i: any) => [i.interruptId, i.checkpointId])).toEqual([
      [b.interruptId, b.checkpointId],
    ]);
    const two = await decide(b, "B");
    expect(two.status).toBe(202);
    await api(`/threads/${threadId}/runs/${two.body.runId}/join`);
    const done = await pendingOf(threadId);
    expect(done.pending).toEqual([]);
    expect(done.values).toEqual({
      [a.value === "first?" ? "first" : "second"]: "A",
      [b.value === "first?" ? "first" : "second"]: "B",
    });
    expect(done.decisions.map((d: any) => d.answer)).toEqual(["A", "B"]);
  });
});

describe("the inbox change feed", () => {
  it("sends an inbox event when a thread pauses", async () => {
    const controller = new AbortController();
    const res = await fetch(`${running.url}/inbox/events`, { signal: controller.signal });
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    const threadId = await newThread("question", { question: "Live?" });
    let text = "";
    while (!text.includes(`"reason":"paused"`)) text += (await reader.read()).value ?? "";
    expect(text).toContain(`event: inbox\ndata: {"threadId":"${threadId}","reason":"paused"}`);
    controller.abort();
  });
});
