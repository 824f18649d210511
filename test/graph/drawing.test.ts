import { describe, expect, it } from "vitest";
import { createAgent } from "../../src/agent/index.js";
import { MemoryCheckpointer } from "../../src/checkpoint/index.js";
import {
  Command,
  drawingToMermaid,
  drawingToSvg,
  END,
  Graph,
  interrupt,
  layoutDrawing,
  Send,
  START,
} from "../../src/index.js";
import { FakeChatModel } from "../../src/models/index.js";

/** Support triage: a named router with a path map, a join, a Command and an interrupt. */
const support = new Graph({ name: "Support" })
  .addNode("classify", () => ({}))
  .addNode("lookup", () => ({}))
  .addNode("draft", () => ({}))
  .addNode(
    "approve",
    () => new Command({ goto: interrupt<boolean>("Send this reply?") ? "send" : "draft" }),
    { ends: ["send", "draft"] },
  )
  .addNode("send", () => ({}))
  .addNode("escalate", () => ({}))
  .addEdge(START, "classify")
  .addConditionalEdges(
    "classify",
    function byUrgency(s) {
      return s.urgent ? "urgent" : "routine";
    },
    { routine: "lookup", urgent: "escalate" },
  )
  .addEdge("classify", "draft")
  .addEdge(["lookup", "draft"], "approve")
  .addEdge("send", END)
  .addEdge("escalate", END)
  .compile({ checkpointer: new MemoryCheckpointer() });

describe("graph.drawing()", () => {
  it("lists START, the nodes and END, and every declared edge with its kind and label", () => {
    const drawing = support.drawing();
    expect(drawing.nodes.map((n) => [n.id, n.label, n.kind])).toEqual([
      [START, "START", "start"],
      ["classify", "classify", "node"],
      ["lookup", "lookup", "node"],
      ["draft", "draft", "node"],
      ["approve", "approve", "node"],
      ["send", "send", "node"],
      ["escalate", "escalate", "node"],
      [END, "END", "end"],
    ]);
    expect(drawing.edges).toEqual([
      { from: START, to: "classify", kind: "edge" },
      { from: "classify", to: "draft", kind: "edge" },
      { from: "send", to: END, kind: "edge" },
      { from: "escalate", to: END, kind: "edge" },
      { from: "lookup", to: "approve", kind: "join" },
      { from: "draft", to: "approve", kind: "join" },
      {
        from: "classify",
        to: "lookup",
        kind: "conditional",
        label: "routine",
        router: "byUrgency",
      },
      {
        from: "classify",
        to: "escalate",
        kind: "conditional",
        label: "urgent",
        router: "byUrgency",
      },
      { from: "approve", to: "send", kind: "command" },
      { from: "approve", to: "draft", kind: "command" },
    ]);
    expect(drawing.waitingAt).toEqual([]);
    // Plain data: what a server sends to the web inbox as JSON, unchanged.
    expect(JSON.parse(JSON.stringify(drawing))).toEqual(drawing);
  });

  it("graph.edges carries the same labels and router names", () => {
    expect(support.edges.filter((e) => e.kind === "conditional")).toEqual(
      support.drawing().edges.filter((e) => e.kind === "conditional"),
    );
  });

  it("marks where a thread waits, from its StateSnapshot", async () => {
    const config = { configurable: { thread_id: "drawing-waits-1" } };
    const run = await support.invoke({ urgent: false }, { config });
    expect(run.status).toBe("interrupted");
    const drawing = support.drawing(await support.getState(config));
    expect(drawing.waitingAt).toEqual(["approve"]);
    expect(drawing.nodes.filter((n) => n.waiting).map((n) => n.id)).toEqual(["approve"]);

    await support.resume(true, { config });
    expect(support.drawing(await support.getState(config)).waitingAt).toEqual([]);
  });

  it("labels a path-map key as END when the router's result is END itself", () => {
    const g = new Graph({ name: "Loop" })
      .addNode("work", () => ({}))
      .addEdge(START, "work")
      .addConditionalEdges("work", () => "stop", { again: "work", stop: END, [END]: END })
      .compile();
    expect(g.drawing().edges.filter((e) => e.kind === "conditional")).toEqual([
      { from: "work", to: "work", kind: "conditional", label: "again" },
      { from: "work", to: END, kind: "conditional", label: "stop | END" },
    ]);
  });
});

describe("graph.toMermaid()", () => {
  it("draws static edges solid, joins thick, conditional edges and Command ends dashed with labels", () => {
    expect(support.toMermaid()).toBe(
      [
        "flowchart TD",
        '  __start__(["START"])',
        '  classify["classify"]',
        '  lookup["lookup"]',
        '  draft["draft"]',
        '  approve["approve"]',
        '  send["send"]',
        '  escalate["escalate"]',
        '  __end__(["END"])',
        "  __start__ --> classify",
        "  classify --> draft",
        "  send --> __end__",
        "  escalate --> __end__",
        "  lookup ==> approve",
        "  draft ==> approve",
        '  classify -.->|"routine"| lookup',
        '  classify -.->|"urgent"| escalate',
        '  approve -.->|"goto"| send',
        '  approve -.->|"goto"| draft',
        "",
      ].join("\n"),
    );
  });

  it("marks the nodes a thread waits at with the waiting class", () => {
    const text = drawingToMermaid(support.drawing({ next: ["approve"] }));
    expect(text).toContain("  class approve waiting\n");
  });

  it("gives nodes Mermaid cannot read as ids safe ids, keeping their names as labels", () => {
    const inner = new Graph({ name: "Inner" })
      .addNode("x", () => ({}))
      .addEdge(START, "x")
      .compile();
    const g = new Graph({ name: "Odd" })
      .addNode("end", () => ({}))
      .addNode('say "hi" twice', () => ({}))
      .addNode("inner", inner)
      .addEdge(START, "end")
      .addEdge("end", 'say "hi" twice')
      .addEdge('say "hi" twice', "inner")
      .compile();
    const text = g.toMermaid();
    expect(text).toContain('  n1["end"]');
    expect(text).toContain('  n2["say #quot;hi#quot; twice"]');
    expect(text).toContain('  inner[["inner"]]');
    expect(text).toContain("  n1 --> n2\n  n2 --> inner");
  });

  it("draws an agent: the model, its tools and the router between them", () => {
    const agent = createAgent({ model: new FakeChatModel({ responses: ["hi"] }), tools: [] });
    const text = agent.toMermaid();
    expect(text).toContain("  __start__ --> model");
    expect(text).toContain("  model -.-> tools");
    expect(text).toContain("  model -.-> __end__");
    expect(text).toContain('  tools -.->|"goto"| model');
  });
});

describe("layoutDrawing", () => {
  it("places boxes without overlap, rows top to bottom, and sends cycle edges back up", () => {
    const g = new Graph({ name: "Cycle" })
      .addNode("a", () => ({}))
      .addNode("b", () => ({}))
      .addNode("c", () => ({}))
      .addEdge(START, "a")
      .addEdge("a", "b")
      .addEdge("a", "c")
      .addEdge("b", "a")
      .addEdge("c", END)
      .compile();
    const layout = layoutDrawing(g.drawing());
    const boxes = layout.nodes;
    for (const p of boxes) {
      for (const q of boxes) {
        if (p === q) continue;
        const apart =
          p.x + p.width <= q.x ||
          q.x + q.width <= p.x ||
          p.y + p.height <= q.y ||
          q.y + q.height <= p.y;
        expect(apart, `${p.id} and ${q.id} overlap`).toBe(true);
      }
    }
    const rank = new Map(boxes.map((n) => [n.id, n.rank]));
    expect(rank.get(START)).toBe(0);
    expect(rank.get(END)).toBe(Math.max(...rank.values()));
    for (const e of layout.edges) {
      expect(e.back, `${e.from} -> ${e.to}`).toBe(rank.get(e.to)! <= rank.get(e.from)!);
    }
    expect(layout.edges.filter((e) => e.back).map((e) => `${e.from}>${e.to}`)).toEqual(["b>a"]);
  });
  it("lays out any shape: a self-loop, a router from START, a Send", () => {
    const g = new Graph({ name: "Shapes" })
      .addNode("loop", () => ({}))
      .addNode("fan", () => ({}))
      .addNode("write", () => ({}))
      .addConditionalEdges(START, (s) => (s.loop ? "loop" : "fan"), ["loop", "fan"])
      .addConditionalEdges("loop", (s) => (s.again ? "loop" : END), ["loop", END])
      .addConditionalEdges("fan", (s) => s.topics.map((t: string) => new Send("write", t)), [
        "write",
      ])
      .addEdge("write", END)
      .compile();
    const drawing = g.drawing();
    const layout = layoutDrawing(drawing);
    expect(layout.edges).toHaveLength(drawing.edges.length);
    for (const e of layout.edges)
      expect(e.path, `${e.from} -> ${e.to}`).toMatch(/^M [\d.]+ [\d.]+ /);
    expect(layout.edges.find((e) => e.from === "loop" && e.to === "loop")!.back).toBe(true);
    const rows = new Map(layout.nodes.map((n) => [n.id, n.rank]));
    expect(rows.get("loop")).toBe(1);
    expect(rows.get(END)).toBe(Math.max(...rows.values()));
    expect(drawingToSvg(drawing)).toContain(">write</text>");
  });
});
