import { afterEach, describe, expect, it } from "vitest";
import { AgentConfigError, createAgent, HITL, subagent } from "../../src/agent/index.js";
import { MemoryCheckpointer, PGliteCheckpointer } from "../../src/checkpoint/index.js";
import { FakeChatModel, message } from "../../src/models/index.js";
import { thread, workspace } from "./fixtures/workspace.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

describe("subagents", () => {
  it("a review inside a subagent pauses the parent with the same result shape and resumes with the parent's config", async () => {
    const ws = await workspace({ "old.log": "x", "notes.txt": "keep" });
    cleanups.push(ws.cleanup);
    const parentModel = new FakeChatModel({
      responses: [
        {
          toolCalls: [
            {
              name: "task",
              args: { subagent: "housekeeper", description: "Delete old.log and read notes.txt" },
            },
          ],
        },
        "The file manager deleted old.log.",
      ],
    });
    const childModel = new FakeChatModel({
      responses: [
        {
          toolCalls: [
            { name: "remove_file", args: { path: "old.log" } },
            { name: "read_file", args: { path: "notes.txt" } },
          ],
        },
        "Deleted old.log; notes.txt says keep.",
      ],
    });
    const agent = createAgent({
      model: parentModel,
      tools: [ws.tools.removeFile, ws.tools.readText],
      interruptOn: { remove_file: true, read_file: false },
      subagents: [
        subagent({
          name: "housekeeper",
          description: "Tidies up the workspace: deletes and reads files.",
          systemPrompt: "Review filesystem work carefully.",
          tools: [ws.tools.removeFile, ws.tools.readText],
          model: childModel,
          interruptOn: { remove_file: true, read_file: true },
        }),
      ],
      checkpointer: new MemoryCheckpointer(),
    });
    expect(agent.tools.map((t) => t.name)).toEqual(["remove_file", "read_file", "task"]);
    const config = thread("sub");
    const r = await agent.invoke({ messages: [message.user("Clean up the logs")] }, { config });
    expect(r.status).toBe("interrupted");
    if (r.status !== "interrupted") return;
    expect(r.interrupt.ns).toMatch(/^tools:/);
    // The subagent's own interruptOn reviews read_file too.
    expect(HITL.fromInterrupt(r.interrupt).actions.map((a) => [a.name, a.args])).toEqual([
      ["remove_file", { path: "old.log" }],
      ["read_file", { path: "notes.txt" }],
    ]);
    expect(childModel.calls[0]?.messages[0]).toEqual(
      message.system("Review filesystem work carefully."),
    );
    expect(ws.ran).toEqual([]);

    // A bad resume is refused inside the subagent too, leaving the thread as it was.
    const before = await agent.getState(config);
    await expect(agent.resumeReview([HITL.decision("approve")], { config })).rejects.toThrow(
      /2 actions .* but 1 decision was given/,
    );
    expect(await agent.getState(config)).toEqual(before);

    const done = await agent.resumeReview([HITL.decision("approve"), HITL.decision("approve")], {
      config,
    });
    expect(done.status).toBe("done");
    expect(ws.exists("old.log")).toBe(false);
    expect(ws.ran).toEqual(["remove_file:old.log", "read_file:notes.txt"]);
    // Only the subagent's final answer reaches the parent's conversation.
    expect(done.state.messages.map((m) => [m.role, m.content])).toEqual([
      ["user", "Clean up the logs"],
      ["assistant", ""],
      ["tool", "Deleted old.log; notes.txt says keep."],
      ["assistant", "The file manager deleted old.log."],
    ]);
    expect(parentModel.calls).toHaveLength(2);
    expect(childModel.calls).toHaveLength(2);
  });

  it("inherits the parent's interruptOn and model when it has none of its own", async () => {
    const ws = await workspace({ "a.txt": "a", "b.txt": "b" });
    cleanups.push(ws.cleanup);
    // One scripted model serves parent and subagent, in call order.
    const model = new FakeChatModel({
      responses: [
        {
          toolCalls: [
            {
              name: "task",
              args: { subagent: "cleaner", description: "Remove a.txt, read b.txt" },
            },
          ],
        },
        {
          toolCalls: [
            { name: "remove_file", args: { path: "a.txt" } },
            { name: "read_file", args: { path: "b.txt" } },
          ],
        },
        "Removal rejected; b.txt says b.",
        "Nothing was removed.",
      ],
    });
    const checkpointer = new PGliteCheckpointer("memory://");
    cleanups.push(() => checkpointer.close());
    const agent = createAgent({
      model,
      tools: [ws.tools.removeFile, ws.tools.readText],
      interruptOn: { remove_file: true, read_file: false },
      subagents: [
        subagent({
          name: "cleaner",
          description: "Cleans files.",
          tools: [ws.tools.removeFile, ws.tools.readText],
        }),
      ],
      checkpointer,
    });
    const config = thread("sub");
    const r = await agent.invoke({ messages: [message.user("Tidy")] }, { config });
    expect(
      r.status === "interrupted" && HITL.fromInterrupt(r.interrupt).actions.map((a) => a.name),
    ).toEqual(["remove_file"]);
    const done = await agent.resume({ decisions: [{ type: "reject" }] }, { config });
    expect(done.status).toBe("done");
    expect(ws.exists("a.txt")).toBe(true);
    expect(ws.ran).toEqual(["read_file:b.txt"]);
    expect(done.state.messages.at(-1)).toMatchObject({ content: "Nothing was removed." });
  });

  it("runs a prebuilt agent as it was configured", async () => {
    const helper = createAgent({ name: "helper", model: new FakeChatModel({ responses: ["42"] }) });
    const agent = createAgent({
      model: new FakeChatModel({
        responses: [
          { toolCalls: [{ name: "task", args: { subagent: "helper", description: "Answer" } }] },
          "It is 42.",
        ],
      }),
      subagents: [subagent({ name: "helper", description: "Answers questions.", agent: helper })],
    });
    const r = await agent.invoke({ messages: [message.user("?")] });
    expect(r.state.messages[2]).toMatchObject({ role: "tool", content: "42", status: "success" });
  });

  it("checks subagent declarations", () => {
    expect(() => subagent({ name: "bad name", description: "x", tools: [] })).toThrow(
      AgentConfigError,
    );
    expect(() => subagent({ name: "x", description: "", tools: [] })).toThrow(
      /needs a description/,
    );
    const model = new FakeChatModel({ responses: [] });
    expect(() =>
      createAgent({
        model,
        subagents: [
          { name: "x", description: "one", tools: [] },
          { name: "x", description: "two", tools: [] },
        ],
      }),
    ).toThrow(/Two subagents are named "x"/);
  });
});
