// Model-based testing with @xstate/graph: every path of the graph's inspection machine is a
// way a run can go; steer the real graph along each (from the path's events) and check
// that the nodes it ran, super-step by super-step, are the path's.
import assert from "node:assert/strict";
import { createTestModel } from "@xstate/graph";
import { END, START } from "stateweaver";
import { type ArticleInput, articleGraph } from "./model-based/article-graph.js";

// Cycles are unrolled until a node has run maxVisits times (default 2): here, one revision.
const model = createTestModel(articleGraph.inspectionMachine());
const paths = model.getSimplePaths({ toState: (s) => s.status === "done" });
assert.equal(paths.length, 4); // publish or notify, with no revision or one

for (const path of paths) {
  // The path's events are the choices: a router's `route <from> -> <to>`, a Command's `goto`.
  const events = path.steps.map((s) => s.event.type);
  const input: ArticleInput = {
    revisions: events.filter((type) => type === "goto edit -> revise").length,
    notify: events.includes("route publish -> notify"),
  };
  const run = await articleGraph.invoke(input);
  assert.equal(run.status, "done");

  // The path's states are the nodes, one at a time; context.superstep groups them into steps.
  const expected = path.steps
    .filter((s) => s.state.value !== START && s.state.value !== END)
    .map((s) => `${s.state.context.superstep}:${s.state.value}`);
  const ran = [...run.state.ran].sort(
    (a, b) => stepOf(a) - stepOf(b) || nodeIndex(a) - nodeIndex(b),
  );
  assert.deepEqual(ran, expected, path.description);
  console.log(`ok  ${JSON.stringify(input)}: ${ran.join(" ")}`);
}

function stepOf(entry: string): number {
  return Number(entry.split(":")[0]);
}
function nodeIndex(entry: string): number {
  return articleGraph.nodes.indexOf(entry.split(":")[1]!);
}
