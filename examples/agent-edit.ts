// A human edits a proposed deletion to a different path; the edited call runs instead.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, rm, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAgent, HITL, InvalidResumeError } from "stateweaver/agent";
import { MemoryCheckpointer } from "stateweaver/checkpoint";
import { FakeChatModel, message, tool } from "stateweaver/models";
import { z } from "zod";

const dir = await mkdtemp(join(tmpdir(), "agent-edit-"));
await writeFile(join(dir, "important.txt"), "keep me");
await writeFile(join(dir, "temp.txt"), "scratch");

const removeFile = tool({
  name: "remove_file",
  description: "Delete a file from the workspace.",
  schema: z.object({ path: z.string().min(1) }),
  run: async ({ path }) => {
    await unlink(join(dir, path));
    return `removed ${path}`;
  },
});

const agent = createAgent({
  model: new FakeChatModel({
    responses: [{ toolCalls: [{ name: "remove_file", args: { path: "important.txt" } }] }, "Done."],
  }),
  tools: [removeFile],
  interruptOn: { remove_file: true },
  checkpointer: new MemoryCheckpointer(),
});

const config = { configurable: { thread_id: "agent-edit" } };
await agent.invoke({ messages: [message.user("Clean up the workspace")] }, { config });

// Edited args are checked against the tool's schema before anything runs.
const before = await agent.getState(config);
await assert.rejects(
  agent.resumeReview(
    [HITL.decision("edit", { editedAction: { name: "remove_file", args: { path: "" } } })],
    {
      config,
    },
  ),
  (error) => {
    console.log("refused:", (error as Error).message);
    return error instanceof InvalidResumeError;
  },
);
assert.deepEqual(
  await agent.getState(config),
  before,
  "a refused resume leaves the thread as it was",
);

const done = await agent.resumeReview(
  [HITL.decision("edit", { editedAction: { name: "remove_file", args: { path: "temp.txt" } } })],
  { config },
);
const reply = done.state.messages[1];
console.log("the reply now shows:", JSON.stringify(reply?.role === "assistant" && reply.toolCalls));
assert.equal(done.status, "done");
assert.equal(existsSync(join(dir, "temp.txt")), false);
assert.equal(existsSync(join(dir, "important.txt")), true);
await rm(dir, { recursive: true, force: true });
