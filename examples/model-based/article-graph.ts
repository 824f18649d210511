// The graph model-based-test.ts walks: a fan-out and its join inside a cycle, a Command, a router.
import { Command, END, Graph, type NodeRuntime, START } from "stateweaver";

/** What steers the graph: how often the editor sends the article back, and whether to notify. */
export interface ArticleInput {
  revisions: number;
  notify: boolean;
}

/** Each node notes `<super-step>:<node>`, so a run shows which nodes ran, and which together. */
const noted = (name: string) => (_s: unknown, runtime: NodeRuntime) => ({
  ran: [`${runtime.step}:${name}`],
});

export const articleGraph = new Graph({ name: "Article" })
  .addReducer("ran", (a: string[] = [], b: string[]) => [...a, ...b])
  .addNode("plan", noted("plan"))
  .addNode("research", noted("research"))
  .addNode("draft", noted("draft"))
  .addNode(
    "edit",
    (s, runtime) =>
      new Command({
        goto: (s.round ?? 0) < s.revisions ? "revise" : "publish",
        update: { ran: [`${runtime.step}:edit`] },
      }),
    { ends: ["revise", "publish"] },
  )
  .addNode("revise", (s, runtime) => ({
    round: (s.round ?? 0) + 1,
    ran: [`${runtime.step}:revise`],
  }))
  .addNode("publish", noted("publish"))
  .addNode("notify", noted("notify"))
  .addEdge(START, "plan")
  .addEdge("plan", "research")
  .addEdge("plan", "draft")
  .addEdge(["research", "draft"], "edit")
  .addEdge("revise", "plan")
  .addConditionalEdges(
    "publish",
    function shouldNotify(s) {
      return s.notify ? "notify" : END;
    },
    ["notify", END],
  )
  .addEdge("notify", END)
  .compile();
