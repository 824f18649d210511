import { afterEach, describe, expect, it } from "vitest";
import { createAgent, HITL } from "../../src/agent/index.js";
import { MemoryCheckpointer } from "../../src/checkpoint/index.js";
import {
  FakeChatModel,
  type FakeResponse,
  message,
  type ToolMessage,
} from "../../src/models/index.js";
import { thread, workspace } from "./fixtures/workspace.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

async function setup(responses: FakeResponse[], files: Record<string, string> = {}) {
  const ws = await workspace(files);
  cleanups.push(ws.cleanup);
  const model = new FakeChatModel({ responses });
  const agent = createAgent({
    model,
    tools: Object.values(ws.tools),
    interruptOn: {
      remove_file: true,
      read_file: false,
      ask_user: { allowedDecisions: ["respond", "reject"] },
      notify_email: { allowedDecisions: ["approve", "edit", "reject"] },
    },
    checkpointer: new MemoryCheckpointer(),
  });
  return { ws, model, agent, config: thread("decisions") };
}

const toolMessages = (messages: readonly { role: string }[]) =>
  messages.filter((m): m is ToolMessage => m.role === "tool");

describe("review decisions on real file tools", () => {
  it("pauses before the tool runs, and an approved remove_file deletes the file", async () => {
    const { ws, agent, config, model } = await setup(
      [{ toolCalls: [{ name: "remove_file", args: { path: "temp.txt" } }] }, "Deleted temp.txt."],
      { "temp.txt": "scratch" },
    );
    const r = await agent.invoke({ messages: [message.user("Delete temp.txt")] }, { config });
    expect(r.status).toBe("interrupted");
    if (r.status !== "interrupted") return;
    expect(r.interrupt.value).toEqual({
      actionRequests: [
        {
          id: "call_1",
          name: "remove_file",
          args: { path: "temp.txt" },
          description:
            'Tool execution requires approval\n\nTool: remove_file\nArgs: {\n  "path": "temp.txt"\n}',
        },
      ],
      reviewConfigs: [
        { actionName: "remove_file", allowedDecisions: ["approve", "edit", "reject", "respond"] },
      ],
    });
    expect(ws.exists("temp.txt")).toBe(true);
    expect(ws.ran).toEqual([]);

    const done = await agent.resume({ decisions: [{ type: "approve" }] }, { config });
    expect(done.status).toBe("done");
    expect(ws.exists("temp.txt")).toBe(false);
    expect(toolMessages(done.state.messages)).toEqual([
      message.tool({ toolCallId: "call_1", name: "remove_file", content: "removed temp.txt" }),
    ]);
    expect(done.state.messages.at(-1)).toMatchObject({
      role: "assistant",
      content: "Deleted temp.txt.",
    });
    // The model's second call saw the tool result.
    expect(model.calls[1]?.messages.at(-1)).toMatchObject({ role: "tool", toolCallId: "call_1" });
  });

  it("a rejected remove_file leaves the file and tells the model not to retry", async () => {
    const { ws, agent, config, model } = await setup(
      [{ toolCalls: [{ name: "remove_file", args: { path: "temp.txt" } }] }, "I left it alone."],
      { "temp.txt": "scratch" },
    );
    await agent.invoke({ messages: [message.user("Delete temp.txt")] }, { config });
    const done = await agent.resumeReview([HITL.decision("reject")], { config });
    expect(done.status).toBe("done");
    expect(ws.exists("temp.txt")).toBe(true);
    expect(ws.ran).toEqual([]);
    const [answer] = toolMessages(done.state.messages);
    expect(answer).toMatchObject({ toolCallId: "call_1", name: "remove_file", status: "error" });
    expect(answer!.content).toMatch(/rejected/);
    expect(answer!.content).toMatch(/Do not call it again/);
    expect(model.calls[1]?.messages.at(-1)).toEqual(answer);
  });

  it("a rejection's message is what the model reads", async () => {
    const { agent, config } = await setup(
      [{ toolCalls: [{ name: "remove_file", args: { path: "temp.txt" } }] }, "OK."],
      { "temp.txt": "scratch" },
    );
    await agent.invoke({ messages: [message.user("Delete temp.txt")] }, { config });
    const done = await agent.resumeReview(
      [HITL.decision("reject", { message: "Keep it; archive it first." })],
      { config },
    );
    expect(toolMessages(done.state.messages)[0]).toMatchObject({
      content: "Keep it; archive it first.",
      status: "error",
    });
  });

  it("an edited remove_file deletes the edited path, and the reply shows the edited call", async () => {
    const { ws, agent, config, model } = await setup(
      [{ toolCalls: [{ name: "remove_file", args: { path: "important.txt" } }] }, "Done."],
      { "important.txt": "keep me", "temp.txt": "scratch" },
    );
    await agent.invoke({ messages: [message.user("Clean up")] }, { config });
    const done = await agent.resumeReview(
      [
        HITL.decision("edit", {
          editedAction: { name: "remove_file", args: { path: "temp.txt" } },
        }),
      ],
      { config },
    );
    expect(done.status).toBe("done");
    expect(ws.exists("temp.txt")).toBe(false);
    expect(ws.exists("important.txt")).toBe(true);
    expect(ws.ran).toEqual(["remove_file:temp.txt"]);
    const reply = done.state.messages[1];
    expect(reply).toMatchObject({
      role: "assistant",
      toolCalls: [{ id: "call_1", name: "remove_file", args: { path: "temp.txt" } }],
    });
    // Replaced in place, not appended: one assistant message before the tool result.
    expect(done.state.messages.map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "tool",
      "assistant",
    ]);
    expect(model.calls[1]?.messages[1]).toEqual(reply);
  });

  it("a responded ask_user returns the human's text as a successful result, without running the tool", async () => {
    const { ws, agent, config, model } = await setup([
      { toolCalls: [{ name: "ask_user", args: { question: "Favourite colour?" } }] },
      "Blue it is.",
    ]);
    const r = await agent.invoke({ messages: [message.user("Pick a theme")] }, { config });
    expect(r.status === "interrupted" && r.interrupt.value).toMatchObject({
      reviewConfigs: [{ actionName: "ask_user", allowedDecisions: ["respond", "reject"] }],
    });
    const done = await agent.resumeReview([HITL.decision("respond", { message: "Blue." })], {
      config,
    });
    expect(ws.ran).toEqual([]);
    expect(toolMessages(done.state.messages)).toEqual([
      message.tool({ toolCallId: "call_1", name: "ask_user", content: "Blue." }),
    ]);
    expect(model.calls[1]?.messages.at(-1)).toMatchObject({ content: "Blue.", status: "success" });
  });

  it("a mixed batch runs approved, edited and unreviewed calls, answers the others, in the model's order", async () => {
    const { ws, agent, config } = await setup(
      [
        {
          toolCalls: [
            { name: "remove_file", args: { path: "a.txt" } }, // approve
            { name: "read_file", args: { path: "notes.txt" } }, // no review
            { name: "remove_file", args: { path: "b.txt" } }, // reject
            { name: "notify_email", args: { to: "ops@example.com", subject: "hi" } }, // edit
            { name: "ask_user", args: { question: "Why?" } }, // respond
            { name: "remove_file", args: { path: "c.txt" } }, // approve
          ],
        },
        "All handled.",
      ],
      { "a.txt": "a", "b.txt": "b", "c.txt": "c", "notes.txt": "hello" },
    );
    const r = await agent.invoke({ messages: [message.user("Tidy up")] }, { config });
    expect(
      r.status === "interrupted" && HITL.fromInterrupt(r.interrupt).actions.map((a) => a.id),
    ).toEqual(["call_1", "call_3", "call_4", "call_5", "call_6"]);
    const done = await agent.resumeReview(
      [
        HITL.decision("approve"),
        HITL.decision("reject", { message: "b.txt stays." }),
        HITL.decision("edit", {
          editedAction: { name: "notify_email", args: { to: "admin@example.com", subject: "hi" } },
        }),
        HITL.decision("respond", { message: "Because." }),
        HITL.decision("approve"),
      ],
      { config },
    );
    expect(done.status).toBe("done");
    expect([ws.exists("a.txt"), ws.exists("b.txt"), ws.exists("c.txt")]).toEqual([
      false,
      true,
      false,
    ]);
    // Tools ran in the model's order, rejected and responded ones not at all.
    expect(ws.ran).toEqual([
      "remove_file:a.txt",
      "read_file:notes.txt",
      "notify_email:admin@example.com",
      "remove_file:c.txt",
    ]);
    const results = toolMessages(done.state.messages);
    // Every call is answered once, in the order of the model's calls (LangChain.js drops
    // the approved calls when one is rejected, and puts answers out of order).
    expect(results.map((m) => m.toolCallId)).toEqual([
      "call_1",
      "call_2",
      "call_3",
      "call_4",
      "call_5",
      "call_6",
    ]);
    expect(results.map((m) => [m.status, m.content])).toEqual([
      ["success", "removed a.txt"],
      ["success", "hello"],
      ["error", "b.txt stays."],
      ["success", 'sent "hi" to admin@example.com'],
      ["success", "Because."],
      ["success", "removed c.txt"],
    ]);
    expect(done.state.toolAnswers).toEqual({});
  });

  it("approved calls still run when every other call in the batch is rejected", async () => {
    const { ws, agent, config } = await setup(
      [
        {
          toolCalls: [
            { name: "remove_file", args: { path: "a.txt" } },
            { name: "remove_file", args: { path: "b.txt" } },
          ],
        },
        "ok",
      ],
      { "a.txt": "a", "b.txt": "b" },
    );
    await agent.invoke({ messages: [message.user("Delete both")] }, { config });
    const done = await agent.resumeReview([HITL.decision("reject"), HITL.decision("approve")], {
      config,
    });
    expect([ws.exists("a.txt"), ws.exists("b.txt")]).toEqual([true, false]);
    expect(toolMessages(done.state.messages).map((m) => [m.toolCallId, m.status])).toEqual([
      ["call_1", "error"],
      ["call_2", "success"],
    ]);
  });

  it("calls that need no review run without a pause", async () => {
    const { agent, config, ws } = await setup(
      [{ toolCalls: [{ name: "read_file", args: { path: "notes.txt" } }] }, "It says hello."],
      { "notes.txt": "hello" },
    );
    const r = await agent.invoke({ messages: [message.user("Read notes")] }, { config });
    expect(r.status).toBe("done");
    expect(ws.ran).toEqual(["read_file:notes.txt"]);
  });

  it("reviews again on the next model turn", async () => {
    const { agent, config, ws } = await setup(
      [
        { toolCalls: [{ name: "remove_file", args: { path: "a.txt" } }] },
        { toolCalls: [{ name: "remove_file", args: { path: "b.txt" } }] },
        "Both gone.",
      ],
      { "a.txt": "a", "b.txt": "b" },
    );
    await agent.invoke({ messages: [message.user("Delete a then b")] }, { config });
    const second = await agent.resumeReview([HITL.decision("approve")], { config });
    expect(second.status).toBe("interrupted");
    expect(ws.exists("a.txt")).toBe(false);
    expect(
      second.status === "interrupted" && HITL.fromInterrupt(second.interrupt).actions[0],
    ).toMatchObject({
      id: "call_2",
      args: { path: "b.txt" },
    });
    const done = await agent.resumeReview([HITL.decision("approve")], { config });
    expect(done.status).toBe("done");
    expect(ws.exists("b.txt")).toBe(false);
  });
});
