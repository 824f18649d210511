// Pause before a node to inspect the state, then continue.
import assert from "node:assert/strict";
import { END, Graph, START } from "stateweaver";
import { MemoryCheckpointer } from "stateweaver/checkpoint";

const graph = new Graph({ name: "DebuggableFlow" })
  .addNode("load", (state) => ({ rows: state.input.split(",") }))
  .addNode("process", (state) => ({ count: state.rows.length }))
  .addEdge(START, "load")
  .addEdge("load", "process")
  .addEdge("process", END)
  .compile({ checkpointer: new MemoryCheckpointer(), interruptBefore: ["process"] });

const config = { configurable: { thread_id: "debug-1" } };
const paused = await graph.invoke({ input: "a,b,c" }, { config });
assert.equal(paused.status, "interrupted");
if (paused.status === "interrupted") {
  console.log(
    `stopped ${paused.interrupt.timing} "${paused.interrupt.node}" with state`,
    paused.state,
  );
  assert.equal(paused.interrupt.timing, "before");
}
const snapshot = await graph.getState(config);
assert.deepEqual(snapshot.next, ["process"]);

const done = await graph.resume(undefined, { config });
console.log("result:", done.state);
assert.equal(done.state.count, 3);
