import { describe, expect, it } from "vitest";
import { assertJson, jsonClone } from "../../src/checkpoint/serde.js";
import {
  isAssistantMessage,
  isSystemMessage,
  isToolMessage,
  isUserMessage,
  type Message,
  message,
} from "../../src/models/index.js";

const history: Message[] = [
  message.system("You manage files."),
  message.user("Delete temp.txt"),
  message.assistant("", {
    toolCalls: [{ id: "call_1", name: "remove_file", args: { path: "temp.txt" } }],
    usage: { inputTokens: 10, outputTokens: 3, totalTokens: 13 },
    id: "resp_1",
  }),
  message.tool({ toolCallId: "call_1", name: "remove_file", content: "removed" }),
];

describe("messages", () => {
  it("are plain JSON that comes back from a checkpoint unchanged", () => {
    expect(() => assertJson(history, "state.messages")).not.toThrow();
    expect(jsonClone(history)).toStrictEqual(history);
  });

  it("carry a role, tool calls and usage, and leave out absent fields", () => {
    expect(history).toStrictEqual([
      { role: "system", content: "You manage files." },
      { role: "user", content: "Delete temp.txt" },
      {
        role: "assistant",
        content: "",
        toolCalls: [{ id: "call_1", name: "remove_file", args: { path: "temp.txt" } }],
        usage: { inputTokens: 10, outputTokens: 3, totalTokens: 13 },
        id: "resp_1",
      },
      {
        role: "tool",
        content: "removed",
        toolCallId: "call_1",
        name: "remove_file",
        status: "success",
      },
    ]);
    expect(message.assistant("Hi")).toStrictEqual({
      role: "assistant",
      content: "Hi",
      toolCalls: [],
    });
  });

  it("are told apart by the type guards", () => {
    expect(history.filter(isSystemMessage)).toHaveLength(1);
    expect(history.filter(isUserMessage)).toHaveLength(1);
    expect(history.filter(isAssistantMessage)[0]?.toolCalls[0]?.name).toBe("remove_file");
    expect(history.filter(isToolMessage)[0]?.status).toBe("success");
  });
});
