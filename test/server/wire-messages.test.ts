import { describe, expect, it } from "vitest";
import { message } from "../../src/models/index.js";
import { fromWireMessage, toWireMessage, toWireValues } from "../../src/server/wire/messages.js";

describe("messages on the wire", () => {
  it("go out in LangChain's serialized shape, tool calls and tool results included", () => {
    const reply = message.assistant("", {
      toolCalls: [{ id: "call_1", name: "remove_file", args: { path: "a.txt" } }],
      id: "ops:1:model:0",
    });
    expect(toWireMessage(reply, 1)).toEqual({
      type: "ai",
      content: "",
      id: "ops:1:model:0",
      tool_calls: [
        { id: "call_1", name: "remove_file", args: { path: "a.txt" }, type: "tool_call" },
      ],
      invalid_tool_calls: [],
      additional_kwargs: {},
      response_metadata: {},
    });
    const result = message.tool({ toolCallId: "call_1", name: "remove_file", content: "removed" });
    expect(toWireMessage(result, 2)).toMatchObject({
      type: "tool",
      tool_call_id: "call_1",
      name: "remove_file",
      status: "success",
      id: "m-2",
    });
  });

  it("come in as LangChain's shape, as { role, content }, or as ours, and round-trip", () => {
    expect(fromWireMessage({ type: "human", content: "hi", id: "u1" })).toEqual({
      role: "user",
      content: "hi",
      id: "u1",
    });
    expect(
      fromWireMessage({
        role: "user",
        content: [
          { type: "text", text: "a" },
          { type: "text", text: "b" },
        ],
      }),
    ).toEqual({
      role: "user",
      content: "ab",
    });
    const ours = message.assistant("ok", {
      toolCalls: [{ id: "c", name: "t", args: { x: 1 } }],
      id: "a1",
    });
    expect(fromWireMessage(toWireMessage(ours, 0))).toEqual(ours);
    expect(fromWireMessage({ type: "nonsense", content: "x" })).toBeUndefined();
    expect(fromWireMessage("hi")).toBeUndefined();
  });

  it("are mapped inside state values, with ids by position for messages without one", () => {
    const values = { messages: [message.user("a"), message.user("b")], other: 1 };
    expect(toWireValues(values, 3)).toMatchObject({
      messages: [{ id: "m-3" }, { id: "m-4" }],
      other: 1,
    });
    expect(toWireValues({ n: 1 })).toEqual({ n: 1 });
  });
});
