// Ported from LangGraph.js's "nested graph interrupts parallel" scenario: a child with its own
// static breakpoint runs beside a parallel sibling, with breakpoints of the parent before and
// after that sibling. The same scenario runs against @langchain/langgraph in the same test, so
// the expected outputs are LangGraph's own, not ours restated.
import { Annotation, START as LG_START, MemorySaver, StateGraph } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { MemoryCheckpointer } from "../../src/checkpoint/index.js";
import { Graph, START } from "../../src/index.js";

type Node = "inner" | "outer_1" | "outer_2";
type Breakpoints = { interruptBefore?: Node[]; interruptAfter?: Node[] };
/** What one call streamed in `values` mode, and where the thread stands after it. */
type Call = { values: string[]; next: string[] };

const concat = (a = "", b = "") => a + b;
const slowly = () => new Promise((resolve) => setTimeout(resolve, 5));

async function ours(breakpoints: Breakpoints, threadId: string): Promise<Call[]> {
  const inner = new Graph({ name: "inner" })
    .addReducer("my_key", concat)
    .addNode("inner_1", async () => {
      await slowly();
      return { my_key: " got here" };
    })
    .addNode("inner_2", () => ({ my_key: " and there" }))
    .addEdge(START, "inner_1")
    .addEdge("inner_1", "inner_2")
    .compile({ interruptBefore: ["inner_2"] });
  const outer = new Graph({ name: "outer" })
    .addReducer("my_key", concat)
    .addNode("inner", inner)
    .addNode("outer_1", () => ({ my_key: " and parallel" }))
    .addNode("outer_2", () => ({ my_key: " and back again" }))
    .addEdge(START, "inner")
    .addEdge(START, "outer_1")
    .addEdge(["inner", "outer_1"], "outer_2")
    .compile({ checkpointer: new MemoryCheckpointer(), ...breakpoints });
  const config = { configurable: { thread_id: threadId } };
  const calls: Call[] = [];
  let input: { my_key: string } | null = { my_key: "" };
  for (let i = 0; i < 4; i++) {
    const values: string[] = [];
    for await (const part of outer.stream(input, { config, streamMode: "values" }))
      values.push((part.data as { my_key: string }).my_key);
    const { next } = await outer.getState(config);
    calls.push({ values, next });
    if (next.length === 0) break;
    input = null;
  }
  return calls;
}

async function langGraphs(breakpoints: Breakpoints, threadId: string): Promise<Call[]> {
  const State = Annotation.Root({
    my_key: Annotation<string>({ reducer: concat, default: () => "" }),
  });
  const inner = new StateGraph(State)
    .addNode("inner_1", async () => {
      await slowly();
      return { my_key: " got here" };
    })
    .addNode("inner_2", () => ({ my_key: " and there" }))
    .addEdge(LG_START, "inner_1")
    .addEdge("inner_1", "inner_2")
    .compile({ interruptBefore: ["inner_2"] });
  const outer = new StateGraph(State)
    .addNode("inner", inner)
    .addNode("outer_1", () => ({ my_key: " and parallel" }))
    .addNode("outer_2", () => ({ my_key: " and back again" }))
    .addEdge(LG_START, "inner")
    .addEdge(LG_START, "outer_1")
    .addEdge(["inner", "outer_1"], "outer_2")
    .compile({ checkpointer: new MemorySaver(), ...breakpoints });
  const config = { configurable: { thread_id: threadId } };
  const calls: Call[] = [];
  let input: { my_key: string } | null = { my_key: "" };
  for (let i = 0; i < 4; i++) {
    const values: string[] = [];
    for await (const chunk of await outer.stream(input, { ...config, streamMode: "values" })) {
      // LangGraph.js also yields `{ __interrupt__ }` in values mode; ours says so in the
      // updates mode and the stream's return value (see docs/streaming.md).
      if ("my_key" in chunk) values.push(chunk.my_key);
    }
    const { next } = await outer.getState(config);
    calls.push({ values, next: [...next] });
    if (next.length === 0) break;
    input = null;
  }
  return calls;
}

describe("static breakpoints beside a parallel sibling of a child with its own breakpoint", () => {
  it("without parent breakpoints: the sibling's write shows before the child's pause, and continuing starts from the checkpoint", async () => {
    const expected: Call[] = [
      { values: ["", " and parallel"], next: ["inner"] },
      {
        values: [
          "",
          " got here and there and parallel",
          " got here and there and parallel and back again",
        ],
        next: [],
      },
    ];
    expect(await langGraphs({}, "none")).toEqual(expected);
    expect(await ours({}, "none")).toEqual(expected);
  });

  it("interruptBefore the sibling: it pauses first before both, then at the child's breakpoint after the sibling ran", async () => {
    const expected: Call[] = [
      { values: [""], next: ["inner", "outer_1"] },
      { values: ["", " and parallel"], next: ["inner"] },
      {
        values: [
          "",
          " got here and there and parallel",
          " got here and there and parallel and back again",
        ],
        next: [],
      },
    ];
    const breakpoints: Breakpoints = { interruptBefore: ["outer_1"] };
    expect(await langGraphs(breakpoints, "before")).toEqual(expected);
    expect(await ours(breakpoints, "before")).toEqual(expected);
  });

  it("interruptAfter the sibling: the child's pause comes first, the sibling's breakpoint once its step is done", async () => {
    const expected: Call[] = [
      { values: ["", " and parallel"], next: ["inner"] },
      { values: ["", " got here and there and parallel"], next: ["outer_2"] },
      {
        values: [
          " got here and there and parallel",
          " got here and there and parallel and back again",
        ],
        next: [],
      },
    ];
    const breakpoints: Breakpoints = { interruptAfter: ["outer_1"] };
    expect(await langGraphs(breakpoints, "after")).toEqual(expected);
    expect(await ours(breakpoints, "after")).toEqual(expected);
  });
});
