import { describe, expect, it } from "vitest";
import {
  AgentConfigError,
  createAgent,
  HITL,
  humanInTheLoop,
  reviewRefusal,
} from "../../src/agent/index.js";
import { MemoryCheckpointer } from "../../src/checkpoint/index.js";
import { FakeChatModel, message } from "../../src/models/index.js";
import { thread, workspace } from "./fixtures/workspace.js";

const dba = { identity: "dana", permissions: ["dba"], verified: true };
const ops = { identity: "olga", groups: ["oncall"], permissions: ["ops:read"], verified: true };

describe("who may decide a review", () => {
  it("carries reviewers and approvals in the review request, per decision type", async () => {
    const ws = await workspace({ "a.txt": "x" });
    try {
      const agent = createAgent({
        model: new FakeChatModel({
          responses: [{ toolCalls: [{ name: "remove_file", args: { path: "a.txt" } }] }, "Done."],
        }),
        tools: Object.values(ws.tools),
        middleware: [
          humanInTheLoop({
            interruptOn: {
              remove_file: {
                allowedDecisions: ["approve", "edit", "reject"],
                reviewers: { approve: { permission: "dba" }, edit: ["dana", "oncall"] },
                approvals: 2,
              },
            },
          }),
        ],
        checkpointer: new MemoryCheckpointer(),
      });
      const r = await agent.invoke(
        { messages: [message.user("remove a.txt")] },
        { config: thread("rights") },
      );
      expect(r.status).toBe("interrupted");
      const review = HITL.fromInterrupt(
        (r as { interrupt: { id: string; value: unknown } }).interrupt,
      );
      expect(review.reviewConfigs[0]).toEqual({
        actionName: "remove_file",
        allowedDecisions: ["approve", "edit", "reject"],
        reviewers: { approve: { permission: "dba" }, edit: { anyOf: ["dana", "oncall"] } },
        approvals: 2,
      });
      expect(review.actions[0]!.approvals).toBe(2);
    } finally {
      await ws.cleanup();
    }
  });

  it("refuses a decision to people without the permission, the identity or the group", () => {
    const rules = { approve: { permission: "dba" }, edit: { anyOf: ["oncall", "ana"] } };
    expect(reviewRefusal(rules, "approve", dba)).toBeUndefined();
    expect(reviewRefusal(rules, "approve", ops)).toBe(
      'Only holders of the "dba" permission may approve this call; olga may not.',
    );
    expect(reviewRefusal(rules, "edit", ops)).toBeUndefined();
    expect(reviewRefusal(rules, "edit", { identity: "ana", verified: true })).toBeUndefined();
    expect(reviewRefusal(rules, "edit", dba)).toMatch(/Only "oncall", "ana" may edit/);
    // No rule for reject: anyone who can open the review may reject.
    expect(reviewRefusal(rules, "reject", { identity: "x", verified: false })).toBeUndefined();
    expect(reviewRefusal(undefined, "approve", ops)).toBeUndefined();
  });

  it("gives a typed name nobody verified no rights, even a listed one", () => {
    const refusal = reviewRefusal({ approve: { anyOf: ["ana"] } }, "approve", {
      identity: "ana",
      verified: false,
    });
    expect(refusal).toMatch(/nobody verified .*Sign in/);
  });

  it("refuses reviewers and approvals that cannot work, saying how to write them", () => {
    const policy = (extra: Record<string, unknown>) => () =>
      humanInTheLoop({
        interruptOn: { remove_file: { allowedDecisions: ["approve", "reject"], ...extra } },
      });
    expect(policy({ reviewers: { permission: "" } })).toThrow(AgentConfigError);
    expect(policy({ reviewers: [] })).toThrow(/at least one identity or group/);
    expect(policy({ reviewers: { aprove: ["dba"] } })).toThrow(/keyed by decision type/);
    expect(policy({ reviewers: { edit: ["dba"] } })).toThrow(/allowedDecisions has no "edit"/);
    expect(policy({ approvals: 0 })).toThrow(/whole number from 1 to 5/);
    expect(policy({ approvals: 1.5 })).toThrow(AgentConfigError);
    expect(() =>
      humanInTheLoop({
        interruptOn: { remove_file: { allowedDecisions: ["reject", "respond"], approvals: 2 } },
      }),
    ).toThrow(/neither "approve" nor "edit"/);
    expect(policy({ reviewers: ["dba"], approvals: 2 })).not.toThrow();
  });
});
