/** The benchmark graphs, built with stateweaver. `langgraph.ts` builds the same ones. */

import * as stateweaver from "stateweaver";
import type { Checkpointer } from "stateweaver/checkpoint";

/**
 * What the graphs are built from: this checkout's `stateweaver`, or another build's modules
 * loaded by path (the scripts that compare builds pass theirs).
 */
export type GraphModule = Pick<typeof stateweaver, "Graph" | "START" | "END" | "interrupt">;

/** `n` nodes in a line, each adding 1 to `n`. */
export function chain(
  length: number,
  checkpointer?: Checkpointer,
  core: GraphModule = stateweaver,
) {
  const { Graph, START, END } = core;
  const graph = new Graph({ name: `Chain${length}` });
  for (let i = 0; i < length; i++) graph.addNode(`n${i}`, (s) => ({ n: s.n + 1 }));
  graph.addEdge(START, "n0");
  for (let i = 1; i < length; i++) graph.addEdge(`n${i - 1}`, `n${i}`);
  graph.addEdge(`n${length - 1}`, END);
  return graph.compile(checkpointer ? { checkpointer } : {});
}

/** One node that asks for approval with `interrupt()` and stores the answer. */
export function approval(checkpointer: Checkpointer, core: GraphModule = stateweaver) {
  const { Graph, START, END, interrupt } = core;
  return new Graph({ name: "Approval" })
    .addNode("approval", (s) => ({
      approved: interrupt({ question: "Go ahead with this?", details: s.details }),
    }))
    .addEdge(START, "approval")
    .addEdge("approval", END)
    .compile({ checkpointer });
}

/** `width` nodes run in one step, each appending its index to `items`; then a join counts them. */
export function fanOut(width: number, core: GraphModule = stateweaver) {
  const { Graph, START, END } = core;
  const graph = new Graph({ name: `FanOut${width}` }).addReducer(
    "items",
    (existing: number[] = [], update: number[]) => existing.concat(update),
  );
  const branches: string[] = [];
  for (let i = 0; i < width; i++) {
    const name = `p${i}`;
    branches.push(name);
    graph.addNode(name, () => ({ items: [i] })).addEdge(START, name);
  }
  graph.addNode("join", (s) => ({ count: s.items.length }));
  graph.addEdge(branches, "join").addEdge("join", END);
  return graph.compile();
}
