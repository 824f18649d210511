/**
 * Makes the pictures in docs/see-your-graph.md: SVG files drawn from `graph.drawing()` (there
 * is no Mermaid renderer offline), written to docs/images/ when they change, and the Mermaid
 * text the page shows. Each picture is checked against the graph it draws.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createAgent } from "../../src/agent/index.js";
import { MemoryCheckpointer } from "../../src/checkpoint/index.js";
import {
  Command,
  type CompiledGraph,
  drawingToSvg,
  END,
  Graph,
  type GraphDrawing,
  interrupt,
  START,
} from "../../src/index.js";
import { FakeChatModel, tool } from "../../src/models/index.js";

const repo = new URL("../..", import.meta.url).pathname;
const page = readFileSync(`${repo}docs/see-your-graph.md`, "utf8");

/** The page's example: the same graph is built here. */
const review = new Graph({ name: "ReviewLoop" })
  .addNode("plan", () => ({}))
  .addNode("research", () => ({}))
  .addNode("draft", () => ({}))
  .addNode("review", (s) => new Command({ goto: s.approved ? "publish" : "revise" }), {
    ends: ["revise", "publish"],
  })
  .addNode("revise", () => ({}))
  .addNode("publish", () => ({}))
  .addNode("notify", () => ({}))
  .addEdge(START, "plan")
  .addEdge("plan", "research")
  .addEdge("plan", "draft")
  .addEdge(["research", "draft"], "review")
  .addEdge("revise", "plan")
  .addConditionalEdges(
    "publish",
    function shouldNotify(s) {
      return s.subscribers > 0 ? "has subscribers" : "nobody";
    },
    { "has subscribers": "notify", nobody: END },
  )
  .addEdge("notify", END)
  .compile();

const approval = new Graph({ name: "Approval" })
  .addNode("prepare", () => ({ amount: 500 }))
  .addNode(
    "approve",
    () => new Command({ goto: interrupt<boolean>("Transfer $500?") ? "transfer" : "cancel" }),
    { ends: ["transfer", "cancel"] },
  )
  .addNode("transfer", () => ({ outcome: "sent" }))
  .addNode("cancel", () => ({ outcome: "cancelled" }))
  .addEdge(START, "prepare")
  .addEdge("prepare", "approve")
  .addEdge("transfer", END)
  .addEdge("cancel", END)
  .compile({ checkpointer: new MemoryCheckpointer() });

const agent = createAgent({
  name: "Helper",
  model: new FakeChatModel({ responses: ["hi"] }),
  tools: [
    tool({
      name: "search",
      description: "Search the docs.",
      schema: z.object({ q: z.string() }),
      run: ({ q }) => q,
    }),
  ],
});

/** Write `docs/images/<name>` when its content changed; return what was drawn. */
function picture(name: string, drawing: GraphDrawing): string {
  const svg = drawingToSvg(drawing);
  const path = `${repo}docs/images/${name}`;
  if (!existsSync(path) || readFileSync(path, "utf8") !== svg) writeFileSync(path, svg);
  expect(page, `docs/see-your-graph.md shows ${name}`).toContain(`(images/${name})`);
  return svg;
}

/** The picture draws exactly the drawing: a box per node, a path per edge, dashes for choices. */
function expectPictureOf(svg: string, drawing: GraphDrawing) {
  for (const node of drawing.nodes) expect(svg).toContain(`>${node.label}</text>`);
  expect(svg.match(/class="edge /g)).toHaveLength(drawing.edges.length);
  const choices = drawing.edges.filter((e) => e.kind === "conditional" || e.kind === "command");
  expect(svg.match(/stroke-dasharray/g) ?? []).toHaveLength(choices.length);
  expect(svg.match(/class="node [a-z]+ waiting"/g) ?? []).toHaveLength(drawing.waitingAt.length);
}

describe("the pictures in docs/see-your-graph.md", () => {
  it("draws the review loop: fan-out, join, Command ends, a labelled router and a cycle", () => {
    const drawing = review.drawing();
    expectPictureOf(picture("review-loop.svg", drawing), drawing);
  });

  it("draws a paused thread, marked where it waits", async () => {
    const config = { configurable: { thread_id: "docs-picture-approval" } };
    await approval.invoke({}, { config });
    const drawing = approval.drawing(await approval.getState(config));
    expect(drawing.waitingAt).toEqual(["approve"]);
    expectPictureOf(picture("approval-waiting.svg", drawing), drawing);
  });

  it("draws an agent from createAgent", () => {
    const drawing = agent.drawing();
    expectPictureOf(picture("agent.svg", drawing), drawing);
  });

  it("shows the review loop's Mermaid text as the graph prints it", () => {
    expect(page).toContain(
      `\`\`\`mermaid\n${(review as CompiledGraph<any, any>).toMermaid()}\`\`\``,
    );
  });
});
