// A LangGraph.js time-travel scenario: updateState(config, null) on the checkpoint before a
// node that interrupts. The same scenario runs against @langchain/langgraph in the
// same test, so what is expected is LangGraph's own behaviour.
import {
  Annotation,
  START as LG_START,
  interrupt as lgInterrupt,
  MemorySaver,
  StateGraph,
} from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { MemoryCheckpointer } from "../../src/checkpoint/index.js";
import { Graph, interrupt, START } from "../../src/index.js";

/** What the fork looks like, and what continuing it does. */
type Outcome = {
  source: unknown;
  next: string[];
  pendingBeforeContinuing: number;
  values: Record<string, unknown>;
  firedAgain: unknown;
  asked: string[];
};

async function ours(): Promise<Outcome> {
  const asked: string[] = [];
  const graph = new Graph({ name: "Draft" })
    .addNode("write", () => ({ topic: "owls" }))
    .addNode("ask", () => {
      asked.push("ask");
      return { answer: interrupt("Publish?") };
    })
    .addEdge(START, "write")
    .addEdge("write", "ask")
    .compile({ checkpointer: new MemoryCheckpointer() });
  const config = { configurable: { thread_id: "fork-null" } };
  await graph.invoke({ topic: "" }, { config });
  const history = [];
  for await (const s of graph.getStateHistory(config)) history.push(s);
  // Ours too keeps the interrupt as a pending write of the checkpoint before "ask".
  const before = history.find((s) => s.next[0] === "ask")!;
  const fork = await graph.updateState(before.config, null);
  const state = await graph.getState(fork);
  asked.length = 0;
  const again = await graph.invoke(null, { config: fork });
  return {
    source: state.metadata?.source,
    next: state.next,
    pendingBeforeContinuing: state.interrupts.length,
    values: state.values,
    firedAgain: again.status === "interrupted" ? again.interrupt.value : undefined,
    asked,
  };
}

async function langGraphs(): Promise<Outcome> {
  const asked: string[] = [];
  const State = Annotation.Root({ topic: Annotation<string>, answer: Annotation<string> });
  const graph = new StateGraph(State)
    .addNode("write", () => ({ topic: "owls" }))
    .addNode("ask", () => {
      asked.push("ask");
      return { answer: lgInterrupt<string, string>("Publish?") };
    })
    .addEdge(LG_START, "write")
    .addEdge("write", "ask")
    .compile({ checkpointer: new MemorySaver() });
  const config = { configurable: { thread_id: "fork-null" } };
  await graph.invoke({ topic: "" }, config);
  const history = [];
  for await (const s of graph.getStateHistory(config)) history.push(s);
  // LangGraph keeps the interrupt as a pending write of the checkpoint before "ask".
  const before = history.find((s) => s.next[0] === "ask")!;
  const fork = await graph.updateState(before.config, null);
  const state = await graph.getState(fork);
  asked.length = 0;
  const again = (await graph.invoke(null, fork)) as {
    __interrupt__?: Array<{ value: unknown }>;
  };
  return {
    source: state.metadata?.source,
    next: [...state.next],
    pendingBeforeContinuing: state.tasks.reduce((n, t) => n + t.interrupts.length, 0),
    values: state.values,
    firedAgain: again.__interrupt__?.[0]?.value,
    asked,
  };
}

describe("updateState(config, null) on the checkpoint before a node that interrupts", () => {
  it("makes a fork (source 'update') whose invoke(null) runs the node and fires its interrupt again", async () => {
    const expected: Outcome = {
      source: "update",
      next: ["ask"],
      pendingBeforeContinuing: 0,
      values: { topic: "owls" },
      firedAgain: "Publish?",
      asked: ["ask"],
    };
    expect(await langGraphs()).toEqual(expected);
    expect(await ours()).toEqual(expected);
  });
});
