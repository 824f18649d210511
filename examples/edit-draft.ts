// A human reviews generated text and sends back an edited version.
import assert from "node:assert/strict";
import { END, Graph, interrupt, START } from "stateweaver";
import { MemoryCheckpointer } from "stateweaver/checkpoint";

const graph = new Graph({ name: "EditDraft" })
  .addNode("generate", (state) => ({ text: `A short note about ${state.topic}.` }))
  .addNode("review", (state) => ({
    text: interrupt<string>({
      instruction: "Check this draft and send back your version",
      content: state.text,
    }),
  }))
  .addEdge(START, "generate")
  .addEdge("generate", "review")
  .addEdge("review", END)
  .compile({ checkpointer: new MemoryCheckpointer() });

const config = { configurable: { thread_id: "draft-1" } };
const paused = await graph.invoke({ topic: "owls" }, { config });
assert.equal(paused.status, "interrupted");
if (paused.status === "interrupted") console.log("to review:", paused.interrupt.value);

const done = await graph.resume("A short, friendly note about owls.", { config });
console.log("final text:", done.state.text);
assert.equal(done.state.text, "A short, friendly note about owls.");
