import { describe, expect, it } from "vitest";
import { MemoryCheckpointer } from "../../src/checkpoint/index.js";
import {
  Command,
  type CompiledGraph,
  END,
  Graph,
  interrupt,
  type NodeRuntime,
  START,
} from "../../src/index.js";
import { type GraphPath, graphPaths } from "../../src/testing/index.js";

const approval = new Graph({ name: "ApproveOrCancel" })
  .addNode("prepare", () => ({ ready: true }))
  .addNode(
    "approval",
    () => new Command({ goto: interrupt<boolean>("Proceed?") ? "proceed" : "cancel" }),
    { ends: ["proceed", "cancel"] },
  )
  .addNode("proceed", () => ({ outcome: "proceeded" }))
  .addNode("cancel", () => ({ outcome: "cancelled" }))
  .addNode("audit", () => ({ audited: true }))
  .addEdge(START, "prepare")
  .addEdge("prepare", "approval")
  .addConditionalEdges("proceed", (s) => (s.audit ? "audit" : END), { audit: "audit", [END]: END })
  .addEdge("cancel", END)
  .addEdge("audit", END)
  .compile({ checkpointer: new MemoryCheckpointer() });

/** Each node logs `<step>:<node>`, so a run shows which nodes ran together. */
const logged =
  (name: string, update: (s: any) => object = () => ({})) =>
  (s: any, runtime: NodeRuntime) => ({ ...update(s), log: [`${runtime.step}:${name}`] });

/** The agent's shape: the model calls tools until it answers (steered by `toolRounds`). */
const agent = new Graph({ name: "ToolLoop" })
  .addReducer("log", (a: string[] = [], u: string[]) => [...a, ...u])
  .addNode("model", logged("model"))
  .addNode(
    "tools",
    logged("tools", (s) => ({ calls: (s.calls ?? 0) + 1 })),
  )
  .addEdge(START, "model")
  .addConditionalEdges("model", (s) => ((s.calls ?? 0) < s.toolRounds ? "tools" : END), {
    tools: "tools",
    [END]: END,
  })
  .addEdge("tools", "model")
  .compile();

/**
 * A fan-out and its join inside a cycle, a Command and a router: plan starts research
 * and draft together, review waits for both, then revises (back to plan) or publishes,
 * and publishing may notify. Steered by `revisions` and `notify`.
 */
const review = new Graph({ name: "ReviewLoop" })
  .addReducer("log", (a: string[] = [], u: string[]) => [...a, ...u])
  .addNode("plan", logged("plan"))
  .addNode("research", logged("research"))
  .addNode("draft", logged("draft"))
  .addNode(
    "review",
    (s, runtime) =>
      new Command({
        goto: (s.round ?? 0) < s.revisions ? "revise" : "publish",
        update: { log: [`${runtime.step}:review`] },
      }),
    { ends: ["revise", "publish"] },
  )
  .addNode(
    "revise",
    logged("revise", (s) => ({ round: (s.round ?? 0) + 1 })),
  )
  .addNode("publish", logged("publish"))
  .addNode("notify", logged("notify"))
  .addEdge(START, "plan")
  .addEdge("plan", "research")
  .addEdge("plan", "draft")
  .addEdge(["research", "draft"], "review")
  .addEdge("revise", "plan")
  .addConditionalEdges("publish", (s) => (s.notify ? "notify" : END), ["notify", END])
  .addEdge("notify", END)
  .compile();

const descriptions = (graph: CompiledGraph<any, any>, options = {}) =>
  graphPaths(graph, options).map((p) => p.description);

/** The steps a run actually took, from its log: nodes grouped by super-step, in definition order. */
function stepsRan(graph: CompiledGraph<any, any>, log: string[]): string[][] {
  const byStep = new Map<number, string[]>();
  for (const entry of log) {
    const [step, node] = entry.split(":") as [string, string];
    byStep.set(Number(step), [...(byStep.get(Number(step)) ?? []), node]);
  }
  return [...byStep.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, nodes]) => nodes.sort((a, b) => graph.nodes.indexOf(a) - graph.nodes.indexOf(b)));
}

const takes = (path: GraphPath, from: string, to: string) =>
  path.edges.filter((e) => e.from === from && e.to === to).length;

describe("graphPaths", () => {
  it("lists one path per choice of a Command goto and of a router", () => {
    expect(descriptions(approval)).toEqual([
      "prepare -> approval -> cancel",
      "prepare -> approval -> proceed",
      "prepare -> approval -> proceed -> audit",
    ]);
  });

  it("a fan-out and its join are one path, whose step runs both branches", () => {
    const fanOut = new Graph()
      .addNode("fan", () => ({}))
      .addNode("left", () => ({}))
      .addNode("right", () => ({}))
      .addNode("join", () => ({}))
      .addEdge(START, "fan")
      .addEdge("fan", "left")
      .addEdge("fan", "right")
      .addEdge(["left", "right"], "join")
      .addEdge("join", END)
      .compile();
    const paths = graphPaths(fanOut);
    expect(paths.map((p) => p.steps)).toEqual([[["fan"], ["left", "right"], ["join"]]]);
    expect(paths[0]!.description).toBe("fan -> left + right -> join");
  });

  it("a join waits for sources that finish in different steps", () => {
    const uneven = new Graph()
      .addNode("a", () => ({}))
      .addNode("short", () => ({}))
      .addNode("long1", () => ({}))
      .addNode("long2", () => ({}))
      .addNode("join", () => ({}))
      .addEdge(START, "a")
      .addEdge("a", "short")
      .addEdge("a", "long1")
      .addEdge("long1", "long2")
      .addEdge(["short", "long2"], "join")
      .compile();
    expect(descriptions(uneven)).toEqual(["a -> short + long1 -> long2 -> join"]);
  });

  it("lists a path through the tools of a tool-loop agent, unrolling the loop up to maxVisits", () => {
    expect(descriptions(agent)).toEqual(["model", "model -> tools -> model"]);
    expect(descriptions(agent, { maxVisits: 3 })).toEqual([
      "model",
      "model -> tools -> model",
      "model -> tools -> model -> tools -> model",
    ]);
  });

  it("unrolls a cycle through a fan-out and its join", () => {
    expect(descriptions(review)).toEqual([
      "plan -> research + draft -> review -> publish",
      "plan -> research + draft -> review -> publish -> notify",
      "plan -> research + draft -> review -> revise -> plan -> research + draft -> review -> publish",
      "plan -> research + draft -> review -> revise -> plan -> research + draft -> review -> publish -> notify",
    ]);
  });

  it("covers every declared edge with some path", () => {
    for (const graph of [approval, agent, review]) {
      const key = (e: { from: string; to: string; kind: string }) =>
        `${e.from} -${e.kind}-> ${e.to}`;
      const covered = new Set(graphPaths(graph).flatMap((p) => p.edges.map(key)));
      expect(
        graph.edges.map(key).filter((k) => !covered.has(k)),
        graph.name,
      ).toEqual([]);
    }
  });

  it("drives each path: a run steered by the path's choices takes exactly its steps", async () => {
    for (const path of graphPaths(review)) {
      const input = {
        revisions: takes(path, "review", "revise"),
        notify: takes(path, "publish", "notify") > 0,
      };
      const run = await review.invoke(input);
      expect(stepsRan(review, run.state.log), path.description).toEqual(path.steps);
    }
    for (const path of graphPaths(agent, { maxVisits: 3 })) {
      const run = await agent.invoke({ toolRounds: takes(path, "model", "tools") });
      expect(stepsRan(agent, run.state.log), path.description).toEqual(path.steps);
    }
  });

  it("drives the approval flow's paths through its interrupt", async () => {
    let thread = 0;
    for (const path of graphPaths(approval)) {
      const config = { configurable: { thread_id: `path-${++thread}` } };
      const goesOn = takes(path, "approval", "proceed") > 0;
      await approval.invoke({ audit: takes(path, "proceed", "audit") > 0 }, { config });
      const done = await approval.resume(goesOn, { config });
      expect(done.state.outcome).toBe(goesOn ? "proceeded" : "cancelled");
      expect(done.state.audited === true).toBe(path.steps.flat().includes("audit"));
    }
  });

  it("gives up past 100 machine states per path the limit allows, and says what to change", () => {
    expect(() => graphPaths(agent, { maxVisits: 80, limit: 1 })).toThrow(
      /more than 100 states \(for at most 1 paths\) through graph "ToolLoop"\. Lower maxVisits \(now 80\) or raise limit/,
    );
    expect(graphPaths(agent, { maxVisits: 80 })).toHaveLength(80);
  });

  it("refuses to list more paths than the limit, and says what to change", () => {
    expect(() => graphPaths(review, { limit: 3 })).toThrow(
      /more than 3 paths through graph "ReviewLoop"\. Lower maxVisits \(now 2\) or raise limit/,
    );
  });
});
