// Re-ask until the answer is valid: each resume replays the node from its start.
import assert from "node:assert/strict";
import { END, Graph, interrupt, START } from "stateweaver";
import { MemoryCheckpointer } from "stateweaver/checkpoint";

const graph = new Graph({ name: "ValidateAge" })
  .addNode("age", () => {
    let prompt = "What is your age?";
    for (;;) {
      const answer = interrupt(prompt);
      if (Number.isInteger(answer) && answer > 0) return { age: answer };
      prompt = `'${answer}' is not an age we can use: answer with a whole number above zero.`;
    }
  })
  .addEdge(START, "age")
  .addEdge("age", END)
  .compile({ checkpointer: new MemoryCheckpointer() });

const config = { configurable: { thread_id: "age-1" } };
let result = await graph.invoke({}, { config });
for (const answer of ["forty", -1, 42]) {
  if (result.status === "interrupted")
    console.log("asked:", result.interrupt.value, "-> answering", answer);
  result = await graph.resume(answer, { config });
}
console.log("result:", result);
assert.deepEqual(result, { status: "done", state: { age: 42 } });
