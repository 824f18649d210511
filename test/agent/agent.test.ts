import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  addMessages,
  createAgent,
  defineAgent,
  HITL,
  NotAReviewError,
} from "../../src/agent/index.js";
import { MemoryCheckpointer, PGliteCheckpointer } from "../../src/checkpoint/index.js";
import { Command, CompiledGraph, type StreamEvent } from "../../src/index.js";
import { FakeChatModel, message, tool } from "../../src/models/index.js";
import { thread, workspace } from "./fixtures/workspace.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

const echo = tool({
  name: "echo",
  description: "Echo the text back.",
  schema: z.object({ text: z.string() }),
  run: ({ text }) => text,
});

describe("createAgent", () => {
  it("loops model -> tools -> model until the model stops calling tools", async () => {
    const model = new FakeChatModel({
      responses: [
        { toolCalls: [{ name: "echo", args: { text: "one" } }] },
        {
          toolCalls: [
            { name: "echo", args: { text: "two" } },
            { name: "nope", args: {} },
          ],
        },
        "Finished.",
      ],
    });
    const agent = createAgent({ model, tools: [echo], systemPrompt: "You echo." });
    const r = await agent.invoke({ messages: [message.user("echo twice")] });
    expect(r.status).toBe("done");
    expect(r.state.messages.map((m) => [m.role, m.content])).toEqual([
      ["user", "echo twice"],
      ["assistant", ""],
      ["tool", "one"],
      ["assistant", ""],
      ["tool", "two"],
      ["tool", 'Error: there is no tool named "nope". Available tools: echo.'],
      ["assistant", "Finished."],
    ]);
    expect(model.calls.map((c) => c.messages[0])).toEqual([
      message.system("You echo."),
      message.system("You echo."),
      message.system("You echo."),
    ]);
    expect(model.calls[0]?.toolNames).toEqual(["echo"]);
  });

  it("gives every reply an id unique in the thread", async () => {
    const agent = createAgent({
      name: "Helper",
      model: new FakeChatModel({
        responses: [
          { toolCalls: [{ name: "echo", args: { text: "x" } }] },
          { content: "done", id: "resp_9" },
        ],
      }),
      tools: [echo],
    });
    const r = await agent.invoke({ messages: [message.user("go")] });
    expect(r.state.messages.filter((m) => m.role === "assistant").map((m) => m.id)).toEqual([
      "Helper:1:model:0",
      "resp_9",
    ]);
  });

  it("is a compiled graph: a machine, getState, history", async () => {
    const checkpointer = new MemoryCheckpointer();
    const agent = createAgent({
      name: "Files",
      model: new FakeChatModel({ responses: ["hi"] }),
      tools: [echo],
      interruptOn: { echo: true },
      checkpointer,
    });
    expect(agent).toBeInstanceOf(CompiledGraph);
    expect(agent.machine.id).toBe("Files");
    expect(agent.name).toBe("Files");
    const config = thread("graph");
    await agent.invoke({ messages: [message.user("hello")] }, { config });
    const snapshot = await agent.getState(config);
    expect(snapshot.values.messages.at(-1)).toMatchObject({ role: "assistant", content: "hi" });
    expect(snapshot.next).toEqual([]);
  });

  it("shows a paused review in getState", async () => {
    const agent = createAgent({
      model: new FakeChatModel({
        responses: [{ toolCalls: [{ name: "echo", args: { text: "x" } }] }],
      }),
      tools: [echo],
      interruptOn: { echo: true },
      checkpointer: new MemoryCheckpointer(),
    });
    const config = thread("graph");
    const r = await agent.invoke({ messages: [message.user("go")] }, { config });
    const snapshot = await agent.getState(config);
    expect(snapshot.next).toEqual(["humanInTheLoop/afterModel"]);
    expect(r.status === "interrupted" && snapshot.interrupts).toEqual([
      r.status === "interrupted" && r.interrupt,
    ]);
  });
});

describe("agent breakpoints", () => {
  it('interruptBefore: ["model"] pauses before every model call', async () => {
    const model = new FakeChatModel({
      responses: [{ toolCalls: [{ name: "echo", args: { text: "x" } }] }, "done"],
    });
    const agent = createAgent({
      model,
      tools: [echo],
      checkpointer: new MemoryCheckpointer(),
      interruptBefore: ["model"],
    });
    const config = thread("bp");
    const first = await agent.invoke({ messages: [message.user("go")] }, { config });
    expect(first.status === "interrupted" && first.interrupt).toMatchObject({
      node: "model",
      timing: "before",
    });
    expect(model.calls).toHaveLength(0);
    expect(first.status === "interrupted" && HITL.isReview(first.interrupt)).toBe(false);
    const second = await agent.resume(undefined, { config });
    expect(second.status === "interrupted" && second.interrupt).toMatchObject({
      node: "model",
      timing: "before",
    });
    expect(model.calls).toHaveLength(1);
    expect(second.state.messages.at(-1)).toMatchObject({ role: "tool", content: "x" });
    const done = await agent.resume(undefined, { config });
    expect(done.status).toBe("done");
  });

  it('interruptAfter: ["tools"] pauses after the tools ran', async () => {
    const agent = createAgent({
      model: new FakeChatModel({
        responses: [{ toolCalls: [{ name: "echo", args: { text: "x" } }] }, "done"],
      }),
      tools: [echo],
      checkpointer: new MemoryCheckpointer(),
      interruptAfter: ["tools"],
    });
    const config = thread("bp");
    const r = await agent.invoke({ messages: [message.user("go")] }, { config });
    expect(r.status === "interrupted" && r.interrupt).toMatchObject({
      node: "tools",
      timing: "after",
    });
    expect(r.state.messages.at(-1)).toMatchObject({ role: "tool", content: "x" });
    expect((await agent.invoke(null, { config })).status).toBe("done");
  });
});

describe("streaming", () => {
  it("yields updates, model text deltas and the review interrupt, then resumes", async () => {
    const agent = createAgent({
      model: new FakeChatModel({
        responses: [
          { content: "Let me echo.", toolCalls: [{ name: "echo", args: { text: "x" } }] },
          "All done now.",
        ],
      }),
      tools: [echo],
      interruptOn: { echo: true },
      checkpointer: new MemoryCheckpointer(),
    });
    const config = thread("stream");
    const events: StreamEvent[] = [];
    for await (const ev of agent.stream({ messages: [message.user("go")] }, { config }))
      events.push(ev);
    expect(
      events.filter((e) => e.type === "messages").map((e) => e.type === "messages" && e.delta),
    ).toEqual(["Let ", "me ", "echo."]);
    expect(events.find((e) => e.type === "updates" && e.node === "model")).toBeDefined();
    const last = events.at(-1);
    expect(last?.type).toBe("interrupt");
    expect(
      last?.type === "interrupt" && HITL.fromInterrupt(last.interrupts[0]!).actions[0]?.name,
    ).toBe("echo");

    const after: StreamEvent[] = [];
    // Approve writes nothing in review, so the first update is the tools node's.
    const stream = agent.stream(new Command({ resume: { decisions: [{ type: "approve" }] } }), {
      config,
    });
    for await (const ev of stream) after.push(ev);
    expect(
      after.filter((e) => e.type === "updates").map((e) => e.type === "updates" && e.node),
    ).toEqual(["tools", "model"]);
    expect(after.at(-1)).toMatchObject({ type: "done" });
  });

  it("calls invoke, not stream, on the model when nobody streams", async () => {
    const model = new FakeChatModel({ responses: ["hi"] });
    let streamed = 0;
    const original = model.stream.bind(model);
    model.stream = (...args) => {
      streamed++;
      return original(...args);
    };
    await createAgent({ model }).invoke({ messages: [message.user("hello")] });
    expect(streamed).toBe(0);
  });
});

describe("defineAgent", () => {
  it("runs on the checkpointer each call names, compiled once per checkpointer", async () => {
    const ws = await workspace({ "temp.txt": "x" });
    cleanups.push(ws.cleanup);
    const Reviewed = defineAgent({
      name: "Reviewed",
      model: new FakeChatModel({
        responses: [
          { toolCalls: [{ name: "remove_file", args: { path: "temp.txt" } }] },
          "Removed.",
        ],
      }),
      tools: [ws.tools.removeFile, ws.tools.readText],
      interruptOn: { remove_file: true, read_file: false },
    });
    const checkpointer = new MemoryCheckpointer();
    const config = thread("defined");
    expect(Reviewed.name).toBe("Reviewed");
    expect(Reviewed.compile({ checkpointer })).toBe(Reviewed.compile({ checkpointer }));
    expect(Reviewed.compile({ checkpointer })).not.toBe(
      Reviewed.compile({ checkpointer: new MemoryCheckpointer() }),
    );

    const r = await Reviewed.invoke(
      { messages: [message.user("Delete temp.txt")] },
      { checkpointer, config },
    );
    expect(r.status).toBe("interrupted");
    expect((await Reviewed.getState(config, { checkpointer })).next).toEqual([
      "humanInTheLoop/afterModel",
    ]);
    const done = await Reviewed.resumeReview([HITL.decision("approve")], { checkpointer, config });
    expect(done.status).toBe("done");
    expect(ws.exists("temp.txt")).toBe(false);
  });

  it("resume and breakpoints work through the definition too", async () => {
    const Debug = defineAgent({
      name: "Debug",
      model: new FakeChatModel({ responses: ["hi"] }),
      interruptBefore: ["model"],
    });
    const checkpointer = new MemoryCheckpointer();
    const config = thread("defined");
    const r = await Debug.invoke({ messages: [message.user("hello")] }, { checkpointer, config });
    expect(r.status === "interrupted" && r.interrupt.timing).toBe("before");
    expect((await Debug.resume(undefined, { checkpointer, config })).status).toBe("done");
  });
});

describe("HITL helpers", () => {
  it("fromInterrupt pairs each action with its review config; other interrupts are refused", () => {
    const review = HITL.fromInterrupt({
      id: "i1",
      value: {
        actionRequests: [{ id: "c1", name: "remove_file", args: { path: "a" }, description: "d" }],
        reviewConfigs: [{ actionName: "remove_file", allowedDecisions: ["approve", "reject"] }],
      },
    });
    expect(review.interruptId).toBe("i1");
    expect(review.actions).toEqual([
      {
        id: "c1",
        name: "remove_file",
        args: { path: "a" },
        description: "d",
        allowedDecisions: ["approve", "reject"],
      },
    ]);
    expect(() => HITL.fromInterrupt({ id: "bp", value: null })).toThrow(NotAReviewError);
    expect(() => HITL.fromInterrupt({ id: "q", value: { question: "Approve?" } })).toThrow(
      /Interrupt "q" is not a tool review: its value has no actionRequests and reviewConfigs arrays/,
    );
    expect(HITL.isReview({ id: "q", value: "Approve?" })).toBe(false);
  });

  it("decision builds each decision type", () => {
    expect(HITL.decision("approve")).toEqual({ type: "approve" });
    expect(HITL.decision("reject")).toEqual({ type: "reject" });
    expect(HITL.decision("reject", { message: "no" })).toEqual({ type: "reject", message: "no" });
    expect(HITL.decision("respond", { message: "Blue." })).toEqual({
      type: "respond",
      message: "Blue.",
    });
    expect(HITL.decision("edit", { editedAction: { name: "t", args: { a: 1 } } })).toEqual({
      type: "edit",
      editedAction: { name: "t", args: { a: 1 } },
    });
    expect(() => HITL.decision("respond", {} as never)).toThrow(/needs the answer/);
  });
});

describe("messages reducer", () => {
  it("appends, and replaces a message with the same id in place", () => {
    const a = message.assistant("draft", { id: "m1" });
    const u = message.user("hi");
    expect(addMessages([u], [a])).toEqual([u, a]);
    expect(addMessages([u, a, u], [{ ...a, content: "final" }])).toEqual([
      u,
      { ...a, content: "final" },
      u,
    ]);
    expect(addMessages(undefined, u)).toEqual([u]);
  });
});

describe("persistence", () => {
  it("a review paused on PGlite resumes from a fresh agent on the same store", async () => {
    const ws = await workspace({ "temp.txt": "x" });
    cleanups.push(ws.cleanup);
    const checkpointer = new PGliteCheckpointer("memory://");
    cleanups.push(() => checkpointer.close());
    const build = (responses: ConstructorParameters<typeof FakeChatModel>[0]["responses"]) =>
      createAgent({
        model: new FakeChatModel({ responses }),
        tools: [ws.tools.removeFile],
        interruptOn: { remove_file: true },
        checkpointer,
      });
    const config = thread("pglite");
    const r = await build([
      { toolCalls: [{ name: "remove_file", args: { path: "temp.txt" } }] },
    ]).invoke({ messages: [message.user("Delete temp.txt")] }, { config });
    expect(r.status).toBe("interrupted");

    const later = build(["Deleted."]);
    const state = await later.getState(config);
    const review = HITL.fromInterrupt(state.interrupts[0]!);
    expect(review.actions[0]).toMatchObject({ name: "remove_file", args: { path: "temp.txt" } });
    await expect(later.resumeReview([], { config })).rejects.toThrow(/1 action/);
    expect(await later.getState(config)).toEqual(state);
    const done = await later.resumeReview([HITL.decision("approve")], { config });
    expect(done.status).toBe("done");
    expect(ws.exists("temp.txt")).toBe(false);
    expect(done.state.messages.at(-1)).toMatchObject({ content: "Deleted." });
  });
});
