// ask_user has no backend: the human's reply is the tool result, on a thread kept in PGlite.
import assert from "node:assert/strict";
import { createAgent, HITL } from "stateweaver/agent";
import { PGliteCheckpointer } from "stateweaver/checkpoint";
import { FakeChatModel, message, tool } from "stateweaver/models";
import { z } from "zod";

const askUser = tool({
  name: "ask_user",
  description: "Ask the human a question.",
  schema: z.object({ question: z.string() }),
  run: () => {
    throw new Error("answered by a human in review, never run");
  },
});

const checkpointer = new PGliteCheckpointer("memory://");
const agent = createAgent({
  model: new FakeChatModel({
    responses: [
      {
        toolCalls: [{ name: "ask_user", args: { question: "Which colour should the theme use?" } }],
      },
      (messages) => `Setting the theme to ${messages.at(-1)?.content}`,
    ],
  }),
  tools: [askUser],
  interruptOn: { ask_user: { allowedDecisions: ["respond"] } },
  checkpointer,
});

const config = { configurable: { thread_id: "agent-respond" } };
const paused = await agent.invoke({ messages: [message.user("Pick a theme")] }, { config });
assert.equal(paused.status, "interrupted");
if (paused.status === "interrupted")
  console.log("question:", HITL.fromInterrupt(paused.interrupt).actions[0]?.args.question);

const done = await agent.resumeReview([HITL.decision("respond", { message: "Blue." })], { config });
console.log("tool result:", done.state.messages.at(-2));
console.log("agent:", done.state.messages.at(-1)?.content);
assert.equal(done.status, "done");
assert.deepEqual(
  done.state.messages.at(-2),
  message.tool({ toolCallId: "call_1", name: "ask_user", content: "Blue." }),
);
assert.equal(done.state.messages.at(-1)?.content, "Setting the theme to Blue.");
await checkpointer.close();
