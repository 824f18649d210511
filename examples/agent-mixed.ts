// One model turn, several tool calls, a different decision for each: every call gets
// exactly one answer, in the order the model made the calls.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAgent, HITL } from "stateweaver/agent";
import { MemoryCheckpointer } from "stateweaver/checkpoint";
import { FakeChatModel, message, tool } from "stateweaver/models";
import { z } from "zod";

const dir = await mkdtemp(join(tmpdir(), "agent-mixed-"));
for (const name of ["a.log", "b.log", "notes.txt"]) await writeFile(join(dir, name), name);

const removeFile = tool({
  name: "remove_file",
  description: "Delete a file.",
  schema: z.object({ path: z.string() }),
  run: async ({ path }) => {
    await unlink(join(dir, path));
    return `removed ${path}`;
  },
});
const readText = tool({
  name: "read_file",
  description: "Read a file.",
  schema: z.object({ path: z.string() }),
  run: ({ path }) => readFile(join(dir, path), "utf8"),
});
const sent: string[] = [];
const notifyEmail = tool({
  name: "notify_email",
  description: "Email someone.",
  schema: z.object({ to: z.string().email(), subject: z.string() }),
  run: ({ to, subject }) => {
    sent.push(to);
    return `sent "${subject}" to ${to}`;
  },
});

const agent = createAgent({
  model: new FakeChatModel({
    responses: [
      {
        toolCalls: [
          { name: "remove_file", args: { path: "a.log" } },
          { name: "read_file", args: { path: "notes.txt" } },
          { name: "remove_file", args: { path: "b.log" } },
          { name: "notify_email", args: { to: "everyone@example.com", subject: "Logs cleaned" } },
        ],
      },
      "Cleaned up as far as allowed.",
    ],
  }),
  tools: [removeFile, readText, notifyEmail],
  interruptOn: {
    remove_file: true,
    read_file: false,
    notify_email: { allowedDecisions: ["approve", "edit", "reject"] },
  },
  checkpointer: new MemoryCheckpointer(),
});

const config = { configurable: { thread_id: "agent-mixed" } };
const paused = await agent.invoke(
  { messages: [message.user("Clean the logs, tell the team")] },
  { config },
);
assert.equal(paused.status, "interrupted");
if (paused.status === "interrupted") {
  const review = HITL.fromInterrupt(paused.interrupt);
  console.log(
    "to review:",
    review.actions.map((a) => `${a.name}(${JSON.stringify(a.args)})`),
  );
  assert.equal(review.actions.length, 3, "read_file needs no review");
}

const done = await agent.resumeReview(
  [
    HITL.decision("approve"),
    HITL.decision("reject", { message: "Keep b.log for the audit." }),
    HITL.decision("edit", {
      editedAction: {
        name: "notify_email",
        args: { to: "ops@example.com", subject: "Logs cleaned" },
      },
    }),
  ],
  { config },
);
const answers = done.state.messages.filter((m) => m.role === "tool");
for (const m of answers) console.log(`${m.toolCallId} ${m.name} [${m.status}]: ${m.content}`);
assert.deepEqual(
  answers.map((m) => m.toolCallId),
  ["call_1", "call_2", "call_3", "call_4"],
);
assert.equal(existsSync(join(dir, "a.log")), false);
assert.equal(existsSync(join(dir, "b.log")), true);
assert.deepEqual(sent, ["ops@example.com"]);
await rm(dir, { recursive: true, force: true });
