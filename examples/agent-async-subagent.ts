// The parent starts a task on an async subagent and keeps talking; the task runs in the
// background on its own thread, and a later turn checks it and reads its answer.
import assert from "node:assert/strict";
import { type AsyncTask, asyncSubagent, createAgent } from "stateweaver/agent";
import { MemoryCheckpointer } from "stateweaver/checkpoint";
import { FakeChatModel, message } from "stateweaver/models";
import { createRuns } from "stateweaver/runs";

const checkpointer = new MemoryCheckpointer();

// The subagent: an agent of its own, hosted on a run service that executes its runs here.
const researcher = createAgent({
  name: "researcher",
  model: new FakeChatModel({ responses: ["Tides follow the moon: two highs a day."] }),
  checkpointer,
});
const runs = createRuns({ graphs: [researcher] });
await runs.work();

// The parent's scripted model, in call order: start a task, answer, check it, report.
const lead = createAgent({
  name: "lead",
  model: new FakeChatModel({
    responses: [
      {
        toolCalls: [
          {
            name: "start_async_task",
            args: { subagent_type: "researcher", description: "Explain the tides briefly." },
          },
        ],
      },
      "I started a researcher on it; ask me for the result in a while.",
      (messages) => {
        const started = messages.find((m) => m.role === "tool")?.content;
        const taskId = /task_id: (\S+)/.exec(String(started))![1];
        return { toolCalls: [{ name: "check_async_task", args: { task_id: taskId } }] };
      },
      (messages) => `The researcher says: ${JSON.parse(String(messages.at(-1)?.content)).answer}`,
    ],
  }),
  checkpointer,
  subagents: [
    asyncSubagent({
      name: "researcher",
      description: "Researches a topic and reports back.",
      graph: runs.graph("researcher")!,
    }),
  ],
});

const config = { configurable: { thread_id: "lead-1" } };
const first = await lead.invoke({ messages: [message.user("How do tides work?")] }, { config });
console.log("lead:", first.state.messages.at(-1)?.content);
const [task] = Object.values(first.state.asyncTasks as Record<string, AsyncTask>);
console.log("task:", task!.taskId, task!.status);

await runs.join(task!.runId); // the task's run, in the background meanwhile
const later = await lead.invoke({ messages: [message.user("Is it done?")] }, { config });
console.log("lead:", later.state.messages.at(-1)?.content);
assert.equal(
  later.state.messages.at(-1)?.content,
  "The researcher says: Tides follow the moon: two highs a day.",
);
assert.equal(
  (later.state.asyncTasks as Record<string, AsyncTask>)[task!.taskId]!.status,
  "success",
);
// The task's thread names its parent, for the inbox and for searches.
const thread = await checkpointer.getThread(task!.taskId);
assert.equal(thread?.metadata.parent_thread_id, "lead-1");
await runs.close();
