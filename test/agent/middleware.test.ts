import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createAgent, defineMiddleware, HITL, type Middleware } from "../../src/agent/index.js";
import { MemoryCheckpointer } from "../../src/checkpoint/index.js";
import { AgentConfigError } from "../../src/errors/index.js";
import { FakeChatModel, message, tool } from "../../src/models/index.js";
import { thread } from "./fixtures/workspace.js";

const echo = tool({
  name: "echo",
  description: "Echo the text back.",
  schema: z.object({ text: z.string() }),
  run: ({ text }) => text,
});

function recorder(log: string[], name: string): Middleware {
  return defineMiddleware({
    name,
    beforeAgent: () => void log.push(`${name}.beforeAgent`),
    beforeModel: () => void log.push(`${name}.beforeModel`),
    afterModel: () => void log.push(`${name}.afterModel`),
    afterAgent: () => void log.push(`${name}.afterAgent`),
    wrapModelCall: async (request, handler) => {
      log.push(`${name}.wrapModelCall>`);
      const reply = await handler(request);
      log.push(`${name}.wrapModelCall<`);
      return reply;
    },
    wrapToolCall: async (request, handler) => {
      log.push(`${name}.wrapToolCall>`);
      const result = await handler(request);
      log.push(`${name}.wrapToolCall<`);
      return result;
    },
  });
}

describe("middleware order", () => {
  it("before-hooks in list order, after-hooks reversed, wrap hooks as an onion", async () => {
    const log: string[] = [];
    const model = new FakeChatModel({
      responses: [
        () => {
          log.push("model");
          return { toolCalls: [{ name: "echo", args: { text: "hi" } }] };
        },
        () => {
          log.push("model");
          return "done";
        },
      ],
    });
    const spy = tool({
      ...echo,
      run: ({ text }) => {
        log.push("tool");
        return text;
      },
    });
    const agent = createAgent({
      model,
      tools: [spy],
      middleware: [recorder(log, "a"), recorder(log, "b"), recorder(log, "c")],
    });
    const r = await agent.invoke({ messages: [message.user("say hi")] });
    expect(r.status).toBe("done");
    const turn = (...middle: string[]) => [
      "a.beforeModel",
      "b.beforeModel",
      "c.beforeModel",
      "a.wrapModelCall>",
      "b.wrapModelCall>",
      "c.wrapModelCall>",
      "model",
      "c.wrapModelCall<",
      "b.wrapModelCall<",
      "a.wrapModelCall<",
      "c.afterModel",
      "b.afterModel",
      "a.afterModel",
      ...middle,
    ];
    expect(log).toEqual([
      "a.beforeAgent",
      "b.beforeAgent",
      "c.beforeAgent",
      ...turn(
        "a.wrapToolCall>",
        "b.wrapToolCall>",
        "c.wrapToolCall>",
        "tool",
        "c.wrapToolCall<",
        "b.wrapToolCall<",
        "a.wrapToolCall<",
      ),
      ...turn(),
      "c.afterAgent",
      "b.afterAgent",
      "a.afterAgent",
    ]);
  });

  it("each node-style hook is a graph node named <middleware>/<hook>", () => {
    const agent = createAgent({
      model: new FakeChatModel({ responses: [] }),
      tools: [echo],
      middleware: [recorder([], "audit")],
      interruptOn: { echo: true },
    });
    expect(agent.nodes.sort()).toEqual(
      [
        "audit/afterAgent",
        "audit/afterModel",
        "audit/beforeAgent",
        "audit/beforeModel",
        "humanInTheLoop/afterModel",
        "model",
        "tools",
      ].sort(),
    );
    expect(agent.middleware.map((m) => m.name)).toEqual(["audit", "humanInTheLoop"]);
  });

  it("interruptOn's review is the last middleware, so it runs first after the model", async () => {
    const log: string[] = [];
    const agent = createAgent({
      model: new FakeChatModel({
        responses: [{ toolCalls: [{ name: "echo", args: { text: "x" } }] }, "ok"],
      }),
      tools: [echo],
      middleware: [recorder(log, "audit")],
      interruptOn: { echo: true },
      checkpointer: new MemoryCheckpointer(),
    });
    const config = thread("mw");
    const r = await agent.invoke({ messages: [message.user("go")] }, { config });
    expect(r.status === "interrupted" && r.interrupt.node).toBe("humanInTheLoop/afterModel");
    expect(log.at(-1)).toBe("audit.wrapModelCall<");
    await agent.resumeReview([HITL.decision("approve")], { config });
    expect(log.indexOf("audit.afterModel")).toBeGreaterThan(log.indexOf("audit.wrapModelCall<"));
  });

  it("hooks update the state; beforeAgent runs once per invocation", async () => {
    let agentRuns = 0;
    const notes = defineMiddleware({
      name: "notes",
      beforeAgent: () => {
        agentRuns++;
      },
      beforeModel: (state) => ({ modelCalls: ((state.modelCalls as number) ?? 0) + 1 }),
      afterAgent: (state) => ({
        messages: [message.user(`(${state.messages.length} messages so far)`)],
      }),
    });
    const agent = createAgent({
      model: new FakeChatModel({
        responses: [{ toolCalls: [{ name: "echo", args: { text: "x" } }] }, "one", "two"],
      }),
      tools: [echo],
      middleware: [notes],
      checkpointer: new MemoryCheckpointer(),
    });
    const config = thread("mw");
    const first = await agent.invoke({ messages: [message.user("go")] }, { config });
    expect(first.state.modelCalls).toBe(2);
    expect(first.state.messages.at(-1)).toEqual(message.user("(4 messages so far)"));
    expect(agentRuns).toBe(1);
    const second = await agent.invoke({ messages: [message.user("again")] }, { config });
    expect(agentRuns).toBe(2);
    expect(second.state.modelCalls).toBe(3);
  });

  it("wrapModelCall may change the request; wrapToolCall may change the result", async () => {
    const model = new FakeChatModel({
      responses: [{ toolCalls: [{ name: "echo", args: { text: "x" } }] }, "ok"],
    });
    const agent = createAgent({
      model,
      tools: [echo],
      systemPrompt: "Be brief.",
      middleware: [
        defineMiddleware({
          name: "french",
          wrapModelCall: (request, handler) =>
            handler({ ...request, systemPrompt: `${request.systemPrompt} Answer in French.` }),
        }),
        defineMiddleware({
          name: "shout",
          wrapToolCall: async (request, handler) => {
            const result = await handler(request);
            return { ...result, content: result.content.toUpperCase() };
          },
        }),
      ],
    });
    const r = await agent.invoke({ messages: [message.user("go")] });
    expect(model.calls[0]?.messages[0]).toEqual(message.system("Be brief. Answer in French."));
    expect(r.state.messages[2]).toMatchObject({ role: "tool", content: "X" });
    // The system prompt is sent, never stored.
    expect(r.state.messages.some((m) => m.role === "system")).toBe(false);
  });

  it("middleware tools are added to the agent's tools", async () => {
    const clock = tool({
      name: "now",
      description: "Time",
      schema: z.object({}),
      run: () => "noon",
    });
    const model = new FakeChatModel({
      responses: [{ toolCalls: [{ name: "now", args: {} }] }, "It is noon."],
    });
    const agent = createAgent({
      model,
      tools: [echo],
      middleware: [defineMiddleware({ name: "time", tools: [clock] })],
    });
    const r = await agent.invoke({ messages: [message.user("time?")] });
    expect(model.calls[0]?.toolNames).toEqual(["echo", "now"]);
    expect(r.state.messages[2]).toMatchObject({ role: "tool", content: "noon" });
    expect(agent.tools.map((t) => t.name)).toEqual(["echo", "now"]);
  });

  it("a hook may pause the run with runtime.interrupt", async () => {
    const gate = defineMiddleware({
      name: "gate",
      beforeAgent: (_state, runtime) => {
        const ok = runtime.interrupt<boolean>({ question: "Start?" });
        return ok ? undefined : { messages: [message.user("(cancelled)")] };
      },
    });
    const agent = createAgent({
      model: new FakeChatModel({ responses: ["hello"] }),
      middleware: [gate],
      checkpointer: new MemoryCheckpointer(),
    });
    const config = thread("mw");
    const r = await agent.invoke({ messages: [message.user("hi")] }, { config });
    expect(r.status === "interrupted" && r.interrupt).toMatchObject({
      node: "gate/beforeAgent",
      value: { question: "Start?" },
    });
    expect(r.status === "interrupted" && HITL.isReview(r.interrupt)).toBe(false);
    expect((await agent.resume(true, { config })).state.messages.at(-1)).toMatchObject({
      content: "hello",
    });
  });

  it("checks middleware definitions", () => {
    expect(() => defineMiddleware({ name: "has.dot" })).toThrow(AgentConfigError);
    expect(() => defineMiddleware({ name: "x", beforeModel: "nope" as never })).toThrow(
      /beforeModel must be a function/,
    );
    expect(() =>
      createAgent({
        model: new FakeChatModel({ responses: [] }),
        middleware: [defineMiddleware({ name: "x" }), defineMiddleware({ name: "x" })],
      }),
    ).toThrow(/two middleware named "x"/);
  });
});
