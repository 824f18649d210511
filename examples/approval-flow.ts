// A node asks a human to approve; the run pauses, is saved, and resumes with the answer.
import assert from "node:assert/strict";
import { END, Graph, interrupt, START } from "stateweaver";
import { MemoryCheckpointer } from "stateweaver/checkpoint";

const graph = new Graph({ name: "ApprovalFlow" })
  .addNode("approval", (state) => ({
    approved: interrupt<boolean>({ question: "Go ahead with this?", details: state.details }),
  }))
  .addEdge(START, "approval")
  .addEdge("approval", END)
  .compile({ checkpointer: new MemoryCheckpointer() });

const config = { configurable: { thread_id: "approval-1" } };
const paused = await graph.invoke({ details: "Transfer $500" }, { config });
assert.equal(paused.status, "interrupted");
if (paused.status === "interrupted") console.log("waiting for:", paused.interrupt.value);

const done = await graph.resume(true, { config });
console.log("result:", done);
assert.deepEqual(done, { status: "done", state: { details: "Transfer $500", approved: true } });
