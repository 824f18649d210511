import { describe, expect, it } from "vitest";
import { RunProtocolEvents } from "../../src/server/protocol/run-protocol-events.js";

type Event = ReturnType<RunProtocolEvents["push"]>[number];

const brief = (events: Event[]) =>
  events.map((e) => {
    const d = e.params.data as Record<string, unknown>;
    const ns = e.params.namespace.length > 0 ? `@${e.params.namespace.join("/")}` : "";
    const what =
      typeof d?.event === "string" ? `:${d.event}` : e.params.node ? `:${e.params.node}` : "";
    return `${e.method}${what}${ns}`;
  });

// One run's recorded stream events (LangGraph's SSE names and shapes) in, protocol events out.
describe("a run's protocol events", () => {
  it("ends a subgraph that paused on an interrupt as interrupted, after asking for input once, then the root", () => {
    const run = new RunProtocolEvents("approval");
    const interrupt = [{ id: "i1", value: { question: "Approve?" } }];
    const events = [
      ...run.start(),
      ...run.push("values", { topic: "x" }),
      ...run.push("updates|ask:t1", { prepare: { log: ["prepared"] } }),
      ...run.push("updates|ask:t1", { __interrupt__: interrupt }),
      ...run.push("updates", { __interrupt__: interrupt }),
      ...run.end({ event: "interrupted" }),
    ];
    expect(brief(events)).toEqual([
      "lifecycle:running",
      "values",
      "lifecycle:started@ask:t1",
      "updates:prepare@ask:t1",
      "input.requested@ask:t1",
      "lifecycle:interrupted@ask:t1",
      "lifecycle:interrupted",
    ]);
    expect(events[4]!.params.data).toEqual({
      interrupt_id: "i1",
      payload: { question: "Approve?" },
    });
    expect(run.requestedInput).toBe(true);
    expect(run.tree()).toEqual({
      namespace: [],
      status: "interrupted",
      graph_name: "approval",
      children: [{ namespace: ["ask:t1"], status: "interrupted", graph_name: "ask" }],
    });
  });

  it("fails the subgraphs still going with the run, and gives the root the error", () => {
    const run = new RunProtocolEvents("nested");
    run.start();
    run.push("values|outer:a|inner:b", { n: 1 });
    expect(brief(run.end({ event: "failed", error: "Boom" }))).toEqual([
      "lifecycle:failed@outer:a",
      "lifecycle:failed@outer:a/inner:b",
      "lifecycle:failed",
    ]);
    expect(run.tree().children?.[0]?.children?.[0]).toEqual({
      namespace: ["outer:a", "inner:b"],
      status: "failed",
      graph_name: "inner",
    });
  });

  it("frames a message a node writes whole before its update, but not the run's input nor a tool message", () => {
    const run = new RunProtocolEvents("chat");
    const input = { type: "human", id: "m-0", content: "Hi" };
    run.push("values", { messages: [input] });
    const reply = {
      type: "ai",
      id: "a1",
      content: "Let me look.",
      tool_calls: [{ id: "c1", name: "lookup", args: { q: "x" }, type: "tool_call" }],
      usage_metadata: { input_tokens: 3, output_tokens: 4, total_tokens: 7 },
    };
    const tool = { type: "tool", id: "t1", content: "found", tool_call_id: "c1" };
    const events = run.push("updates", { model: { messages: [input, reply, tool] } });
    expect(brief(events)).toEqual([
      "messages:message-start",
      "messages:content-block-start",
      "messages:content-block-delta",
      "messages:content-block-finish",
      "messages:content-block-start",
      "messages:content-block-finish",
      "messages:message-finish",
      "updates:model",
    ]);
    expect(events.map((e) => e.params.data).slice(0, 7)).toEqual([
      { event: "message-start", role: "ai", id: "a1" },
      { event: "content-block-start", index: 0, content: { type: "text", text: "" } },
      {
        event: "content-block-delta",
        index: 0,
        delta: { type: "text-delta", text: "Let me look." },
      },
      { event: "content-block-finish", index: 0, content: { type: "text", text: "Let me look." } },
      {
        event: "content-block-start",
        index: 1,
        content: { type: "tool_call_chunk", id: "c1", name: "lookup", args: "" },
      },
      {
        event: "content-block-finish",
        index: 1,
        content: { type: "tool_call", id: "c1", name: "lookup", args: { q: "x" } },
      },
      { event: "message-finish", usage: { input_tokens: 3, output_tokens: 4, total_tokens: 7 } },
    ]);
    expect(events.every((e) => e.params.node === "model")).toBe(true);
    // Framed once a run.
    expect(brief(run.push("updates", { other: { messages: [reply] } }))).toEqual(["updates:other"]);
  });

  it("tells a tool that failed as tool-error with its message", () => {
    const run = new RunProtocolEvents("agent");
    const events = [
      ...run.push("tools", {
        event: "on_tool_start",
        toolCallId: "c1",
        name: "lookup",
        input: { q: 1 },
      }),
      ...run.push("tools", {
        event: "on_tool_error",
        toolCallId: "c1",
        name: "lookup",
        error: { message: "No." },
      }),
    ];
    expect(events.map((e) => e.params.data)).toEqual([
      { event: "tool-started", tool_call_id: "c1", tool_name: "lookup", input: { q: 1 } },
      { event: "tool-error", tool_call_id: "c1", message: "No." },
    ]);
  });
});
