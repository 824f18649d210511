// An interrupt deep inside a subgraph reaches the top-level caller; resume with the same config.
import assert from "node:assert/strict";
import { END, Graph, interrupt, START } from "stateweaver";
import { PGliteCheckpointer } from "stateweaver/checkpoint";

const review = new Graph({ name: "Review" })
  .addNode("check", (state) => ({ checked: `${state.order} looks fine` }))
  .addNode("approve", (state) => ({
    approved: interrupt<boolean>({ question: "Ship it?", note: state.checked }),
  }))
  .addEdge(START, "check")
  .addEdge("check", "approve")
  .compile();

const checkpointer = new PGliteCheckpointer("memory://");
const orders = new Graph({ name: "Orders" })
  .addNode("review", review)
  .addNode("ship", (state) => ({ shipped: state.approved === true }))
  .addEdge(START, "review")
  .addEdge("review", "ship")
  .addEdge("ship", END)
  .compile({ checkpointer });

const config = { configurable: { thread_id: "order-7" } };
const paused = await orders.invoke({ order: "order #7" }, { config });
assert.equal(paused.status, "interrupted");
if (paused.status === "interrupted") {
  console.log(`paused in namespace ${paused.interrupt.ns}:`, paused.interrupt.value);
  assert.match(paused.interrupt.ns, /^review:/);
}

const nested = await orders.getState(config, { subgraphs: true });
console.log("the child's own state:", nested.tasks[0]?.state?.values);

const done = await orders.resume(true, { config });
console.log("result:", done.state);
assert.equal(done.state.shipped, true);
await checkpointer.close();
