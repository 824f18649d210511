import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  AgentConfigError,
  createAgent,
  defineAgent,
  HITL,
  humanInTheLoop,
  InvalidResumeError,
  type ReviewPolicy,
} from "../../src/agent/index.js";
import { MemoryCheckpointer } from "../../src/checkpoint/index.js";
import { FakeChatModel, message, tool } from "../../src/models/index.js";
import { thread, workspace } from "./fixtures/workspace.js";

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

/** A thread paused on a review of remove_file(a.txt) and notify_email (approve/reject only). */
async function paused() {
  const ws = await workspace({ "a.txt": "a" });
  cleanups.push(ws.cleanup);
  const model = new FakeChatModel({
    responses: [
      {
        toolCalls: [
          { name: "remove_file", args: { path: "a.txt" } },
          { name: "notify_email", args: { to: "ops@example.com", subject: "deleted" } },
        ],
      },
      "Done.",
    ],
  });
  const agent = createAgent({
    model,
    tools: Object.values(ws.tools),
    interruptOn: {
      remove_file: true,
      notify_email: { allowedDecisions: ["approve", "reject"] },
    },
    checkpointer: new MemoryCheckpointer(),
  });
  const config = thread("errors");
  const r = await agent.invoke({ messages: [message.user("Delete a.txt, tell ops")] }, { config });
  expect(r.status).toBe("interrupted");
  return { ws, agent, config, model };
}

describe("a resume that does not fit the review", () => {
  const bad: Array<[string, unknown, RegExp]> = [
    [
      "decisions missing",
      { approve: true },
      /resumed with \{ decisions: \[\.\.\.\] \}.*got \{"approve":true\}/,
    ],
    ["a bare scalar", "yes", /resumed with \{ decisions/],
    [
      "too few decisions",
      { decisions: [{ type: "approve" }] },
      /2 actions .* but 1 decision was given/,
    ],
    [
      "too many decisions",
      { decisions: [{ type: "approve" }, { type: "approve" }, { type: "approve" }] },
      /but 3 decisions were given/,
    ],
    [
      "a type the tool does not allow",
      { decisions: [{ type: "approve" }, { type: "respond", message: "sent" }] },
      /Decision 2 of 2 \(tool call call_2, "notify_email"\): "respond" is not allowed for this tool; allowed: approve, reject/,
    ],
    [
      "an unknown type",
      { decisions: [{ type: "maybe" }, { type: "approve" }] },
      /Decision 1 of 2 .*unknown decision type "maybe"/,
    ],
    [
      "a decision that is not an object",
      { decisions: ["approve", { type: "approve" }] },
      /Decision 1 of 2 .*got "approve"/,
    ],
    [
      "an edit without editedAction",
      { decisions: [{ type: "edit" }, { type: "approve" }] },
      /Decision 1 of 2 .*edit needs editedAction/,
    ],
    [
      "edited args that break the tool's schema",
      {
        decisions: [
          { type: "edit", editedAction: { name: "remove_file", args: { path: 42 } } },
          { type: "approve" },
        ],
      },
      /Decision 1 of 2 .*editedAction.args do not fit tool "remove_file": path: Invalid input: expected string, received number/,
    ],
    [
      "an edit to a tool the agent does not have",
      {
        decisions: [
          { type: "edit", editedAction: { name: "format_disk", args: {} } },
          { type: "approve" },
        ],
      },
      /Decision 1 of 2 .*"format_disk", which this agent does not have/,
    ],
    [
      "respond without a message",
      { decisions: [{ type: "respond" }, { type: "approve" }] },
      /Decision 1 of 2 .*respond needs message/,
    ],
  ];

  for (const [what, value, why] of bad) {
    it(`${what}: InvalidResumeError, thread paused and unchanged, then a correct resume works`, async () => {
      const { ws, agent, config } = await paused();
      const before = await agent.getState(config);
      const history = await collect(agent.getStateHistory(config));

      const error = await agent.resume(value, { config }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidResumeError);
      expect((error as Error).message).toMatch(why);
      expect((error as Error).message).toMatch(/still paused and unchanged/);

      expect(await agent.getState(config)).toEqual(before);
      expect(await collect(agent.getStateHistory(config))).toEqual(history);
      expect(ws.exists("a.txt")).toBe(true);
      expect(ws.ran).toEqual([]);

      const done = await agent.resumeReview([HITL.decision("approve"), HITL.decision("reject")], {
        config,
      });
      expect(done.status).toBe("done");
      expect(ws.exists("a.txt")).toBe(false);
      expect(ws.ran).toEqual(["remove_file:a.txt"]);
    });
  }

  it("validates edited args against the policy's argsSchema too", async () => {
    const ws = await workspace({ "a.txt": "a" });
    cleanups.push(ws.cleanup);
    const agent = createAgent({
      model: new FakeChatModel({
        responses: [{ toolCalls: [{ name: "remove_file", args: { path: "a.txt" } }] }, "ok"],
      }),
      tools: [ws.tools.removeFile],
      interruptOn: {
        remove_file: {
          allowedDecisions: ["approve", "edit"],
          argsSchema: z.object({ path: z.string().endsWith(".txt") }),
        },
      },
      checkpointer: new MemoryCheckpointer(),
    });
    const config = thread("errors");
    await agent.invoke({ messages: [message.user("rm")] }, { config });
    const edit = (path: string) =>
      agent.resumeReview(
        [HITL.decision("edit", { editedAction: { name: "remove_file", args: { path } } })],
        {
          config,
        },
      );
    await expect(edit("a.md")).rejects.toThrow(/path: Invalid string: must end with ".txt"/);
    expect((await edit("a.txt")).status).toBe("done");
    expect(ws.exists("a.txt")).toBe(false);
  });
});

describe("configuration errors are thrown when the agent is made", () => {
  const model = () => new FakeChatModel({ responses: [] });
  const noop = tool({
    name: "send_email",
    description: "Send",
    schema: z.object({ to: z.string() }),
    run: () => "sent",
  });

  it("a policy map without allowedDecisions", () => {
    const make = () =>
      createAgent({
        model: model(),
        tools: [noop],
        interruptOn: { send_email: { description: "Check it" } as unknown as ReviewPolicy },
      });
    expect(make).toThrow(AgentConfigError);
    expect(make).toThrow(/interruptOn.send_email has no allowedDecisions/);
    expect(() => humanInTheLoop({ interruptOn: { send_email: { allowedDecisions: [] } } })).toThrow(
      /has no allowedDecisions/,
    );
  });

  it("an unknown decision type, both when and predicate, a non-function predicate, a bad value", () => {
    expect(() =>
      humanInTheLoop({
        interruptOn: { send_email: { allowedDecisions: ["approve", "ignore" as never] } },
      }),
    ).toThrow(/allowedDecisions has "ignore"/);
    expect(() =>
      humanInTheLoop({
        interruptOn: {
          send_email: { allowedDecisions: ["approve"], when: () => true, predicate: () => true },
        },
      }),
    ).toThrow(/both when and predicate/);
    expect(() =>
      humanInTheLoop({
        interruptOn: { send_email: { allowedDecisions: ["approve"], when: true as never } },
      }),
    ).toThrow(/when must be a function/);
    expect(() => humanInTheLoop({ interruptOn: { send_email: "yes" as never } })).toThrow(
      /use true \(all decisions\), false \(no review\)/,
    );
    expect(() =>
      humanInTheLoop({ interruptOn: { send_email: true }, interruptMode: "some" as never }),
    ).toThrow(/interruptMode is "some"/);
  });

  it("a review policy for a tool the agent does not have (a typo would silently skip review)", () => {
    expect(() =>
      createAgent({ model: model(), tools: [noop], interruptOn: { sendEmail: true } }),
    ).toThrow(
      /asks to review tool "sendEmail", but the agent has no such tool \(it has: send_email\)/,
    );
    // false needs no tool: it asks for nothing.
    expect(() =>
      createAgent({ model: model(), tools: [noop], interruptOn: { other: false } }),
    ).not.toThrow();
  });

  it("duplicate tools and middleware names", () => {
    expect(() => createAgent({ model: model(), tools: [noop, noop] })).toThrow(
      /two tools named "send_email"/,
    );
    expect(() =>
      createAgent({
        model: model(),
        tools: [noop],
        middleware: [humanInTheLoop({ interruptOn: { send_email: true } })],
        interruptOn: { send_email: true },
      }),
    ).toThrow(/two middleware named "humanInTheLoop" \(interruptOn adds one\)/);
  });

  it("defineAgent checks its definition straight away", () => {
    expect(() =>
      defineAgent({
        model: model(),
        tools: [noop],
        interruptOn: { send_email: {} as ReviewPolicy },
      }),
    ).toThrow(AgentConfigError);
  });

  it("a missing model", () => {
    expect(() => createAgent({ model: undefined as never })).toThrow(/needs a chat model/);
  });
});
