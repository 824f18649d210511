/** The benchmark graphs, built with LangGraph.js: the same shapes as `ours.ts`. */
import {
  Annotation,
  type BaseCheckpointSaver,
  END,
  interrupt,
  START,
  StateGraph,
} from "@langchain/langgraph";

const Counter = Annotation.Root({ n: Annotation<number> });

/** `n` nodes in a line, each adding 1 to `n`. */
export function chain(length: number, checkpointer?: BaseCheckpointSaver) {
  // Node names are built in a loop, so the builder's literal node-name types cannot follow.
  const graph: any = new StateGraph(Counter);
  for (let i = 0; i < length; i++) {
    graph.addNode(`n${i}`, (s: typeof Counter.State) => ({ n: s.n + 1 }));
  }
  graph.addEdge(START, "n0");
  for (let i = 1; i < length; i++) graph.addEdge(`n${i - 1}`, `n${i}`);
  graph.addEdge(`n${length - 1}`, END);
  return graph.compile(checkpointer ? { checkpointer } : {}) as {
    invoke(input: unknown, config?: unknown): Promise<typeof Counter.State>;
  };
}

const Review = Annotation.Root({
  details: Annotation<string>,
  approved: Annotation<unknown>,
});

/** One node that asks for approval with `interrupt()` and stores the answer. */
export function approval(checkpointer: BaseCheckpointSaver) {
  return new StateGraph(Review)
    .addNode("approval", (s) => ({
      approved: interrupt({ question: "Go ahead with this?", details: s.details }),
    }))
    .addEdge(START, "approval")
    .addEdge("approval", END)
    .compile({ checkpointer }) as {
    // What invoke returns: the state, plus `__interrupt__` while paused.
    invoke(
      input: unknown,
      config: unknown,
    ): Promise<{
      details?: string;
      approved?: unknown;
      __interrupt__?: Array<{ id?: string; value: unknown }>;
    }>;
  };
}

const Items = Annotation.Root({
  items: Annotation<number[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
  count: Annotation<number>,
});

/** `width` nodes run in one step, each appending its index to `items`; then a join counts them. */
export function fanOut(width: number) {
  const graph: any = new StateGraph(Items);
  const branches: string[] = [];
  for (let i = 0; i < width; i++) {
    const name = `p${i}`;
    branches.push(name);
    graph.addNode(name, () => ({ items: [i] }));
    graph.addEdge(START, name);
  }
  graph.addNode("join", (s: typeof Items.State) => ({ count: s.items.length }));
  graph.addEdge(branches, "join");
  graph.addEdge("join", END);
  return graph.compile() as { invoke(input: unknown): Promise<typeof Items.State> };
}
