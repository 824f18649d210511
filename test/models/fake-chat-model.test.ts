import { describe, expect, it } from "vitest";
import { z } from "zod";
import { AbortError, ModelError } from "../../src/errors/index.js";
import {
  type ChatModel,
  type ChatModelChunk,
  FakeChatModel,
  message,
  tool,
} from "../../src/models/index.js";

const removeFile = tool({
  name: "remove_file",
  description: "Delete a file.",
  schema: z.object({ path: z.string() }),
  run: ({ path }) => `removed ${path}`,
});

async function collect(chunks: AsyncIterable<ChatModelChunk>): Promise<ChatModelChunk[]> {
  const all: ChatModelChunk[] = [];
  for await (const chunk of chunks) all.push(chunk);
  return all;
}

describe("FakeChatModel", () => {
  it("replies from its script in order, giving tool calls deterministic ids", async () => {
    const model: ChatModel = new FakeChatModel({
      responses: [
        {
          content: "Deleting both.",
          toolCalls: [
            { name: "remove_file", args: { path: "a.txt" } },
            { name: "remove_file", args: { path: "b.txt" } },
          ],
        },
        { toolCalls: [{ name: "remove_file", args: { path: "c.txt" } }] },
        { toolCalls: [{ id: "mine", name: "remove_file", args: { path: "d.txt" } }] },
        "All done.",
      ],
    });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const reply = await model.invoke([message.user("go")]);
      ids.push(...reply.toolCalls.map((call) => call.id));
    }
    expect(ids).toEqual(["call_1", "call_2", "call_3", "mine"]);
    expect(await model.invoke([message.user("go")])).toEqual({
      role: "assistant",
      content: "All done.",
      toolCalls: [],
    });
  });

  it("accepts full assistant messages", async () => {
    const scripted = message.assistant("Hi", {
      usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
      id: "fake-1",
    });
    const model = new FakeChatModel({ responses: [scripted] });
    expect(await model.invoke([message.user("hello")])).toEqual(scripted);
  });

  it("records the messages and tool names of every call, as copies", async () => {
    const model = new FakeChatModel({ responses: ["one", "two"] });
    const history = [message.system("Be brief."), message.user("first")];
    await model.invoke(history, { tools: [removeFile] });
    history.push(message.user("second"));
    await model.invoke(history);

    expect(model.calls).toEqual([
      {
        messages: [message.system("Be brief."), message.user("first")],
        toolNames: ["remove_file"],
      },
      { messages: history, toolNames: [] },
    ]);
  });

  it("computes a reply with a function given the messages, tools and call index", async () => {
    const model = new FakeChatModel({
      responses: [
        (messages, { tools, callIndex }) =>
          `call ${callIndex}: ${messages.at(-1)?.content} with ${tools.map((t) => t.name).join(",")}`,
        async () => ({ toolCalls: [{ name: "remove_file", args: { path: "z" } }] }),
      ],
    });
    expect((await model.invoke([message.user("hey")], { tools: [removeFile] })).content).toBe(
      "call 0: hey with remove_file",
    );
    expect((await model.invoke([message.user("again")])).toolCalls).toEqual([
      { id: "call_1", name: "remove_file", args: { path: "z" } },
    ]);
  });

  it("streams the reply as word-sized deltas, then the whole message", async () => {
    const model = new FakeChatModel({
      responses: [
        {
          content: "Deleting  temp.txt now.\nDone",
          toolCalls: [{ name: "remove_file", args: { path: "temp.txt" } }],
        },
      ],
    });
    const chunks = await collect(model.stream([message.user("go")]));
    expect(chunks).toEqual([
      { type: "text-delta", text: "Deleting  " },
      { type: "text-delta", text: "temp.txt " },
      { type: "text-delta", text: "now.\n" },
      { type: "text-delta", text: "Done" },
      {
        type: "message",
        message: {
          role: "assistant",
          content: "Deleting  temp.txt now.\nDone",
          toolCalls: [{ id: "call_1", name: "remove_file", args: { path: "temp.txt" } }],
        },
      },
    ]);
  });

  it("says how many replies were scripted when it is called once more", async () => {
    const model = new FakeChatModel({ responses: ["only", "two"] });
    await model.invoke([message.user("1")]);
    await model.invoke([message.user("2")]);
    const error = await model.invoke([message.user("3")]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).message).toMatch(
      /scripted with 2 replies and was called once more \(call 3\)/,
    );
    expect(model.calls).toHaveLength(3);
  });

  it("stops with AbortError when the signal has aborted", async () => {
    const model = new FakeChatModel({ responses: ["never"] });
    const controller = new AbortController();
    controller.abort();
    await expect(model.invoke([message.user("x")], { signal: controller.signal })).rejects.toThrow(
      AbortError,
    );
  });
});
