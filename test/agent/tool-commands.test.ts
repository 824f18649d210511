import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  addMessages,
  createAgent,
  type MessagesState,
  messagesGraph,
  toolNode,
  toolsCondition,
} from "../../src/agent/index.js";
import { MemoryCheckpointer } from "../../src/checkpoint/index.js";
import { AgentConfigError } from "../../src/errors/index.js";
import { Command, END, START } from "../../src/index.js";
import {
  FakeChatModel,
  message,
  REMOVE_ALL_MESSAGES,
  removeMessage,
  runToolCall,
  tool,
} from "../../src/models/index.js";

const remember = tool({
  name: "remember",
  description: "Remember a fact.",
  schema: z.object({ fact: z.string() }),
  run: ({ fact }, { toolCall }) =>
    new Command({
      update: {
        facts: [fact],
        messages: [
          message.tool({ toolCallId: toolCall.id, name: "remember", content: `noted ${fact}` }),
        ],
      },
    }),
});

describe("tools that update state", () => {
  it("a tool's Command update goes through the reducers together with its tool message", async () => {
    const model = new FakeChatModel({
      responses: [
        {
          toolCalls: [
            { name: "remember", args: { fact: "a" } },
            { name: "remember", args: { fact: "b" } },
          ],
        },
        "Both noted.",
      ],
    });
    const agent = createAgent({ model, tools: [remember] });
    // A reducer on facts: both tools' writes must land, in the model's order.
    const graph = messagesGraph<{ facts: string[] }>({ name: "facts" })
      .addReducer("facts", (a: string[] = [], b: string[]) => [...a, ...b])
      .addNode("agent", agent)
      .addEdge(START, "agent")
      .compile();
    const r = await graph.invoke({ messages: [message.user("remember a and b")], facts: [] });
    expect(r.state.facts).toEqual(["a", "b"]);
    const tools = r.state.messages.filter((m) => m.role === "tool");
    expect(tools.map((m) => m.content)).toEqual(["noted a", "noted b"]);
    expect(r.state.messages.at(-1)).toMatchObject({ role: "assistant", content: "Both noted." });
  });

  it("a Command without a tool message for its call gets one that says what it updated", async () => {
    const setMood = tool({
      name: "set_mood",
      description: "Set the mood.",
      schema: z.object({ mood: z.string() }),
      run: ({ mood }) => new Command({ update: { mood } }),
    });
    const model = new FakeChatModel({
      responses: [{ toolCalls: [{ name: "set_mood", args: { mood: "calm" } }] }, "ok"],
    });
    const r = await createAgent({ model, tools: [setMood] }).invoke({
      messages: [message.user("relax")],
    });
    expect(r.state.mood).toBe("calm");
    expect(r.state.messages[2]).toMatchObject({ role: "tool", content: "Updated mood." });
  });

  it("wrapToolCall sees and may change the tool message of a tool that returned a Command", async () => {
    const model = new FakeChatModel({
      responses: [{ toolCalls: [{ name: "remember", args: { fact: "x" } }] }, "ok"],
    });
    const agent = createAgent({
      model,
      tools: [remember],
      middleware: [
        {
          name: "shout",
          wrapToolCall: async (request, handler) => {
            const result = await handler(request);
            return { ...result, content: result.content.toUpperCase() };
          },
        },
      ],
    });
    const r = await agent.invoke({ messages: [message.user("remember x")] });
    expect(r.state.facts).toEqual(["x"]);
    expect(r.state.messages[2]).toMatchObject({ role: "tool", content: "NOTED X" });
  });

  it("a tool's Command goto sends a hand-built graph to the node it names", async () => {
    const escalate = tool({
      name: "escalate",
      description: "Hand the conversation to a human.",
      schema: z.object({}),
      run: () => new Command({ update: { escalated: true }, goto: "human" }),
    });
    const model = new FakeChatModel({
      responses: [{ toolCalls: [{ name: "escalate", args: {} }] }],
    });
    const graph = messagesGraph<{ escalated?: boolean; handledBy?: string }>({ name: "desk" })
      .addNode("model", async (s) => ({ messages: [await model.invoke(s.messages)] }))
      .addNode("tools", toolNode([escalate]), { ends: ["human"] })
      .addNode("human", () => ({ handledBy: "human" }))
      .addEdge(START, "model")
      .addConditionalEdges("model", toolsCondition, ["tools", END])
      .compile();
    const r = await graph.invoke({ messages: [message.user("I want a person")] });
    expect(r.state).toMatchObject({ escalated: true, handledBy: "human" });
    expect(model.calls).toHaveLength(1);
  });

  it("runToolCall outside a graph answers a Command with an error message", async () => {
    const reply = await runToolCall(remember, { id: "c1", name: "remember", args: { fact: "z" } });
    expect(reply).toMatchObject({ status: "error", toolCallId: "c1" });
    expect(reply.content).toMatch(/only a graph's tools node can apply/);
  });
});

describe("a tool's goto inside a createAgent graph", () => {
  const goTo = (name: string, goto?: string | string[]) =>
    tool({
      name,
      description: `Go to ${String(goto)}.`,
      schema: z.object({}),
      run: () => (goto === undefined ? "stayed" : new Command({ update: { went: goto }, goto })),
    });
  const calling = (...names: string[]) => ({
    toolCalls: names.map((name) => ({ name, args: {} })),
  });

  it("goto END ends the run after the tools step instead of going back to the model", async () => {
    const model = new FakeChatModel({ responses: [calling("finish")] });
    const r = await createAgent({ model, tools: [goTo("finish", END)] }).invoke({
      messages: [message.user("stop here")],
    });
    expect(r.status).toBe("done");
    expect(model.calls).toHaveLength(1);
    expect(r.state.went).toBe(END);
    expect(r.state.messages.at(-1)).toMatchObject({ role: "tool", toolCallId: "call_1" });
  });

  it("a goto replaces the edge back to the model: going to the model skips beforeModel hooks", async () => {
    const model = new FakeChatModel({ responses: [calling("straight"), "done"] });
    let hookRuns = 0;
    const agent = createAgent({
      model,
      tools: [goTo("straight", "model")],
      middleware: [{ name: "count", beforeModel: () => void hookRuns++ }],
    });
    const r = await agent.invoke({ messages: [message.user("go")] });
    expect(r.state.messages.at(-1)).toMatchObject({ role: "assistant", content: "done" });
    expect(hookRuns).toBe(1);
    expect(model.calls).toHaveLength(2);
  });

  it("without a goto the tools node goes back through the beforeModel hooks as before", async () => {
    const model = new FakeChatModel({ responses: [calling("stay"), "done"] });
    let hookRuns = 0;
    const agent = createAgent({
      model,
      tools: [goTo("stay")],
      middleware: [{ name: "count", beforeModel: () => void hookRuns++ }],
    });
    await agent.invoke({ messages: [message.user("go")] });
    expect(hookRuns).toBe(2);
  });

  it("a tool that goes on wins over one that ends the run; calls without goto add nothing", async () => {
    const model = new FakeChatModel({ responses: [calling("finish", "stay", "again"), "done"] });
    const agent = createAgent({
      model,
      tools: [goTo("finish", END), goTo("stay"), goTo("again", "model")],
    });
    const r = await agent.invoke({ messages: [message.user("go")] });
    expect(model.calls).toHaveLength(2);
    expect(r.state.messages.at(-1)).toMatchObject({ role: "assistant", content: "done" });
  });

  it("several tools naming the same node run it once", async () => {
    const model = new FakeChatModel({ responses: [calling("a", "b"), "done"] });
    const agent = createAgent({ model, tools: [goTo("a", "model"), goTo("b", ["model", END])] });
    const r = await agent.invoke({ messages: [message.user("go")] });
    expect(model.calls).toHaveLength(2);
    expect(r.state.messages.filter((m) => m.role === "assistant")).toHaveLength(2);
  });

  it("a goto to a node the agent does not have is an AgentConfigError naming the tool, and the thread keeps its last checkpoint", async () => {
    const model = new FakeChatModel({ responses: [calling("jump")] });
    const checkpointer = new MemoryCheckpointer();
    const agent = createAgent({ model, tools: [goTo("jump", "elsewhere")], checkpointer });
    const config = { configurable: { thread_id: "bad-goto" } };
    const run = agent.invoke({ messages: [message.user("go")] }, { config });
    await expect(run).rejects.toThrow(AgentConfigError);
    await expect(run).rejects.toThrow(
      /Tool "jump" returned Command goto "elsewhere", but agent "agent" has no such node\. A tool of an agent can go to "model", "__end__"/,
    );
    const state = await agent.getState(config);
    expect(state.next).toEqual(["tools"]);
    expect(state.values.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
  });

  it("the agent's picture shows the tools node's possible ends", () => {
    const agent = createAgent({ model: new FakeChatModel({ responses: [] }), tools: [] });
    const text = agent.toMermaid();
    expect(text).toContain('  tools -.->|"goto"| model');
    expect(text).toContain('  tools -.->|"goto"| __end__');
  });
});

describe("the messages reducer", () => {
  const a = message.assistant("draft", { id: "a1" });
  const u = message.user("hi", { id: "u1" });

  it("removeMessage deletes the message with that id", () => {
    expect(addMessages([u, a], [removeMessage("u1")])).toEqual([a]);
  });

  it("a message whose id is already there replaces it in place", () => {
    expect(addMessages([a, u], [{ ...a, content: "final" }])).toEqual([
      { ...a, content: "final" },
      u,
    ]);
  });

  it("REMOVE_ALL_MESSAGES clears the conversation; messages after it in the write stay", () => {
    expect(
      addMessages([a, u], [removeMessage(REMOVE_ALL_MESSAGES), message.user("fresh")]),
    ).toEqual([message.user("fresh")]);
  });

  it("removing an id the conversation does not have is a typed error that names it", () => {
    expect(() => addMessages([a], [removeMessage("nope")])).toThrow(/no message with that id/);
  });

  it("a node of a messages graph can remove messages through its update", async () => {
    const graph = messagesGraph({ name: "trim" })
      .addNode("trim", (s: MessagesState) => ({
        messages: s.messages.slice(0, -1).map((m) => removeMessage(m.id!)),
      }))
      .addEdge(START, "trim")
      .compile();
    const r = await graph.invoke({ messages: [u, a, message.user("last", { id: "u2" })] });
    expect(r.state.messages).toEqual([message.user("last", { id: "u2" })]);
  });
});
