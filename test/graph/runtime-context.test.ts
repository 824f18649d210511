import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createAgent, defineMiddleware, subagent } from "../../src/agent/index.js";
import { Graph, START } from "../../src/index.js";
import { FakeChatModel, message, tool } from "../../src/models/index.js";

describe("runtime.context is {} when no context was passed", () => {
  it("in nodes and routers", async () => {
    const seen: unknown[] = [];
    const graph = new Graph()
      .addNode("a", (_s, runtime) => void seen.push(runtime.context))
      .addNode("b", () => ({}))
      .addEdge(START, "a")
      .addConditionalEdges("a", (_s, runtime) => {
        seen.push(runtime.context);
        return "b";
      })
      .compile();
    await graph.invoke({});
    await graph.invoke({}, { context: undefined });
    expect(seen).toEqual([{}, {}, {}, {}]);
  });

  it("in a subgraph, and the caller's context when one was passed", async () => {
    const seen: unknown[] = [];
    const child = new Graph({ name: "Child" })
      .addNode("read", (_s, runtime) => void seen.push(runtime.context))
      .addEdge(START, "read")
      .compile();
    const graph = new Graph({ name: "Parent" })
      .addNode("child", child)
      .addEdge(START, "child")
      .compile();
    await graph.invoke({});
    await graph.invoke({}, { context: { userId: "u1" } });
    expect(seen).toEqual([{}, { userId: "u1" }]);
  });

  it("in an agent's middleware, its tools and its subagents' tools", async () => {
    const seen: Array<[string, unknown]> = [];
    const probe = tool({
      name: "probe",
      description: "Looks at the context.",
      schema: z.object({}),
      run: (_args, runtime) => {
        seen.push(["tool", runtime.context]);
        return "ok";
      },
    });
    const childModel = new FakeChatModel({
      responses: [{ toolCalls: [{ name: "probe", args: {} }] }, "Child done."],
    });
    const agent = createAgent({
      model: new FakeChatModel({
        responses: [
          { toolCalls: [{ name: "probe", args: {} }] },
          {
            toolCalls: [
              { name: "task", args: { subagent: "helper", description: "Probe the context." } },
            ],
          },
          "Done.",
        ],
      }),
      tools: [probe],
      middleware: [
        defineMiddleware({
          name: "reader",
          // LangChain's middleware reads runtime.context without a guard.
          beforeModel: (_state, runtime) => void seen.push(["middleware", runtime.context]),
        }),
      ],
      subagents: [
        subagent({
          name: "helper",
          description: "Probes.",
          systemPrompt: "Probe.",
          tools: [probe],
          model: childModel,
        }),
      ],
    });
    const r = await agent.invoke({ messages: [message.user("go")] });
    expect(r.status).toBe("done");
    // Three model turns of the parent; its own tool call, then the subagent's.
    expect(seen).toEqual([
      ["middleware", {}],
      ["tool", {}],
      ["middleware", {}],
      ["tool", {}],
      ["middleware", {}],
    ]);
  });
});
