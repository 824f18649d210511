import { getAdjacencyMap, getSimplePaths } from "@xstate/graph";
import { describe, expect, it } from "vitest";
import { approvalGraph } from "../../examples/actor-snapshot/approval-graph.js";
import { articleGraph } from "../../examples/model-based/article-graph.js";
import { createAgent } from "../../src/agent/index.js";
import { Command, type CompiledGraph, END, Graph, START } from "../../src/index.js";
import { FakeChatModel } from "../../src/models/index.js";
import { graphPaths } from "../../src/testing/index.js";
import { randomGraph } from "../graph/fixtures/random-shapes.js";

/**
 * One way through a graph, as both sides can say it: the nodes of each super-step, and the
 * choices taken (as the inspection machine's event types), in order.
 */
type Way = { steps: string[][]; choices: string[] };

function waysByXState(graph: CompiledGraph<any, any>, maxVisits?: number): Way[] {
  const walks = getSimplePaths(graph.inspectionMachine({ maxVisits }), {
    toState: (s) => s.status === "done",
  });
  return sorted(
    walks.map((walk) => {
      const steps: string[][] = [];
      for (const { state } of walk.steps) {
        if (state.value === START || state.value === END) continue;
        const step = state.context.superstep - 1;
        steps[step] = [...(steps[step] ?? []), state.value as string];
      }
      // The first step is the initial state, reached by `xstate.init`.
      const choices = walk.steps
        .slice(1)
        .map((s) => s.event.type)
        .filter((t) => t !== "NEXT");
      return { steps, choices };
    }),
  );
}

function waysByGraphPaths(graph: CompiledGraph<any, any>, maxVisits?: number): Way[] {
  return sorted(
    graphPaths(graph, { maxVisits }).map((path) => ({
      steps: path.steps,
      choices: path.edges
        .filter((e) => e.kind === "conditional" || e.kind === "command")
        .map((e) => `${e.kind === "command" ? "goto" : "route"} ${e.from} -> ${e.to}`),
    })),
  );
}

const sorted = (ways: Way[]) => ways.map((w) => JSON.stringify(w)).sort() as unknown as Way[];

/** Shapes the random graphs may miss: routers at START and without a path map, joins into END. */
const corners = [
  new Graph({ name: "StartRouter" })
    .addNode("a", () => ({}))
    .addNode("b", () => ({}))
    .addConditionalEdges(START, (s) => (s.left ? "a" : "b"), ["a", "b"])
    .addEdge("a", END)
    .addEdge("b", END)
    .compile(),
  new Graph({ name: "Anywhere" })
    .addNode("pick", () => ({}))
    .addNode("x", () => ({}))
    .addEdge(START, "pick")
    .addConditionalEdges("pick", (s) => s.to)
    .compile(),
  new Graph({ name: "JoinIntoEnd" })
    .addNode("a", () => ({}))
    .addNode("b", () => ({}))
    .addNode("c", () => ({}))
    .addEdge(START, "a")
    .addEdge("a", "b")
    .addEdge("a", "c")
    .addEdge(["b", "c"], END)
    .compile(),
  new Graph({ name: "RouterAndCommandToOneNode" })
    .addNode("a", () => new Command({ goto: "b" }), { ends: ["b", "c"] })
    .addNode("b", () => ({}))
    .addNode("c", () => ({}))
    .addEdge(START, "a")
    .addConditionalEdges("a", () => "b", ["b", END])
    .compile(),
];

const agent = createAgent({
  name: "Helper",
  model: new FakeChatModel({ responses: ["hi"] }),
  tools: [],
});

describe("graphPaths and @xstate/graph on the inspection machine", () => {
  for (const graph of [...corners, approvalGraph, articleGraph, agent] as CompiledGraph<
    any,
    any
  >[]) {
    it(`${graph.name}: list the same ways through the graph, up to maxVisits 1, 2 and 3`, () => {
      for (const maxVisits of [1, 2, 3]) {
        const ways = waysByGraphPaths(graph, maxVisits);
        expect(ways.length, `${graph.name}, maxVisits ${maxVisits}`).toBeGreaterThan(0);
        expect(waysByXState(graph, maxVisits), `maxVisits ${maxVisits}`).toEqual(ways);
      }
    });
  }

  it("list the same ways through random graphs (routers, Sends, Commands, joins, cycles)", () => {
    let compared = 0;
    for (let seed = 0; seed < 60; seed++) {
      let graph: CompiledGraph<any, any>;
      try {
        graph = randomGraph(seed).compile() as CompiledGraph<any, any>;
      } catch {
        continue; // a shape compile() refuses has no paths to list
      }
      // getSimplePaths searches from the start for every state it knows: keep to small machines.
      if (Object.keys(getAdjacencyMap(graph.inspectionMachine(), {})).length > 120) continue;
      expect(waysByXState(graph), graph.name).toEqual(waysByGraphPaths(graph));
      compared++;
    }
    expect(compared).toBeGreaterThan(30);
  }, 60_000);
});
