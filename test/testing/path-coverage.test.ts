import { describe, expect, it } from "vitest";
import { MemoryCheckpointer } from "../../src/checkpoint/index.js";
import { Command, END, Graph, type GraphEdge, interrupt, START } from "../../src/index.js";
import { graphPaths, pathCoverage } from "../../src/testing/index.js";

const key = (e: GraphEdge) => `${e.from} -${e.kind}-> ${e.to}`;

/** The model calls tools until it has done `toolRounds` rounds, then answers. */
const agent = new Graph({ name: "ToolLoop" })
  .addNode("model", () => ({}))
  .addNode("tools", (s) => ({ calls: (s.calls ?? 0) + 1 }))
  .addEdge(START, "model")
  .addConditionalEdges(
    "model",
    function shouldCallTools(s) {
      return (s.calls ?? 0) < s.toolRounds ? "call" : "answer";
    },
    { call: "tools", answer: END },
  )
  .addEdge("tools", "model")
  .compile();

/** Plan fans out to research and draft, review joins them and revises or publishes. */
const review = new Graph({ name: "ReviewLoop" })
  .addNode("plan", () => ({}))
  .addNode("research", () => ({}))
  .addNode("draft", () => ({}))
  .addNode(
    "review",
    (s) => new Command({ goto: (s.round ?? 0) < s.revisions ? "revise" : "publish" }),
    { ends: ["revise", "publish"] },
  )
  .addNode("revise", (s) => ({ round: (s.round ?? 0) + 1 }))
  .addNode("publish", () => ({}))
  .addNode("notify", () => ({}))
  .addEdge(START, "plan")
  .addEdge("plan", "research")
  .addEdge("plan", "draft")
  .addEdge(["research", "draft"], "review")
  .addEdge("revise", "plan")
  .addConditionalEdges("publish", (s) => (s.notify ? "notify" : END), ["notify", END])
  .addEdge("notify", END)
  .compile();

describe("pathCoverage", () => {
  it("reports the paths and edges an input covered, and the edges no input reached", async () => {
    const coverage = await pathCoverage(agent, [{ toolRounds: 0 }]);
    expect(coverage.paths.covered.map((p) => p.description)).toEqual(["model"]);
    expect(coverage.paths.missed.map((p) => p.description)).toEqual(["model -> tools -> model"]);
    expect(coverage.edges.covered.map(key)).toEqual([
      "__start__ -edge-> model",
      "model -conditional-> __end__",
    ]);
    expect(coverage.edges.missed.map(key)).toEqual([
      "tools -edge-> model",
      "model -conditional-> tools",
    ]);
  });

  it("reaches every edge and path once the inputs steer each router both ways", async () => {
    const coverage = await pathCoverage(agent, [{ toolRounds: 0 }, { toolRounds: 1 }]);
    expect(coverage.edges.missed).toEqual([]);
    expect(coverage.paths.missed).toEqual([]);
    expect(coverage.runs.map((r) => r.path?.description)).toEqual([
      "model",
      "model -> tools -> model",
    ]);
  });

  it("follows super-steps: a fan-out runs as one step and its join fires after both", async () => {
    const coverage = await pathCoverage(review, [{ revisions: 0, notify: false }]);
    const [run] = coverage.runs;
    expect(run!.status).toBe("done");
    expect(run!.steps).toEqual([["plan"], ["research", "draft"], ["review"], ["publish"]]);
    expect(run!.path?.description).toBe("plan -> research + draft -> review -> publish");
    expect(run!.edges.map(key)).toContain("research -join-> review");
    expect(coverage.edges.missed.map(key)).toEqual([
      "revise -edge-> plan",
      "notify -edge-> __end__",
      "publish -conditional-> notify",
      "review -command-> revise",
    ]);
  });

  it("a run steered by each path's choices covers that path and all the graph's edges", async () => {
    const inputs = graphPaths(review).map((path) => ({
      revisions: path.edges.filter((e) => e.to === "revise").length,
      notify: path.edges.some((e) => e.to === "notify"),
    }));
    const coverage = await pathCoverage(review, inputs);
    expect(coverage.runs.map((r) => r.path)).toEqual(graphPaths(review));
    expect(coverage.paths.missed).toEqual([]);
    expect(coverage.edges.missed).toEqual([]);
  });

  it("counts a run past the unrolled cycles by its edges, with no path of its own", async () => {
    const coverage = await pathCoverage(agent, [{ toolRounds: 3 }]);
    expect(coverage.runs[0]!.path).toBeUndefined();
    expect(coverage.runs[0]!.steps).toHaveLength(7);
    expect(coverage.paths.covered).toEqual([]);
    expect(coverage.edges.missed).toEqual([]);
  });

  it("answers interrupts through resume, each run on its own thread", async () => {
    const approval = new Graph({ name: "Approval" })
      .addNode(
        "approve",
        () => new Command({ goto: interrupt<boolean>("Proceed?") ? "proceed" : "cancel" }),
        { ends: ["proceed", "cancel"] },
      )
      .addNode("proceed", () => ({ outcome: "proceeded" }))
      .addNode("cancel", () => ({ outcome: "cancelled" }))
      .addEdge(START, "approve")
      .addEdge("proceed", END)
      .addEdge("cancel", END)
      .compile({ checkpointer: new MemoryCheckpointer() });
    const paused = await pathCoverage(approval, [{ approve: true }]);
    expect(paused.runs[0]!.status).toBe("interrupted");
    expect(paused.runs[0]!.path).toBeUndefined();
    expect(paused.edges.covered.map(key)).toEqual(["__start__ -edge-> approve"]);

    const answered = await pathCoverage(approval, [{ approve: true }, { approve: false }], {
      resume: ({ input, interrupts }) =>
        interrupts[0]!.value === "Proceed?" ? (input as { approve: boolean }).approve : undefined,
    });
    expect(answered.runs.map((r) => r.status)).toEqual(["done", "done"]);
    expect(answered.runs.map((r) => r.steps)).toEqual([
      [["approve"], ["proceed"]],
      [["approve"], ["cancel"]],
    ]);
    expect(answered.edges.missed).toEqual([]);
  });

  it("keeps what a failing run covered before it threw, and the error", async () => {
    const failing = new Graph({ name: "Failing" })
      .addNode("a", () => ({}))
      .addNode("b", () => {
        throw new Error("b broke");
      })
      .addEdge(START, "a")
      .addEdge("a", "b")
      .addEdge("b", END)
      .compile();
    const coverage = await pathCoverage(failing, [{}]);
    expect(coverage.runs[0]!.status).toBe("failed");
    expect(String(coverage.runs[0]!.error)).toMatch(/b broke/);
    expect(coverage.runs[0]!.steps).toEqual([["a"]]);
    expect(coverage.edges.missed.map(key)).toEqual(["b -edge-> __end__"]);
  });
  it("goes on past static breakpoints: they are no choice", async () => {
    const held = new Graph({ name: "Held" })
      .addNode("a", () => ({}))
      .addNode("b", () => ({}))
      .addEdge(START, "a")
      .addEdge("a", "b")
      .addEdge("b", END)
      .compile({
        checkpointer: new MemoryCheckpointer(),
        interruptBefore: ["b"],
        interruptAfter: ["a"],
      });
    const coverage = await pathCoverage(held, [{}]);
    expect(coverage.runs[0]!.status).toBe("done");
    expect(coverage.runs[0]!.steps).toEqual([["a"], ["b"]]);
    expect(coverage.edges.missed).toEqual([]);
  });
});
