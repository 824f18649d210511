/** The inbox's graph picture: nodes in rows by distance from the start, loops drawn back up. */
import { describe, expect, it } from "vitest";
import { layoutGraph } from "../../src/inbox/web/thread/graph-layout.js";

describe("the graph picture's layout", () => {
  it("puts each node below the nodes that lead to it, and draws a loop as a back edge", () => {
    const layout = layoutGraph({
      nodes: ["__start__", "model", "review", "tools", "__end__"].map((id) => ({ id })),
      edges: [
        { source: "__start__", target: "model" },
        { source: "model", target: "review" },
        { source: "review", target: "tools", conditional: true },
        { source: "review", target: "__end__", conditional: true },
        { source: "tools", target: "model" },
      ],
    });
    const row = Object.fromEntries(layout.nodes.map((n) => [n.id, n.y]));
    expect(row.__start__).toBeLessThan(row.model!);
    expect(row.model).toBeLessThan(row.review!);
    expect(row.review).toBeLessThan(row.tools!);
    expect(row.tools).toBe(row.__end__);
    expect(layout.edges).toHaveLength(5);
    expect(layout.edges.filter((e) => e.conditional)).toHaveLength(2);
    // Every node fits in the picture.
    for (const n of layout.nodes) expect(n.x + n.width).toBeLessThanOrEqual(layout.width);
  });

  it("nests loops back up whose rows overlap, each label beside its own curve and inside the picture", () => {
    const layout = layoutGraph({
      nodes: ["__start__", "model", "review", "tools", "__end__"].map((id) => ({ id })),
      edges: [
        { source: "__start__", target: "model" },
        { source: "model", target: "review" },
        { source: "review", target: "tools" },
        { source: "tools", target: "review", conditional: true, label: "goto" },
        { source: "tools", target: "model", conditional: true, label: "goto" },
        { source: "tools", target: "__end__", conditional: true, label: "goto" },
      ],
    });
    const loop = (target: string) =>
      layout.edges.find((e) => e.source === "tools" && e.target === target);
    const inner = loop("review");
    const outer = loop("model");
    // The wider loop goes around the narrower one, and the labels do not sit on each other.
    expect(outer!.labelAt.x).toBeGreaterThan(inner!.labelAt.x);
    const apart =
      Math.abs(outer!.labelAt.x - inner!.labelAt.x) >= "goto".length * 6.2 ||
      Math.abs(outer!.labelAt.y - inner!.labelAt.y) >= 14;
    expect(apart).toBe(true);
    for (const e of layout.edges) expect(e.labelAt.x).toBeLessThanOrEqual(layout.width);
  });
});
