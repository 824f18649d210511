import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  AgentConfigError,
  createAgent,
  HITL,
  humanInTheLoop,
  parseDuration,
  type ReviewDeadlinePolicy,
  type ReviewRequest,
} from "../../src/agent/index.js";
import { MemoryCheckpointer } from "../../src/checkpoint/index.js";
import { FakeChatModel, message, tool } from "../../src/models/index.js";

const transfer = tool({
  name: "transfer",
  description: "Send money.",
  schema: z.object({ amount: z.number() }),
  run: ({ amount }) => `sent ${amount}`,
});

const agentWith = (deadline: unknown, allowed = ["approve", "reject"] as const) =>
  createAgent({
    model: new FakeChatModel({
      responses: [
        {
          toolCalls: [
            { name: "transfer", args: { amount: 1 } },
            { name: "transfer", args: { amount: 2 } },
          ],
        },
        "Done.",
      ],
    }),
    tools: [transfer],
    middleware: [
      humanInTheLoop({
        interruptOn: {
          transfer: { allowedDecisions: [...allowed], deadline: deadline as ReviewDeadlinePolicy },
        },
        interruptMode: "first",
      }),
    ],
    checkpointer: new MemoryCheckpointer(),
  });

/** The interrupt a paused result carries (fails the test when it did not pause). */
function pausedOn(r: { status: string; interrupt?: { id: string; value: unknown } }) {
  if (r.status !== "interrupted" || !r.interrupt)
    throw new Error(`Expected a pause, got ${r.status}`);
  return r.interrupt;
}

describe("review deadlines in policies", () => {
  it("durations are milliseconds or a number with ms, s, m, h or d", () => {
    expect(parseDuration(250)).toBe(250);
    expect(parseDuration("90s")).toBe(90_000);
    expect(parseDuration("30m")).toBe(1_800_000);
    expect(parseDuration("2h")).toBe(7_200_000);
    expect(parseDuration("1.5d")).toBe(129_600_000);
    for (const bad of ["2 hours", "-1s", 0, -5, "", "h", Number.NaN]) {
      expect(parseDuration(bad)).toBeUndefined();
    }
  });

  it("a deadline that cannot work is refused when the agent is built, saying what to write", () => {
    const cases: Array<[unknown, RegExp, (readonly ("approve" | "reject")[])?]> = [
      ["2h", /interruptOn\.transfer\.deadline must be \{ after, onExpiry \}/],
      [{ after: "2 hours", onExpiry: "wait" }, /deadline\.after is "2 hours"; give a positive/],
      [{ after: "1h" }, /deadline\.onExpiry is undefined; use \{ reject/],
      [{ after: "1h", onExpiry: "skip" }, /deadline\.onExpiry is "skip"/],
      [{ after: "1h", onExpiry: { handOff: {} } }, /handOff must name the group/],
      [
        { after: "1h", onExpiry: { reject: { message: 5 } } },
        /reject must be \{ message\?: string \}/,
      ],
      [
        { after: "1h", onExpiry: { reject: { message: "late" } } },
        /allowedDecisions has no "reject"/,
        ["approve"],
      ],
    ];
    for (const [deadline, text, allowed] of cases) {
      expect(() => agentWith(deadline, allowed as never)).toThrow(AgentConfigError);
      expect(() => agentWith(deadline, allowed as never)).toThrow(text);
    }
  });

  it("the review carries its deadline, fixed when first raised and the same when it replays", async () => {
    const agent = agentWith({ after: "2h", onExpiry: { handOff: { group: "oncall" } } });
    const config = { configurable: { thread_id: "deadline-replay" } };
    const before = Date.now();
    const first = await agent.invoke({ messages: [message.user("Pay twice")] }, { config });
    expect(first.status).toBe("interrupted");
    const firstReview = HITL.fromInterrupt(pausedOn(first));
    const at = Date.parse(firstReview.deadline!.at);
    expect(at).toBeGreaterThanOrEqual(before + 7_200_000);
    expect(at).toBeLessThanOrEqual(Date.now() + 7_200_000);
    expect(firstReview.deadline!.onExpiry).toEqual({ handOff: { group: "oncall" } });

    // Time passes; the node replays the first review on resume and raises the second.
    await new Promise((r) => setTimeout(r, 5));
    const second = await agent.resume({ decisions: [{ type: "approve" }] }, { config });
    expect(second.status).toBe("interrupted");
    const secondValue = pausedOn(second).value as ReviewRequest;
    expect(pausedOn(second).id).not.toBe(pausedOn(first).id);
    expect(Date.parse(secondValue.deadline!.at)).toBeGreaterThan(at);

    const state = await agent.getState(config);
    expect((state.interrupts[0]!.value as ReviewRequest).deadline).toEqual(secondValue.deadline);
    const last = await agent.resume({ decisions: [{ type: "reject" }] }, { config });
    expect(last.status).toBe("done");
  });

  it("a review without a deadline has no deadline field", async () => {
    const agent = createAgent({
      model: new FakeChatModel({
        responses: [{ toolCalls: [{ name: "transfer", args: { amount: 1 } }] }],
      }),
      tools: [transfer],
      interruptOn: { transfer: true },
      checkpointer: new MemoryCheckpointer(),
    });
    const r = await agent.invoke(
      { messages: [message.user("Pay")] },
      { config: { configurable: { thread_id: "no-deadline" } } },
    );
    expect("deadline" in (pausedOn(r).value as object)).toBe(false);
  });
});
