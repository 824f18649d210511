// A human rejects a deletion with a reason: the file stays and the model reads the reason.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, rm, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAgent } from "stateweaver/agent";
import { MemoryCheckpointer } from "stateweaver/checkpoint";
import { FakeChatModel, message, tool } from "stateweaver/models";
import { z } from "zod";

const dir = await mkdtemp(join(tmpdir(), "agent-reject-"));
await writeFile(join(dir, "records.db"), "rows");

const removeFile = tool({
  name: "remove_file",
  description: "Delete a file from the workspace.",
  schema: z.object({ path: z.string() }),
  run: async ({ path }) => {
    await unlink(join(dir, path));
    return `removed ${path}`;
  },
});

const model = new FakeChatModel({
  responses: [
    { toolCalls: [{ name: "remove_file", args: { path: "records.db" } }] },
    // The second reply reads what the reviewer said.
    (messages) => `Understood: ${messages.at(-1)?.content}`,
  ],
});
const agent = createAgent({
  model,
  tools: [removeFile],
  interruptOn: { remove_file: { allowedDecisions: ["approve", "reject"] } },
  checkpointer: new MemoryCheckpointer(),
});

const config = { configurable: { thread_id: "agent-reject" } };
const paused = await agent.invoke(
  { messages: [message.user("Clear out last year's records")] },
  { config },
);
assert.equal(paused.status, "interrupted");

const done = await agent.resume(
  {
    decisions: [
      { type: "reject", message: "Keep the records; list the oldest ones for me instead." },
    ],
  },
  { config },
);
const answer = done.state.messages.at(-2);
console.log("tool message:", answer);
console.log("agent:", done.state.messages.at(-1)?.content);
assert.equal(done.status, "done");
assert.ok(existsSync(join(dir, "records.db")), "a rejected call never runs");
assert.equal(answer?.role === "tool" && answer.status, "error");
await rm(dir, { recursive: true, force: true });
