// The human's decision picks the branch: the node returns Command({ goto }).
import assert from "node:assert/strict";
import { Command, END, Graph, interrupt, START } from "stateweaver";
import { MemoryCheckpointer } from "stateweaver/checkpoint";

const graph = new Graph({ name: "ApproveOrCancel" })
  .addNode(
    "approval",
    (state) =>
      new Command({
        goto: interrupt<boolean>({ question: "Proceed?", details: state.details })
          ? "proceed"
          : "cancel",
      }),
    { ends: ["proceed", "cancel"] },
  )
  .addNode("proceed", () => ({ outcome: "deployed" }))
  .addNode("cancel", () => ({ outcome: "cancelled" }))
  .addEdge("proceed", END)
  .addEdge("cancel", END)
  .addEdge(START, "approval")
  .compile({ checkpointer: new MemoryCheckpointer() });

for (const [thread, answer, expected] of [
  ["yes", true, "deployed"],
  ["no", false, "cancelled"],
] as const) {
  const config = { configurable: { thread_id: thread } };
  await graph.invoke({ details: "release 1.2" }, { config });
  const done = await graph.resume(answer, { config });
  console.log(`answered ${answer}:`, done.state.outcome);
  assert.equal(done.state.outcome, expected);
}
