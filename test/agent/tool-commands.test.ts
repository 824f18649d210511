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

  it("in a createAgent graph a tool's goto is refused with what to do instead", async () => {
    const jump = tool({
      name: "jump",
      description: "Jump elsewhere.",
      schema: z.object({}),
      run: () => new Command({ goto: "elsewhere" }),
    });
    const model = new FakeChatModel({ responses: [{ toolCalls: [{ name: "jump", args: {} }] }] });
    await expect(
      createAgent({ model, tools: [jump] }).invoke({ messages: [message.user("go")] }),
    ).rejects.toThrow(/Node "tools" returned Command goto "elsewhere" but declares no ends/);
  });

  it("runToolCall outside a graph answers a Command with an error message", async () => {
    const reply = await runToolCall(remember, { id: "c1", name: "remember", args: { fact: "z" } });
    expect(reply).toMatchObject({ status: "error", toolCallId: "c1" });
    expect(reply.content).toMatch(/only a graph's tools node can apply/);
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
        // A removal is a write, not a message: node results are typed as the state's keys.
        messages: s.messages.slice(0, -1).map((m) => removeMessage(m.id!)) as never,
      }))
      .addEdge(START, "trim")
      .compile();
    const r = await graph.invoke({ messages: [u, a, message.user("last", { id: "u2" })] });
    expect(r.state.messages).toEqual([message.user("last", { id: "u2" })]);
  });
});
