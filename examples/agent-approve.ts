// An agent proposes deleting a file; a human approves, and only then the file is deleted.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, rm, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAgent, HITL } from "stateweaver/agent";
import { MemoryCheckpointer } from "stateweaver/checkpoint";
import { FakeChatModel, message, tool } from "stateweaver/models";
import { z } from "zod";

const dir = await mkdtemp(join(tmpdir(), "agent-approve-"));
await writeFile(join(dir, "temp.txt"), "scratch");

const removeFile = tool({
  name: "remove_file",
  description: "Delete a file from the workspace.",
  schema: z.object({ path: z.string() }),
  run: async ({ path }) => {
    await unlink(join(dir, path));
    return `removed ${path}`;
  },
});

const agent = createAgent({
  model: new FakeChatModel({
    responses: [
      { toolCalls: [{ name: "remove_file", args: { path: "temp.txt" } }] },
      "temp.txt is gone.",
    ],
  }),
  tools: [removeFile],
  interruptOn: { remove_file: true },
  checkpointer: new MemoryCheckpointer(),
});

const config = { configurable: { thread_id: "agent-approve" } };
const paused = await agent.invoke({ messages: [message.user("Delete temp.txt")] }, { config });
assert.equal(paused.status, "interrupted");
if (paused.status === "interrupted") {
  for (const action of HITL.fromInterrupt(paused.interrupt).actions) {
    console.log(
      `review ${action.name} (${action.allowedDecisions.join("/")}):\n${action.description}`,
    );
  }
}
assert.ok(existsSync(join(dir, "temp.txt")), "nothing runs before the review");

const done = await agent.resumeReview([HITL.decision("approve")], { config });
console.log("tool result:", done.state.messages.at(-2)?.content);
console.log("agent:", done.state.messages.at(-1)?.content);
assert.equal(done.status, "done");
assert.equal(existsSync(join(dir, "temp.txt")), false);
await rm(dir, { recursive: true, force: true });
