import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  type AgentRuntime,
  type AgentState,
  createAgent,
  HITL,
  humanInTheLoop,
  type InterruptOnConfig,
} from "../../src/agent/index.js";
import { MemoryCheckpointer } from "../../src/checkpoint/index.js";
import {
  FakeChatModel,
  type FakeToolCall,
  message,
  type ToolCall,
} from "../../src/models/index.js";
import { thread, workspace } from "./fixtures/workspace.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

async function agentWith<C>(
  toolCalls: FakeToolCall[],
  review: {
    interruptOn: InterruptOnConfig<C>;
    interruptMode?: "all" | "first";
    descriptionPrefix?: string;
  },
  files: Record<string, string> = {},
) {
  const ws = await workspace(files);
  cleanups.push(ws.cleanup);
  const agent = createAgent<C>({
    model: new FakeChatModel({ responses: [{ toolCalls }, "Finished."] }),
    tools: Object.values(ws.tools),
    middleware: [humanInTheLoop<C>(review)],
    checkpointer: new MemoryCheckpointer(),
  });
  return { ws, agent, config: thread("policy") };
}

const reviewed = (r: { status: string; interrupt?: { id: string; value: unknown } }) =>
  r.status === "interrupted" ? HITL.fromInterrupt(r.interrupt!).actions.map((a) => a.id) : [];

describe("review policies", () => {
  it("`when` asks for review only when it returns true, whatever its arity", async () => {
    const seen: unknown[][] = [];
    const { agent, config, ws } = await agentWith<{ strict: boolean }>(
      [
        { name: "remove_file", args: { path: "keep.log" } },
        { name: "remove_file", args: { path: "a.txt" } },
        { name: "notify_email", args: { to: "a@example.com", subject: "x" } },
        { name: "read_file", args: { path: "a.txt" } },
      ],
      {
        interruptOn: {
          // (call)
          remove_file: {
            allowedDecisions: ["approve", "reject"],
            when: (call) => call.args.path !== "keep.log",
          },
          // (call, state, runtime)
          notify_email: {
            allowedDecisions: ["approve", "reject"],
            when: (call, state, runtime) => {
              seen.push([
                call.name,
                state.messages.length,
                runtime.context.strict,
                runtime.agentName,
              ]);
              return runtime.context.strict;
            },
          },
          // (call, state): truthy but not true means no review
          read_file: {
            allowedDecisions: ["approve"],
            when: (_call, state) => state.messages.length as never,
          },
        },
      },
      { "keep.log": "", "a.txt": "a" },
    );
    const r = await agent.invoke(
      { messages: [message.user("go")] },
      { config, context: { strict: true } },
    );
    expect(reviewed(r)).toEqual(["call_2", "call_3"]);
    expect(seen[0]).toEqual(["notify_email", 2, true, "agent"]);
    const done = await agent.resumeReview([HITL.decision("approve"), HITL.decision("approve")], {
      config,
      context: { strict: true },
    });
    expect(done.status).toBe("done");
    expect(ws.ran).toEqual([
      "remove_file:keep.log",
      "remove_file:a.txt",
      "notify_email:a@example.com",
      "read_file:a.txt",
    ]);
  });

  it("`predicate` is the same option, and may be async", async () => {
    const { agent, config } = await agentWith(
      [
        { name: "remove_file", args: { path: "a.txt" } },
        { name: "remove_file", args: { path: "b.txt" } },
      ],
      {
        interruptOn: {
          remove_file: {
            allowedDecisions: ["approve"],
            predicate: async (call: ToolCall) => call.args.path === "b.txt",
          },
        },
      },
      { "a.txt": "", "b.txt": "" },
    );
    expect(reviewed(await agent.invoke({ messages: [message.user("go")] }, { config }))).toEqual([
      "call_2",
    ]);
  });

  it("description: a string replaces the default; a function gets call, state and runtime (context)", async () => {
    const { agent, config } = await agentWith<{ userId: string }>(
      [
        { name: "remove_file", args: { path: "a.txt" } },
        { name: "notify_email", args: { to: "a@example.com", subject: "x" } },
      ],
      {
        interruptOn: {
          remove_file: {
            allowedDecisions: ["approve"],
            description: "Deleting a file cannot be undone.",
          },
          notify_email: {
            allowedDecisions: ["approve", "reject"],
            description: (call, _state: AgentState, runtime: AgentRuntime<{ userId: string }>) =>
              `Email requested by ${runtime.context.userId}: ${JSON.stringify(call.args)}`,
          },
        },
      },
      { "a.txt": "" },
    );
    const r = await agent.invoke(
      { messages: [message.user("go")] },
      { config, context: { userId: "u-7" } },
    );
    expect(
      r.status === "interrupted" &&
        HITL.fromInterrupt(r.interrupt).actions.map((a) => a.description),
    ).toEqual([
      "Deleting a file cannot be undone.",
      'Email requested by u-7: {"to":"a@example.com","subject":"x"}',
    ]);
    // The description function runs again on resume with the same context, so it matches.
    expect(
      (
        await agent.resumeReview([HITL.decision("approve"), HITL.decision("reject")], {
          config,
          context: { userId: "u-7" },
        })
      ).status,
    ).toBe("done");
  });

  it("descriptionPrefix starts the default description", async () => {
    const { agent, config } = await agentWith([{ name: "remove_file", args: { path: "a.txt" } }], {
      interruptOn: { remove_file: true },
      descriptionPrefix: "File change pending approval",
    });
    const r = await agent.invoke({ messages: [message.user("go")] }, { config });
    expect(
      r.status === "interrupted" && HITL.fromInterrupt(r.interrupt).actions[0]!.description,
    ).toBe('File change pending approval\n\nTool: remove_file\nArgs: {\n  "path": "a.txt"\n}');
  });

  it("argsSchema goes to the reviewer as JSON Schema (given as zod or as JSON Schema) and checks edits", async () => {
    const jsonSchema = {
      type: "object",
      properties: {
        to: { type: "string", pattern: "@example\\.com$" },
        subject: { type: "string" },
      },
      required: ["to", "subject"],
    };
    const { agent, config, ws } = await agentWith(
      [
        { name: "remove_file", args: { path: "a.txt" } },
        { name: "notify_email", args: { to: "a@example.com", subject: "x" } },
      ],
      {
        interruptOn: {
          remove_file: {
            allowedDecisions: ["approve", "edit"],
            argsSchema: z.object({ path: z.string() }),
          },
          notify_email: { allowedDecisions: ["approve", "edit"], argsSchema: jsonSchema },
        },
      },
      { "a.txt": "" },
    );
    const r = await agent.invoke({ messages: [message.user("go")] }, { config });
    const review = r.status === "interrupted" ? HITL.fromInterrupt(r.interrupt) : undefined;
    expect(review?.reviewConfigs).toEqual([
      {
        actionName: "remove_file",
        allowedDecisions: ["approve", "edit"],
        argsSchema: {
          type: "object",
          properties: { path: { type: "string" } },
          required: ["path"],
        },
      },
      { actionName: "notify_email", allowedDecisions: ["approve", "edit"], argsSchema: jsonSchema },
    ]);
    const editTo = (to: string) =>
      agent.resumeReview(
        [
          HITL.decision("approve"),
          HITL.decision("edit", {
            editedAction: { name: "notify_email", args: { to, subject: "y" } },
          }),
        ],
        { config },
      );
    await expect(editTo("boss@elsewhere.org")).rejects.toThrow(
      /Decision 2 of 2 .*editedAction.args do not fit tool "notify_email": to:/,
    );
    expect((await editTo("boss@example.com")).status).toBe("done");
    expect(ws.ran).toEqual(["remove_file:a.txt", "notify_email:boss@example.com"]);
  });
});

describe('interruptMode: "first"', () => {
  it("pauses for one call at a time, in order, and runs no tool of the turn before every review is decided", async () => {
    const { agent, config, ws } = await agentWith(
      [
        { name: "remove_file", args: { path: "a.txt" } },
        { name: "read_file", args: { path: "b.txt" } },
        { name: "remove_file", args: { path: "b.txt" } },
        { name: "notify_email", args: { to: "ops@example.com", subject: "cleaned" } },
      ],
      {
        interruptOn: {
          remove_file: true,
          notify_email: { allowedDecisions: ["approve", "reject"] },
        },
        interruptMode: "first",
      },
      { "a.txt": "a", "b.txt": "b" },
    );
    const first = await agent.invoke({ messages: [message.user("clean")] }, { config });
    expect(reviewed(first)).toEqual(["call_1"]);

    const second = await agent.resumeReview([HITL.decision("approve")], { config });
    expect(reviewed(second)).toEqual(["call_3"]);
    // call_1 was approved, but the turn's tools wait until every matching call is decided.
    expect(ws.ran).toEqual([]);
    expect(ws.exists("a.txt")).toBe(true);

    // A resume for the held-back call is checked like any other.
    await expect(
      agent.resumeReview([HITL.decision("approve"), HITL.decision("approve")], { config }),
    ).rejects.toThrow(/1 action \("remove_file"\) but 2 decisions were given/);

    const third = await agent.resumeReview([HITL.decision("reject")], { config });
    expect(reviewed(third)).toEqual(["call_4"]);
    expect(ws.ran).toEqual([]);

    const done = await agent.resumeReview([HITL.decision("approve")], { config });
    expect(done.status).toBe("done");
    expect(ws.ran).toEqual([
      "remove_file:a.txt",
      "read_file:b.txt",
      "notify_email:ops@example.com",
    ]);
    expect([ws.exists("a.txt"), ws.exists("b.txt")]).toEqual([false, true]);
    expect(
      done.state.messages.filter((m) => m.role === "tool").map((m) => [m.toolCallId, m.status]),
    ).toEqual([
      ["call_1", "success"],
      ["call_2", "success"],
      ["call_3", "error"],
      ["call_4", "success"],
    ]);
  });

  it('with "all" (the default) every matching call of the turn is in one pause', async () => {
    const { agent, config } = await agentWith(
      [
        { name: "remove_file", args: { path: "a.txt" } },
        { name: "remove_file", args: { path: "b.txt" } },
      ],
      { interruptOn: { remove_file: true } },
      { "a.txt": "a", "b.txt": "b" },
    );
    expect(reviewed(await agent.invoke({ messages: [message.user("clean")] }, { config }))).toEqual(
      ["call_1", "call_2"],
    );
  });
});
