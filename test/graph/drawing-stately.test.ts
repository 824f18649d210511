import { describe, expect, it } from "vitest";
import { type AnyStateMachine, createMachine, type StateNode } from "xstate";
import { createAgent } from "../../src/agent/index.js";
import { MemoryCheckpointer } from "../../src/checkpoint/index.js";
import {
  Command,
  type CompiledGraph,
  END,
  Graph,
  type GraphEdge,
  inspectionChart,
  START,
} from "../../src/index.js";
import { FakeChatModel } from "../../src/models/index.js";

const review = new Graph({ name: "ReviewLoop" })
  .addNode("plan", () => ({}))
  .addNode("research", () => ({}))
  .addNode("draft", () => ({}))
  .addNode("review", () => new Command({ goto: "publish" }), { ends: ["revise", "publish"] })
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
      return s.notify ? "yes" : "no";
    },
    { yes: "notify", no: END },
  )
  .addEdge("notify", END)
  .compile();

const agent = createAgent({
  name: "Helper",
  model: new FakeChatModel({ responses: ["hi"] }),
  tools: [],
});

/** What the Stately editor does on Import: evaluate the code with XState's createMachine. */
function importAsStately(code: string): AnyStateMachine {
  return new Function("createMachine", `return ${code}`)(createMachine) as AnyStateMachine;
}

/** Every transition leaving a state: [event, target key, guard name]. */
function transitionsOf(state: StateNode<any, any>): Array<[string, string, string | undefined]> {
  const guardName = (guard: unknown) =>
    typeof guard === "string" ? guard : (guard as { type?: string } | undefined)?.type;
  return [...state.transitions.entries()].flatMap(([event, list]) =>
    list.map((t): [string, string, string | undefined] => [
      event,
      t.target![0]!.key,
      guardName(t.guard),
    ]),
  );
}

/** The event a user edge becomes in the chart. */
const eventOf = (e: GraphEdge) =>
  e.kind === "edge"
    ? "NEXT"
    : e.kind === "join"
      ? "JOIN"
      : e.kind === "command"
        ? "GOTO"
        : (e.router ?? "route");

describe("graph.toStately()", () => {
  for (const graph of [review, agent] as CompiledGraph<any, any>[]) {
    it(`${graph.name}: imports through createMachine with every user edge as a transition`, () => {
      const machine = importAsStately(graph.toStately());
      expect(machine.id).toBe(graph.name);
      const workflow = machine.root.states.workflow!;
      const states = Object.keys(workflow.states).filter((k) => k !== "__history__");
      expect(states).toEqual([START, ...graph.nodes, END]);
      expect(workflow.initial.target[0]!.key).toBe(START);
      expect(workflow.states[END]!.type).toBe("final");

      const drawn = graph.drawing().edges;
      const transitions = states.flatMap((s) =>
        transitionsOf(workflow.states[s]!).map(([event, to]) => `${s} -${event}-> ${to}`),
      );
      expect(transitions.sort()).toEqual(
        drawn.map((e) => `${e.from} -${eventOf(e)}-> ${e.to}`).sort(),
      );
    });
  }

  it("names routers and path labels, joins and Command ends on the transitions", () => {
    const workflow = importAsStately(review.toStately()).root.states.workflow!;
    expect(transitionsOf(workflow.states.publish!)).toEqual([
      ["shouldNotify", "notify", "yes"],
      ["shouldNotify", END, "no"],
    ]);
    expect(transitionsOf(workflow.states.research!)).toEqual([
      ["JOIN", "review", "research + draft done"],
    ]);
    expect(transitionsOf(workflow.states.review!)).toEqual([
      ["GOTO", "revise", "revise"],
      ["GOTO", "publish", "publish"],
    ]);
    expect(transitionsOf(workflow.states.plan!)).toEqual([
      ["NEXT", "research", undefined],
      ["NEXT", "draft", undefined],
    ]);
  });

  it("keeps the runtime's pauses apart, in `runtime`, returning to the node that paused", () => {
    const machine = importAsStately(review.toStately());
    expect(Object.keys(machine.root.states)).toEqual(["workflow", "runtime"]);
    const runtime = machine.root.states.runtime!;
    expect(Object.keys(runtime.states)).toEqual(["interrupted", "breakpoint", "failed"]);
    expect(transitionsOf(runtime.states.interrupted!)).toEqual([
      ["RESUME", "__history__", undefined],
    ]);
    expect(transitionsOf(machine.root.states.workflow!).map(([event, to]) => [event, to])).toEqual([
      ["INTERRUPT", "interrupted"],
      ["BREAKPOINT", "breakpoint"],
      ["ERROR", "failed"],
    ]);
  });

  it("is the JSON chart inside a createMachine call, a machine apart from the executor", () => {
    const code = review.toStately();
    expect(code.startsWith("createMachine(")).toBe(true);
    const json = code.slice("createMachine(".length, code.lastIndexOf(")"));
    expect(JSON.parse(json)).toEqual(inspectionChart(review.drawing()));
    // The executor carries the same workflow, beside the run loop's own states.
    expect(Object.keys(review.machine.root.states)).toEqual([
      "workflow",
      "runtime",
      "idle",
      "done",
      "failed",
    ]);
    expect(review.machine).not.toBe(importAsStately(code));
  });

  it("draws a router without a path map to every node, and a subgraph as one described state", () => {
    const inner = new Graph({ name: "Inner" })
      .addNode("x", () => ({}))
      .addEdge(START, "x")
      .compile();
    const g = new Graph({ name: "Anywhere" })
      .addNode("pick", () => ({}))
      .addNode("inner", inner)
      .addNode("__history__", () => ({}))
      .addEdge(START, "pick")
      .addConditionalEdges("pick", (s) => s.to)
      .compile();
    const workflow = importAsStately(g.toStately()).root.states.workflow!;
    expect(transitionsOf(workflow.states.pick!)).toEqual([
      ["route", "pick", "pick"],
      ["route", "inner", "inner"],
      ["route", "__history__", "__history__"],
      ["route", END, "END"],
    ]);
    expect(workflow.states.inner!.description).toMatch(/compiled graph added as node "inner"/);
    // A node may take the history state's usual name: the history state steps aside.
    expect(workflow.states.__history__!.type).toBe("atomic");
    expect(workflow.states.__history___!.type).toBe("history");
  });

  it("walks like the graph: an actor of the chart follows the events of a run", async () => {
    const { createActor } = await import("xstate");
    const machine = importAsStately(review.toStately()).provide({
      guards: {
        "research + draft done": () => true,
        revise: () => false,
        publish: () => true,
        yes: () => false,
        no: () => true,
      },
    });
    const actor = createActor(machine).start();
    for (const type of ["NEXT", "NEXT", "JOIN", "GOTO", "shouldNotify"]) actor.send({ type });
    expect(actor.getSnapshot().value).toEqual({ workflow: END });
    actor.stop();
  });
});

describe("graph.machine, the executor", () => {
  /** The executor's transitions out of a node's running state that go straight to a target. */
  const straight = (graph: CompiledGraph<any, any>, node: string) =>
    graph.machine
      .getStateNodeById(`${graph.name}.workflow.${node}.running`)
      .on["TASKS.DONE"]!.filter(
        (t) => t.guard !== undefined && t.target?.[0]?.key !== "interrupted",
      )
      .map((t) => [t.target![0]!.id, t.description]);

  for (const graph of [review, agent] as CompiledGraph<any, any>[]) {
    it(`${graph.name}: carries every declared edge as a transition from its node's state`, () => {
      const workflow = graph.machine.root.states.workflow!;
      expect(Object.keys(workflow.states)).toEqual([START, ...graph.nodes]);
      const carried = [START, ...graph.nodes].flatMap((node) =>
        straight(graph, node).map(([to]) => `${node} -> ${to}`),
      );
      const declared = graph.edges.map(
        (e) => `${e.from} -> ${graph.name}.${e.to === END ? "done" : `workflow.${e.to}`}`,
      );
      expect(carried.sort()).toEqual([...new Set(declared)].sort());
    });
  }

  it("describes each edge as declared: edge, router and path label, join, Command goto", () => {
    expect(straight(review, "publish")).toEqual([
      ["ReviewLoop.workflow.notify", "router shouldNotify: yes"],
      ["ReviewLoop.done", "router shouldNotify: no"],
    ]);
    expect(straight(review, "research")).toEqual([
      ["ReviewLoop.workflow.review", "join of research + draft"],
    ]);
    expect(straight(review, "review")).toEqual([
      ["ReviewLoop.workflow.revise", "Command goto"],
      ["ReviewLoop.workflow.publish", "Command goto"],
    ]);
    expect(straight(review, "plan")).toEqual([
      ["ReviewLoop.workflow.research", "edge"],
      ["ReviewLoop.workflow.draft", "edge"],
    ]);
  });

  it("groups the run loop's own states in runtime: the barrier, fan-out steps, the breakpoint", () => {
    const runtime = review.machine.root.states.runtime!;
    expect(Object.keys(runtime.states)).toEqual(["barrier", "fanout", "breakpoint"]);
    const barrier = runtime.states.barrier!;
    // The barrier still starts any node's step: for Sends, fan-ins and restored threads.
    for (const node of [START, ...review.nodes]) {
      expect(barrier.on[`RUN.${node}`]![0]!.target![0]!.id).toBe(`ReviewLoop.workflow.${node}`);
    }
  });

  it("takes a lone step's edge straight to its target, checkpointing the barrier on the way; a fan-out passes the barrier", async () => {
    const graph = new Graph({ name: "Straight" })
      .addReducer("log", (a: string[] = [], b: string[]) => a.concat(b))
      .addNode("a", () => ({ log: ["a"] }))
      .addNode("b", () => ({ log: ["b"] }))
      .addNode("c", () => ({ log: ["c"] }))
      .addNode("d", () => ({ log: ["d"] }))
      .addEdge(START, "a")
      .addEdge("a", "b")
      .addEdge("b", "c")
      .addEdge("b", "d")
      .compile({ checkpointer: new MemoryCheckpointer() });
    const decisions: string[] = [];
    const config = { configurable: { thread_id: "straight" } };
    const result = await graph.invoke(
      { log: [] },
      {
        config,
        inspect: (e) => {
          const type = e.type === "@xstate.microstep" ? e.event.type : "";
          if (/^(RUN\.|FANOUT|FINISH)/.test(type)) decisions.push(type);
        },
      },
    );
    expect(result.state.log).toEqual(["a", "b", "c", "d"]);
    // The input's barrier starts START; START -> a -> b went along the edges; b's fan-out
    // and the end were the barrier's.
    expect(decisions).toEqual([`RUN.${START}`, "FANOUT", "FINISH"]);
    // Every step still has its barrier checkpoint, with what ran before it.
    const history: Array<[number, string[], unknown]> = [];
    for await (const s of graph.getStateHistory(config)) {
      history.unshift([s.metadata?.step as number, s.next, s.values.log]);
    }
    expect(history).toEqual([
      [0, [START], undefined],
      [1, ["a"], []],
      [2, ["b"], ["a"]],
      [3, ["c", "d"], ["a", "b"]],
      [4, [], ["a", "b", "c", "d"]],
    ]);
  });
});
