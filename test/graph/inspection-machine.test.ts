import { createTestModel, getShortestPaths, getSimplePaths } from "@xstate/graph";
import { describe, expect, it } from "vitest";
import {
  Command,
  type CompiledGraph,
  END,
  Graph,
  type InspectionSnapshot,
  InvalidConfigError,
  type NodeRuntime,
  Send,
  START,
} from "../../src/index.js";

/** Each node logs `<step>:<node>`, so a run shows which nodes ran together. */
const logged =
  (name: string, update: (s: any) => object = () => ({})) =>
  (s: any, runtime: NodeRuntime) => ({ ...update(s), log: [`${runtime.step}:${name}`] });

/**
 * A fan-out and its join inside a cycle, a Command and a router: plan starts research and
 * draft together, review waits for both, then revises (back to plan) or publishes, and
 * publishing may notify. Steered by `revisions` and `notify`.
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
  .addConditionalEdges(
    "publish",
    function shouldNotify(s) {
      return s.notify ? "yes" : "no";
    },
    { yes: "notify", no: END },
  )
  .addEdge("notify", END)
  .compile();

/** The agent's shape: the model calls tools until it answers. */
const toolLoop = new Graph({ name: "ToolLoop" })
  .addNode("model", () => ({}))
  .addNode("tools", () => ({}))
  .addEdge(START, "model")
  .addConditionalEdges("model", (s) => (s.more ? "tools" : END), ["tools", END])
  .addEdge("tools", "model")
  .compile();

const isDone = (s: InspectionSnapshot) => s.status === "done";

/** A walk as the nodes it rests at, START and END left out. */
const nodesOf = (steps: ReadonlyArray<{ state: InspectionSnapshot }>) =>
  steps.map((s) => s.state.value as string).filter((n) => n !== START && n !== END);

/** A walk's nodes grouped by super-step (what the runtime runs together). */
function stepsOf(steps: ReadonlyArray<{ state: InspectionSnapshot }>): string[][] {
  const grouped: string[][] = [];
  for (const { state } of steps) {
    const node = state.value as string;
    if (node === START || node === END) continue;
    const step = state.context.superstep - 1;
    grouped[step] = [...(grouped[step] ?? []), node];
  }
  return grouped;
}

const eventsOf = (steps: ReadonlyArray<{ event: { type: string } }>) =>
  steps.map((s) => s.event.type).filter((t) => t !== "xstate.init" && t !== "NEXT");

describe("graph.inspectionMachine()", () => {
  it("is walked by getShortestPaths and getSimplePaths: its guards and actions are implemented", () => {
    const machine = review.inspectionMachine();
    const shortest = getShortestPaths(machine);
    const reached = new Set(shortest.map((p) => p.state.value));
    for (const node of [START, ...review.nodes, END]) expect(reached).toContain(node);
    const complete = getSimplePaths(machine, { toState: isDone });
    expect(complete.map((p) => nodesOf(p.steps).join(" "))).toEqual([
      "plan research draft review publish",
      "plan research draft review publish notify",
      "plan research draft review revise plan research draft review publish",
      "plan research draft review revise plan research draft review publish notify",
    ]);
  });

  it("makes each branch of a router an event that names it", () => {
    const complete = getSimplePaths(review.inspectionMachine(), { toState: isDone });
    const atPublish = complete[0]!.steps.find((s) => s.state.value === "publish")!.state;
    expect(atPublish.can({ type: "route publish -> notify" })).toBe(true);
    expect(atPublish.can({ type: "route publish -> __end__" })).toBe(true);
    expect(atPublish.can({ type: "NEXT" })).toBe(false);
    expect(eventsOf(complete[1]!.steps)).toEqual([
      "goto review -> publish",
      "route publish -> notify",
    ]);
  });

  it("makes each end of a Command a goto event", () => {
    const complete = getSimplePaths(review.inspectionMachine(), { toState: isDone });
    expect(eventsOf(complete[2]!.steps)).toEqual([
      "goto review -> revise",
      "goto review -> publish",
      "route publish -> __end__",
    ]);
  });

  it("runs a fan-out's targets in one super-step, visited in definition order, and a join after all its sources", () => {
    const [first] = getSimplePaths(review.inspectionMachine(), { toState: isDone });
    expect(stepsOf(first!.steps)).toEqual([
      ["plan"],
      ["research", "draft"],
      ["review"],
      ["publish"],
    ]);
  });

  it("lets a join wait for sources that finish in different steps", () => {
    const uneven = new Graph({ name: "Uneven" })
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
    const complete = getSimplePaths(uneven.inspectionMachine(), { toState: isDone });
    expect(complete.map((p) => stepsOf(p.steps))).toEqual([
      [["a"], ["short", "long1"], ["long2"], ["join"]],
    ]);
  });

  it("makes each target of a router that returns Sends a choice", () => {
    const mapReduce = new Graph({ name: "MapReduce" })
      .addNode("plan", () => ({}))
      .addNode("work", () => ({}))
      .addNode("sum", () => ({}))
      .addEdge(START, "plan")
      .addConditionalEdges("plan", (s) => s.items.map((i: number) => new Send("work", { i })), [
        "work",
      ])
      .addEdge("work", "sum")
      .addEdge("sum", END)
      .compile();
    const complete = getSimplePaths(mapReduce.inspectionMachine(), { toState: isDone });
    expect(complete.map((p) => [nodesOf(p.steps), eventsOf(p.steps)])).toEqual([
      [["plan", "work", "sum"], ["route plan -> work"]],
    ]);
  });

  it("unrolls a cycle until a node has run maxVisits times, then stops the walk in __bound__", () => {
    const walks = (maxVisits?: number) =>
      getSimplePaths(toolLoop.inspectionMachine({ maxVisits }), { toState: isDone }).map((p) =>
        nodesOf(p.steps).join(" "),
      );
    expect(walks()).toEqual(["model", "model tools model"]);
    expect(walks(3)).toEqual(["model", "model tools model", "model tools model tools model"]);
    const stopped = getShortestPaths(toolLoop.inspectionMachine(), {
      toState: (s) => s.value === "__bound__",
    });
    expect(stopped.map((p) => eventsOf(p.steps))).toEqual([
      ["route model -> tools", "route model -> tools"],
    ]);
    expect(stopped[0]!.state.status).toBe("active");
  });

  it("keeps its own states apart from nodes that share their names", () => {
    const clash = new Graph({ name: "Clash" })
      .addNode("__barrier__", () => ({}))
      .addNode("__bound__", () => ({}))
      .addEdge(START, "__barrier__")
      .addEdge("__barrier__", "__bound__")
      .addEdge("__bound__", END)
      .compile();
    const [walk] = getSimplePaths(clash.inspectionMachine(), { toState: isDone });
    expect(nodesOf(walk!.steps)).toEqual(["__barrier__", "__bound__"]);
  });

  it("refuses a maxVisits that is not a whole number of at least 1", () => {
    for (const maxVisits of [0, -1, 1.5, Number.NaN]) {
      expect(() => review.inspectionMachine({ maxVisits })).toThrow(InvalidConfigError);
    }
    expect(() => review.inspectionMachine({ maxVisits: 0 })).toThrow(
      /maxVisits must be a whole number of at least 1 .*got 0\. Leave it out for the default, 2\./,
    );
  });

  it("drives the real graph along every path of createTestModel: the nodes it runs are the path's", async () => {
    const model = createTestModel(review.inspectionMachine());
    const paths = model.getSimplePaths({ toState: isDone });
    expect(paths).toHaveLength(4);
    for (const path of paths) {
      const events = path.steps.map((s) => s.event.type);
      const input = {
        revisions: events.filter((t) => t === "goto review -> revise").length,
        notify: events.includes("route publish -> notify"),
      };
      const run = await review.invoke(input);
      expect(stepsRan(review, run.state.log), path.description).toEqual(stepsOf(path.steps));
    }
  });

  it("steers the real graph through path.test: event handlers pick the routes, the END check runs it", async () => {
    const model = createTestModel(review.inspectionMachine());
    const checked: string[] = [];
    for (const path of model.getSimplePaths({ toState: isDone })) {
      const input = { revisions: 0, notify: false };
      await path.test({
        events: {
          "goto review -> revise": () => {
            input.revisions++;
          },
          "route publish -> notify": () => {
            input.notify = true;
          },
        },
        states: {
          [END]: async () => {
            const run = await review.invoke(input);
            expect(stepsRan(review, run.state.log)).toEqual(stepsOf(path.steps));
            checked.push(JSON.stringify(input));
          },
        },
      });
    }
    expect(checked.sort()).toEqual([
      '{"revisions":0,"notify":false}',
      '{"revisions":0,"notify":true}',
      '{"revisions":1,"notify":false}',
      '{"revisions":1,"notify":true}',
    ]);
  });
});

/** The steps a run took, from its log: nodes grouped by super-step, in definition order. */
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
