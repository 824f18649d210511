// Two branches pause in the same step; answer both at once with a map keyed by interrupt id.
import assert from "node:assert/strict";
import { END, Graph, interrupt, START } from "stateweaver";
import { MemoryCheckpointer } from "stateweaver/checkpoint";

const graph = new Graph({ name: "ParallelQuestions" })
  .addReducer("answers", (existing: string[] = [], update: string[]) => [...existing, ...update])
  .addNode("left", () => ({ answers: [`a:${interrupt("question_a")}`] }))
  .addNode("right", () => ({ answers: [`b:${interrupt("question_b")}`] }))
  .addEdge(START, "left")
  .addEdge(START, "right")
  .addEdge("left", END)
  .addEdge("right", END)
  .compile({ checkpointer: new MemoryCheckpointer() });

const config = { configurable: { thread_id: "parallel-1" } };
const paused = await graph.invoke({ answers: [] }, { config });
assert.equal(paused.status, "interrupted");

const { interrupts } = await graph.getState(config);
console.log(
  "pending:",
  interrupts.map((i) => `${i.id} (${i.node}): ${i.value}`),
);
const answers = Object.fromEntries(interrupts.map((i) => [i.id, `answer for ${i.value}`]));

const done = await graph.resume(answers, { config });
console.log("answers:", done.state.answers);
assert.deepEqual(done.state.answers, ["a:answer for question_a", "b:answer for question_b"]);
