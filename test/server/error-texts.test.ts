import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clauses, sentences } from "../../src/errors/sentences.js";
import { type RunningServer, startServer } from "./fixtures/server.js";

// Refusals are read by reviewers in the inbox and by developers in their logs; a message
// glued from fragments that already end in a full stop reads "got 1.. The thread".

describe("sentences and clauses", () => {
  it("end every sentence in exactly one full stop, whatever the fragments end in", () => {
    expect("got 1.. The thread").toMatch(doubled);
    expect("got 1.... The thread").toMatch(doubled);
    expect("{ decisions: [...] }.").not.toMatch(doubled);
    expect(sentences("got 1.", "The thread is unchanged")).toBe("got 1. The thread is unchanged.");
    expect(sentences("Is it?", "", "Yes!")).toBe("Is it? Yes!");
    expect(clauses(["a: too short.", "b: required", ""])).toBe("a: too short; b: required.");
    expect(clauses(["cut off at [1, 2…"])).toBe("cut off at [1, 2…");
  });
});

let running: RunningServer;
beforeAll(async () => {
  running = await startServer();
});
afterAll(() => running.stop());

async function post(path: string, body: unknown) {
  const res = await fetch(`${running.url}${path}`, {
    method: "POST",
    headers: { accept: "application/json", "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

/** A thread of the test agent paused on a review of removing `paths`. */
async function pausedOnRemoval(...paths: string[]) {
  const { body } = await post("/inbox/threads", {
    graphId: "ops",
    input: { messages: [{ type: "human", content: `remove ${paths.join(" and ")}` }] },
  });
  await fetch(`${running.url}/threads/${body.threadId}/runs/${body.runId}/join`);
  const thread = (await (
    await fetch(`${running.url}/inbox/threads/${body.threadId}`)
  ).json()) as any;
  return { threadId: body.threadId as string, item: thread.pending[0] };
}

// Two full stops in a row, or four; three are code (`{ decisions: [...] }`).
const doubled = /(^|[^.])\.\.([^.]|$)|\.{4}/;

const expectOneFullStop = (messages: string[]) => {
  expect(messages.length).toBeGreaterThan(0);
  for (const message of messages) {
    expect(message).not.toMatch(doubled);
    expect(message).toMatch(/[^.]\.$/);
  }
};

describe("the refusals of the decision and review paths", () => {
  it("end their sentences in one full stop in the inbox's decision endpoint", async () => {
    const { threadId, item } = await pausedOnRemoval("one", "two");
    const answers: unknown[] = [
      { decisions: [{ type: "approve" }] },
      { decisions: [{ type: "approve" }, { type: "approve" }, { type: "approve" }] },
      "yes",
      { decisions: [{ type: "approve" }, { kind: "approve" }] },
      { decisions: [{ type: "approve" }, { type: "respond", message: "x" }] },
      { decisions: [{ type: "reject", message: 7 }, { type: "approve" }] },
      { decisions: [{ type: "edit" }, { type: "approve" }] },
      {
        decisions: [
          { type: "edit", editedAction: { name: "remove_file", args: { path: "a/b" } } },
          { type: "edit", editedAction: { name: "remove_file", args: {} } },
        ],
      },
    ];
    const messages: string[] = [];
    for (const [i, answer] of answers.entries()) {
      const res = await post(`/inbox/threads/${threadId}/decisions`, {
        checkpointId: item.checkpointId,
        interruptId: item.interruptId,
        answer,
        idempotencyKey: `texts-${i}`,
      });
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.error.message).toMatch(/The thread is unchanged\.$/);
      messages.push(res.body.error.message);
      // Field messages are fragments (zod's among them), joined into the message above.
      for (const field of res.body.error.fields) expect(field.message).not.toMatch(doubled);
    }
    const stale = await post(`/inbox/threads/${threadId}/decisions`, {
      checkpointId: "not-the-checkpoint",
      interruptId: item.interruptId,
      answer: { decisions: [{ type: "approve" }, { type: "approve" }] },
      idempotencyKey: "texts-stale",
    });
    expect(stale.status).toBe(409);
    messages.push(stale.body.error.message);
    expect(messages[0]).toContain("got 1. The thread is unchanged.");
    expectOneFullStop(messages);
  });

  it("end their sentences in one full stop when the SDK resumes a review", async () => {
    const { threadId } = await pausedOnRemoval("three", "four");
    const client = new Client({
      apiUrl: running.url,
      callerOptions: { maxRetries: 0 },
      defaultHeaders: { accept: "application/json" },
    });
    const refused = await client.runs
      .wait(threadId, "ops", { command: { resume: { decisions: [{ type: "approve" }] } } })
      .then(
        () => undefined,
        (error: Error) => error.message,
      );
    expect(refused).toContain("got 1. The thread is unchanged.");
    expectOneFullStop([JSON.parse(refused!.slice(refused!.indexOf("{"))).error.message]);
  });

  it("end their sentences in one full stop when the agent itself refuses a resume", async () => {
    const { threadId } = await pausedOnRemoval("five", "six");
    const agent = running.server.context.hosted.get("ops");
    const config = { configurable: { thread_id: threadId } };
    const resumes: unknown[] = [
      { decisions: [{ type: "approve" }] },
      { decisions: "x".repeat(300) },
      { decisions: [{ type: "approve" }, { type: "respond" }] },
      { decisions: [{ type: "approve" }, { type: "nope" }] },
      { decisions: [{ type: "reject", message: ["x".repeat(300)] }, { type: "approve" }] },
      {
        decisions: [
          { type: "approve" },
          { type: "edit", editedAction: { name: "remove_file", args: { path: 1 } } },
        ],
      },
      {
        decisions: [
          { type: "approve" },
          { type: "edit", editedAction: { name: "no_such_tool", args: {} } },
        ],
      },
    ];
    const messages: string[] = [];
    for (const resume of resumes) {
      const error = await agent.resume(resume, { config }).then(
        () => undefined,
        (e: Error) => e,
      );
      expect(error?.name).toBe("InvalidResumeError");
      messages.push(error!.message);
    }
    expect(messages.join("\n")).toContain("corrected decisions.");
    expectOneFullStop(messages);
  });
});
