import { describe, expect, it } from "vitest";
import { Command, END, Graph, GraphValidationError, START } from "../../src/index.js";

const noop = () => ({});

describe("compile-time validation", () => {
  it("rejects an edge to an unknown node and names it", () => {
    const g = new Graph().addNode("a", noop).addEdge(START, "a").addEdge("a", "ghost");
    expect(() => g.compile()).toThrow(GraphValidationError);
    expect(() => g.compile()).toThrow(/unknown node "ghost"/);
  });

  it("rejects an edge from an unknown node", () => {
    const g = new Graph().addNode("a", noop).addEdge(START, "a").addEdge("nope", "a");
    expect(() => g.compile()).toThrow(/starts at unknown node "nope"/);
  });

  it("rejects a duplicate node", () => {
    expect(() => new Graph().addNode("a", noop).addNode("a", noop)).toThrow(/already defined/);
  });

  it("rejects reserved node names", () => {
    expect(() => new Graph().addNode(START, noop)).toThrow(/reserved/);
    expect(() => new Graph().addNode(END, noop)).toThrow(/reserved/);
    expect(() => new Graph().addNode("__fanout__", noop)).toThrow(/reserved/);
    expect(() => new Graph().addNode("a|b", noop)).toThrow(GraphValidationError);
  });

  it("rejects a node unreachable from START", () => {
    const g = new Graph().addNode("a", noop).addNode("island", noop).addEdge(START, "a");
    expect(() => g.compile()).toThrow(/"island" cannot be reached from START/);
  });

  it("asks for ends on the node that returns a Command when its goto target is unreachable", () => {
    const g = new Graph()
      .addNode("pick", () => new Command({ goto: "later" }))
      .addNode("later", noop)
      .addEdge(START, "pick");
    expect(() => g.compile()).toThrow(
      /"later" cannot be reached from START.*Command\(\{ goto \}\), declare it in that node's ends: addNode\("pick", fn, \{ ends: \["later"\] \}\)/,
    );
    const fixed = new Graph()
      .addNode("pick", () => new Command({ goto: "later" }), { ends: ["later"] })
      .addNode("later", noop)
      .addEdge(START, "pick");
    expect(() => fixed.compile()).not.toThrow();
  });

  it("never names END as the node to give ends when a reached node leads to END", () => {
    const g = new Graph()
      .addNode("pick", () => new Command({ goto: "later" }))
      .addNode("later", noop)
      .addEdge(START, "pick")
      .addEdge("pick", END);
    expect(() => g.compile()).toThrow(/addNode\(<the node returning the Command>, fn/);
    expect(() => g.compile()).not.toThrow(/__end__/);
  });

  it("rejects a graph with no edge out of START", () => {
    const g = new Graph().addNode("a", noop).addEdge("a", END);
    expect(() => g.compile()).toThrow(/no edge out of START/);
  });

  it("rejects a pathMap target that is not a node", () => {
    const g = new Graph()
      .addNode("a", noop)
      .addEdge(START, "a")
      .addConditionalEdges("a", () => "x", { x: "missing" });
    expect(() => g.compile()).toThrow(/unknown node "missing"/);
  });

  it("rejects ends naming an unknown node", () => {
    const g = new Graph().addNode("a", noop, { ends: ["elsewhere"] }).addEdge(START, "a");
    expect(() => g.compile()).toThrow(/Node "a" ends points at unknown node "elsewhere"/);
  });

  it("rejects a breakpoint on an unknown node", () => {
    const g = new Graph().addNode("a", noop).addEdge(START, "a");
    expect(() => g.compile({ interruptBefore: ["b"] })).toThrow(/Breakpoint on unknown node "b"/);
  });

  it("counts pathMap targets and ends as reachable", () => {
    const g = new Graph()
      .addNode("a", noop, { ends: ["c"] })
      .addNode("b", noop)
      .addNode("c", noop)
      .addEdge(START, "a")
      .addConditionalEdges("a", () => "b", ["b"]);
    expect(() => g.compile()).not.toThrow();
  });
});
