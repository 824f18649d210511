// A LangGraph.js subgraph streaming scenario: `updates` with `subgraphs: true` on a graph
// whose child pauses while a parallel sibling finishes. The same scenario runs against
// @langchain/langgraph in the same test. Where the two differ on purpose (LangGraph.js 1.7.3
// replays the sibling's update on resume, marked `__metadata__: { cached: true }`, and streams
// the pause as soon as the child stops), the test pins both sides; see docs/streaming.md.
import {
  Annotation,
  START as LG_START,
  Command as LgCommand,
  interrupt as lgInterrupt,
  MemorySaver,
  StateGraph,
} from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { MemoryCheckpointer } from "../../src/checkpoint/index.js";
import { Command, Graph, interrupt, START } from "../../src/index.js";

/** One streamed `updates` part: which run it came from ("" for the top) and what it says. */
type Part = { run: string; data: Record<string, unknown> };

const append = (a: string[] = [], b: string | string[] = []) => [...a, ...[b].flat()];
// The sibling outlasts the child's pause, so the step is still running when the child stops.
const slowly = () => new Promise((resolve) => setTimeout(resolve, 100));
/** A part with the interrupt ids and namespaces (which differ by library) left out. */
function shown(run: string, data: Record<string, unknown>): Part {
  const pause = data.__interrupt__ as Array<{ value: unknown }> | undefined;
  return {
    run: run === "" ? "" : run.split(":")[0]!,
    data: pause ? { __interrupt__: pause.map((i) => i.value) } : data,
  };
}

async function ours() {
  const ran: string[] = [];
  const child = new Graph({ name: "child" })
    .addReducer("log", append)
    .addNode("c1", () => {
      ran.push("c1");
      return { log: ["c1"] };
    })
    .addNode("c2", () => {
      ran.push("c2");
      return { log: [`c2:${interrupt("ok?")}`] };
    })
    .addEdge(START, "c1")
    .addEdge("c1", "c2")
    .compile();
  const graph = new Graph({ name: "parent" })
    .addReducer("log", append)
    .addNode("child", child)
    .addNode("sibling", async () => {
      ran.push("sibling");
      await slowly();
      return { log: ["sibling"] };
    })
    .addEdge(START, "child")
    .addEdge(START, "sibling")
    .compile({ checkpointer: new MemoryCheckpointer() });
  const config = { configurable: { thread_id: "streamed-pause" } };
  const options = { config, streamMode: "updates" as const, subgraphs: true };
  const first: Part[] = [];
  for await (const part of graph.stream({ log: [] }, options))
    first.push(shown(part.ns, part.data as Record<string, unknown>));
  const resumed: Part[] = [];
  for await (const part of graph.stream(new Command({ resume: "yes" }), options))
    resumed.push(shown(part.ns, part.data as Record<string, unknown>));
  return { first, resumed, ran, values: (await graph.getState(config)).values };
}

async function langGraphs() {
  const ran: string[] = [];
  const State = Annotation.Root({
    log: Annotation<string[], string | string[]>({ reducer: append, default: () => [] }),
  });
  const child = new StateGraph(State)
    .addNode("c1", () => {
      ran.push("c1");
      return { log: ["c1"] };
    })
    .addNode("c2", () => {
      ran.push("c2");
      return { log: [`c2:${lgInterrupt<string, string>("ok?")}`] };
    })
    .addEdge(LG_START, "c1")
    .addEdge("c1", "c2")
    .compile();
  const graph = new StateGraph(State)
    .addNode("child", child)
    .addNode("sibling", async () => {
      ran.push("sibling");
      await slowly();
      return { log: ["sibling"] };
    })
    .addEdge(LG_START, "child")
    .addEdge(LG_START, "sibling")
    .compile({ checkpointer: new MemorySaver() });
  const config = { configurable: { thread_id: "streamed-pause" } };
  const options = { ...config, streamMode: "updates" as const, subgraphs: true as const };
  const first: Part[] = [];
  for await (const [ns, data] of await graph.stream({ log: [] }, options))
    first.push(shown(ns.join("|"), data as Record<string, unknown>));
  const resumed: Part[] = [];
  for await (const [ns, data] of await graph.stream(new LgCommand({ resume: "yes" }), options))
    resumed.push(shown(ns.join("|"), data as Record<string, unknown>));
  return { first, resumed, ran, values: (await graph.getState(config)).values };
}

describe("streaming updates with subgraphs: true while a child pauses beside a finishing sibling", () => {
  it("streams the sibling's update once, before the pause, and does not run the sibling again on resume", async () => {
    const lg = await langGraphs();
    const sw = await ours();
    const childParts: Part[] = [
      { run: "child", data: { c1: { log: ["c1"] } } },
      { run: "child", data: { __interrupt__: ["ok?"] } },
    ];
    const sibling: Part = { run: "", data: { sibling: { log: ["sibling"] } } };
    const pause: Part = { run: "", data: { __interrupt__: ["ok?"] } };
    // Ours: the pause comes once every task of the step has settled, the sibling's update before it.
    expect(sw.first).toEqual([...childParts, sibling, pause]);
    // LangGraph.js streams the pause as the child stops, and the sibling's update after it.
    expect(lg.first).toEqual([...childParts, pause, sibling]);
    // Resumed: the child goes on from c2; the parent's part for it is the child's output state.
    expect(sw.resumed).toEqual([
      { run: "child", data: { c2: { log: ["c2:yes"] } } },
      { run: "", data: { child: { log: ["c1", "c2:yes"] } } },
    ]);
    // LangGraph.js replays the sibling's stored update first, marked as cached; its part for
    // the child is the child's output state too.
    expect(lg.resumed).toEqual([
      { run: "", data: { sibling: { log: ["sibling"] }, __metadata__: { cached: true } } },
      { run: "child", data: { c2: { log: ["c2:yes"] } } },
      { run: "", data: { child: { log: ["c1", "c2:yes"] } } },
    ]);
    // Neither runs the sibling again, and both end in the same state.
    const ran = ["sibling", "c1", "c2", "c2"];
    expect([...lg.ran].sort()).toEqual([...ran].sort());
    expect([...sw.ran].sort()).toEqual([...ran].sort());
    expect(sw.ran.filter((n) => n === "sibling")).toHaveLength(1);
    expect(sw.values).toEqual(lg.values);
    expect(sw.values).toEqual({ log: ["c1", "c2:yes", "sibling"] });
  });
});
