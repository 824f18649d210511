// The parent hands a task to a subagent; a review inside the subagent pauses the parent's
// run, and resuming the parent's thread continues the subagent where it stopped.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, rm, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAgent, HITL, subagent } from "stateweaver/agent";
import { MemoryCheckpointer } from "stateweaver/checkpoint";
import { FakeChatModel, message, tool } from "stateweaver/models";
import { z } from "zod";

const dir = await mkdtemp(join(tmpdir(), "agent-subagent-"));
await writeFile(join(dir, "old.log"), "x");

const deleteFile = tool({
  name: "delete_file",
  description: "Delete a file.",
  schema: z.object({ path: z.string() }),
  run: async ({ path }) => {
    await unlink(join(dir, path));
    return `deleted ${path}`;
  },
});

// One scripted model plays both parts, in call order: parent, subagent, subagent, parent.
const model = new FakeChatModel({
  responses: [
    {
      toolCalls: [
        { name: "task", args: { subagent: "housekeeper", description: "Delete old.log" } },
      ],
    },
    { toolCalls: [{ name: "delete_file", args: { path: "old.log" } }] },
    "old.log deleted.",
    "The file manager deleted old.log.",
  ],
});
const agent = createAgent({
  model,
  tools: [deleteFile],
  interruptOn: { delete_file: true },
  subagents: [
    // No interruptOn of its own: it inherits the parent's delete_file review.
    subagent({
      name: "housekeeper",
      description: "Tidies up the workspace: deletes and reads files.",
      tools: [deleteFile],
    }),
  ],
  checkpointer: new MemoryCheckpointer(),
});

const config = { configurable: { thread_id: "agent-subagent" } };
const paused = await agent.invoke({ messages: [message.user("Remove old logs")] }, { config });
assert.equal(paused.status, "interrupted");
if (paused.status === "interrupted") {
  console.log("paused in namespace:", paused.interrupt.ns);
  console.log("review:", HITL.fromInterrupt(paused.interrupt).actions[0]?.description);
}
assert.ok(existsSync(join(dir, "old.log")));

const done = await agent.resumeReview([HITL.decision("approve")], { config });
console.log("agent:", done.state.messages.at(-1)?.content);
assert.equal(done.status, "done");
assert.equal(existsSync(join(dir, "old.log")), false);
assert.equal(done.state.messages.at(-2)?.content, "old.log deleted.");
await rm(dir, { recursive: true, force: true });
