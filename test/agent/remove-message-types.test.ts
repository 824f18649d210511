/**
 * Type tests (checked by `npm run typecheck`): a node of a messages state may return
 * `removeMessage(id)` markers in `messages` without a cast, and only there.
 */
import { describe, expect, expectTypeOf, it } from "vitest";
import { type AgentState, type MessagesState, messagesGraph } from "../../src/agent/index.js";
import { Command, type NodeFn, START, type StateUpdate } from "../../src/index.js";
import {
  type Message,
  message,
  type RemoveMessage,
  removeMessage,
} from "../../src/models/index.js";

describe("removeMessage in a node's update", () => {
  it("type-checks as a write to messages, beside messages, and in a Command", async () => {
    const trim: NodeFn<MessagesState> = (s) => ({ messages: [removeMessage(s.messages[0]!.id!)] });
    const replace: NodeFn<MessagesState> = (s) =>
      new Command({
        update: { messages: [removeMessage(s.messages[0]!.id!), message.user("summary")] },
      });
    const graph = messagesGraph({ name: "trim" })
      .addNode("trim", trim)
      .addNode("replace", replace)
      .addEdge(START, "trim")
      .addEdge("trim", "replace")
      .compile();
    const r = await graph.invoke({
      messages: [message.user("a", { id: "a" }), message.user("b", { id: "b" })],
    });
    expect(r.state.messages).toEqual([message.user("summary")]);
  });

  it("keeps the state's own type for reading: messages are messages", () => {
    expectTypeOf<MessagesState["messages"]>().toEqualTypeOf<Message[]>();
    expectTypeOf<StateUpdate<MessagesState>["messages"]>().toEqualTypeOf<
      Message[] | ReadonlyArray<Message | RemoveMessage> | undefined
    >();
    expectTypeOf<StateUpdate<AgentState>["messages"]>().toExtend<
      ReadonlyArray<Message | RemoveMessage> | undefined
    >();
  });

  it("is still refused where the value is not a list of messages", () => {
    type Titled = StateUpdate<{ title: string; messages: Message[] }>;
    // @ts-expect-error a removal is not a string
    const wrong: Titled = { title: removeMessage("x") };
    // @ts-expect-error a removal is not a value of another list
    const alsoWrong: StateUpdate<{ tags: string[] }> = { tags: [removeMessage("x")] };
    expect([wrong, alsoWrong]).toHaveLength(2);
  });
});
