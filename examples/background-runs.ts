// Runs as jobs: queue them, let a worker execute them, follow them by id. A second run on a
// busy thread follows its multitask strategy; a run that pauses for review ends "interrupted"
// and a resume is just another run.
import assert from "node:assert/strict";
import { Command, END, Graph, interrupt, START } from "stateweaver";
import { MemoryCheckpointer } from "stateweaver/checkpoint";
import { createRuns } from "stateweaver/runs";

const graph = new Graph<{ draft: string; approved?: boolean }>({ name: "Publish" })
  .addNode("write", (s) => ({ draft: `${s.draft}, polished` }))
  .addNode("review", (s) => ({ approved: interrupt<boolean>({ approve: s.draft }) }))
  .addEdge(START, "write")
  .addEdge("write", "review")
  .addEdge("review", END)
  .compile({ checkpointer: new MemoryCheckpointer() });

// This process queues and executes; with PostgresRunQueue, `stateweaver worker` processes would.
const runs = createRuns({ graphs: [graph] });
await runs.work({ concurrency: 2 });
const publish = runs.graph("Publish")!;

const first = await publish.runs.create("post-1", { draft: "hello" });
// The thread is busy: the default strategy ("reject") refuses, "enqueue" waits its turn.
await assert.rejects(publish.runs.create("post-1", { draft: "again" }), /busy/i);
const paused = await runs.join(first.runId);
console.log("first run:", paused.status);
assert.equal(paused.status, "interrupted");

const resumed = await publish.runs.create("post-1", new Command({ resume: true }));
const ended = await runs.join(resumed.runId);
const state = await publish.getState({ configurable: { thread_id: "post-1" } });
console.log("resume run:", ended.status, state.values);
assert.equal(ended.status, "success");
assert.deepEqual(state.values, { draft: "hello, polished", approved: true });
assert.deepEqual(
  (await publish.runs.list("post-1")).map((r) => r.status),
  ["success", "interrupted"],
);
await runs.close();
