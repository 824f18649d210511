import { describe, expect, it } from "vitest";
import { type AnyActorRef, createActor } from "xstate";
import { z } from "zod";
import { MemoryCheckpointer } from "../../src/checkpoint/index.js";
import {
  AbortError,
  Command,
  END,
  Graph,
  GraphValidationError,
  InvalidConfigError,
  InvalidUpdateError,
  interrupt,
  NodeError,
  RecursionLimitError,
  Send,
  START,
} from "../../src/index.js";

const append = (existing: unknown[] = [], update: unknown) => [...existing, ...[update].flat()];

describe("super-step execution", () => {
  it("runs a linear chain and returns the final state", async () => {
    const graph = new Graph({ name: "Chain" })
      .addNode("a", (s) => ({ n: s.n + 1 }))
      .addNode("b", async (s) => ({ n: s.n * 10 }))
      .addEdge(START, "a")
      .addEdge("a", "b")
      .addEdge("b", END)
      .compile();
    expect(await graph.invoke({ n: 1 })).toEqual({ status: "done", state: { n: 20 } });
  });

  it("accepts nodes that return nothing", async () => {
    const graph = new Graph()
      .addNode("side", () => {})
      .addEdge(START, "side")
      .compile();
    expect(await graph.invoke({ x: 1 })).toEqual({ status: "done", state: { x: 1 } });
  });

  it("runs nodes triggered in the same step concurrently and merges at the barrier", async () => {
    const order: string[] = [];
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    const graph = new Graph()
      .addReducer("log", append)
      .addNode("slow", async () => {
        order.push("slow:start");
        await sleep(20);
        order.push("slow:end");
        return { log: "slow" };
      })
      .addNode("fast", async () => {
        order.push("fast:start");
        await sleep(1);
        order.push("fast:end");
        return { log: "fast" };
      })
      .addNode("after", (s) => ({ seen: [...s.log] }))
      .addEdge(START, "slow")
      .addEdge(START, "fast")
      .addEdge("slow", "after")
      .addEdge("fast", "after")
      .compile();
    const r = await graph.invoke({ log: [] });
    expect(order.slice(0, 2).sort()).toEqual(["fast:start", "slow:start"]);
    // Writes merge in task order, not completion order; "after" runs once, after both.
    expect(r.state).toEqual({ log: ["slow", "fast"], seen: ["slow", "fast"] });
  });

  it("lets the last write win for keys without a reducer", async () => {
    const graph = new Graph()
      .addNode("a", () => ({ v: 1 }))
      .addNode("b", () => ({ v: 2 }))
      .addEdge(START, "a")
      .addEdge("a", "b")
      .compile();
    expect((await graph.invoke({ v: 0 })).state).toEqual({ v: 2 });
  });

  it("rejects two writes to one key without a reducer in the same step, naming key and nodes", async () => {
    const graph = new Graph()
      .addNode("left", () => ({ v: "l" }))
      .addNode("right", () => ({ v: "r" }))
      .addEdge(START, "left")
      .addEdge(START, "right")
      .compile();
    const error = await graph.invoke({}).catch((e) => e);
    expect(error).toBeInstanceOf(InvalidUpdateError);
    expect(error.message).toMatch(/"left" and "right" both wrote "v"/);
  });

  it("routes with conditional edges to one node, several nodes, or END", async () => {
    const graph = new Graph()
      .addReducer("visited", append)
      .addNode("decide", () => ({}))
      .addNode("x", () => ({ visited: "x" }))
      .addNode("y", () => ({ visited: "y" }))
      .addEdge(START, "decide")
      .addConditionalEdges("decide", (s) => s.route, { one: "x", both: "x", none: END })
      .addConditionalEdges("decide", (s) => (s.route === "both" ? ["y"] : []))
      .compile();
    expect((await graph.invoke({ route: "one", visited: [] })).state.visited).toEqual(["x"]);
    expect((await graph.invoke({ route: "both", visited: [] })).state.visited).toEqual(["x", "y"]);
    expect((await graph.invoke({ route: "none", visited: [] })).state.visited).toEqual([]);
  });

  it("reads the node's own writes in its router", async () => {
    const graph = new Graph()
      .addNode("count", (s) => ({ n: s.n + 1 }))
      .addEdge(START, "count")
      .addConditionalEdges("count", (s) => (s.n < 3 ? "count" : END))
      .compile();
    expect((await graph.invoke({ n: 0 })).state).toEqual({ n: 3 });
  });

  it("rejects a router result outside its pathMap", async () => {
    const graph = new Graph()
      .addNode("a", () => ({}))
      .addNode("b", () => ({}))
      .addEdge(START, "a")
      .addConditionalEdges("a", () => "c", { b: "b" })
      .compile();
    await expect(graph.invoke({})).rejects.toThrow(/returned "c", which is not in its pathMap/);
  });

  it("fans out with Send: each task gets its own argument (map-reduce)", async () => {
    const graph = new Graph()
      .addReducer("results", append)
      .addNode("plan", () => ({}))
      .addNode("square", (arg: { x: number }) => ({ results: arg.x * arg.x }))
      .addNode("sum", (s) => ({ total: s.results.reduce((a: number, b: number) => a + b, 0) }))
      .addEdge(START, "plan")
      .addConditionalEdges("plan", (s) => s.xs.map((x: number) => new Send("square", { x })))
      .addEdge("square", "sum")
      .compile();
    const r = await graph.invoke({ xs: [1, 2, 3, 4], results: [] });
    expect(r.state.results).toEqual([1, 4, 9, 16]);
    expect(r.state.total).toBe(30);
  });

  it("ends the run at a join into END once every source has finished", async () => {
    const graph = new Graph({ name: "JoinToEnd" })
      .addReducer("log", append)
      .addNode("a", () => ({ log: "a" }))
      .addNode("b", async () => ({ log: "b" }))
      .addEdge(START, "a")
      .addEdge(START, "b")
      .addEdge(["a", "b"], END)
      .compile();
    expect(await graph.invoke({ log: [] }, { recursionLimit: 5 })).toEqual({
      status: "done",
      state: { log: ["a", "b"] },
    });
  });

  it("applies a step's writes in a fixed order: edge-triggered tasks as scheduled, then Sends as sent", async () => {
    const graph = new Graph({ name: "WriteOrder" })
      .addReducer("log", append)
      .addNode("fan", () => ({}))
      .addNode("worker", async (arg: { n: number }) => {
        // The first Send finishes last: finishing order must not matter.
        await new Promise((resolve) => setTimeout(resolve, 10 - arg.n * 4));
        return { log: `send ${arg.n}` };
      })
      .addNode("edge", async () => {
        await new Promise((resolve) => setTimeout(resolve, 15));
        return { log: "edge" };
      })
      .addEdge(START, "fan")
      .addConditionalEdges("fan", () => [
        new Send("worker", { n: 0 }),
        new Send("worker", { n: 1 }),
      ])
      .addEdge("fan", "edge")
      .compile();
    expect((await graph.invoke({ log: [] })).state.log).toEqual(["edge", "send 0", "send 1"]);
  });

  it("waits at a join edge until every source has finished", async () => {
    const graph = new Graph()
      .addReducer("log", append)
      .addNode("quick", () => ({ log: "quick" }))
      .addNode("long1", () => ({ log: "long1" }))
      .addNode("long2", () => ({ log: "long2" }))
      .addNode("joined", (s) => ({ log: `joined after ${s.log.length}` }))
      .addEdge(START, "quick")
      .addEdge(START, "long1")
      .addEdge("long1", "long2")
      .addEdge(["quick", "long2"], "joined")
      .compile();
    const r = await graph.invoke({ log: [] });
    expect(r.state.log).toEqual(["quick", "long1", "long2", "joined after 3"]);
  });

  it("routes with Command goto to declared ends, and updates state", async () => {
    const graph = new Graph()
      .addNode(
        "approve",
        (s) => new Command({ update: { seen: true }, goto: s.ok ? "proceed" : "cancel" }),
        {
          ends: ["proceed", "cancel"],
        },
      )
      .addNode("proceed", () => ({ outcome: "proceeded" }))
      .addNode("cancel", () => ({ outcome: "cancelled" }))
      .addEdge(START, "approve")
      .compile();
    expect((await graph.invoke({ ok: true })).state).toEqual({
      ok: true,
      seen: true,
      outcome: "proceeded",
    });
    expect((await graph.invoke({ ok: false })).state).toEqual({
      ok: false,
      seen: true,
      outcome: "cancelled",
    });
  });

  it("rejects Command goto to a node outside ends", async () => {
    const graph = new Graph()
      .addNode("a", () => new Command({ goto: "c" }), { ends: ["b"] })
      .addNode("b", () => ({}))
      .addNode("c", () => ({}))
      .addEdge(START, "a")
      .addEdge("a", "c")
      .compile();
    const error = await graph.invoke({}).catch((e) => e);
    expect(error).toBeInstanceOf(GraphValidationError);
    expect(error.message).toMatch(/not in its ends \[b\]/);
  });

  it("stops at the recursion limit with RecursionLimitError", async () => {
    const graph = new Graph()
      .addNode("loop", (s) => ({ n: s.n + 1 }))
      .addEdge(START, "loop")
      .addEdge("loop", "loop")
      .compile();
    const error = await graph.invoke({ n: 0 }, { recursionLimit: 5 }).catch((e) => e);
    expect(error).toBeInstanceOf(RecursionLimitError);
    expect(error.limit).toBe(5);
    // The default is 25 steps.
    await expect(graph.invoke({ n: 0 })).rejects.toThrow(/recursion limit of 25/);
  });

  it("allows exactly recursionLimit steps", async () => {
    const graph = new Graph()
      .addNode("count", (s) => ({ n: s.n + 1 }))
      .addEdge(START, "count")
      .addConditionalEdges("count", (s) => (s.n < 5 ? "count" : END))
      .compile();
    expect((await graph.invoke({ n: 0 }, { recursionLimit: 5 })).state.n).toBe(5);
  });

  it("counts the recursion limit per call: a resumed run has the whole limit again", async () => {
    const graph = new Graph()
      .addNode("count", (s) => {
        if (s.n === 3) interrupt("go on?");
        return { n: s.n + 1 };
      })
      .addEdge(START, "count")
      .addConditionalEdges("count", (s) => (s.n < 8 ? "count" : END))
      .compile({ checkpointer: new MemoryCheckpointer() });
    const config = { configurable: { thread_id: "limit-per-call" } };
    // Three steps, then the fourth pauses.
    const paused = await graph.invoke({ n: 0 }, { config, recursionLimit: 5 });
    expect([paused.status, paused.state.n]).toEqual(["interrupted", 3]);
    // Five more steps (the resumed one included) fit the limit of this call.
    const done = await graph.resume("yes", { config, recursionLimit: 5 });
    expect([done.status, done.state.n]).toEqual(["done", 8]);
    // A sixth would not: the same run resumed with a limit of 4 stops.
    await graph.invoke({ n: 0 }, { config, recursionLimit: 5 });
    await expect(graph.resume("yes", { config, recursionLimit: 4 })).rejects.toBeInstanceOf(
      RecursionLimitError,
    );
  });

  it("wraps a throwing node in NodeError naming node, step and cause", async () => {
    const boom = new Error("boom");
    const graph = new Graph()
      .addNode("ok", () => ({ a: 1 }))
      .addNode("bad", () => {
        throw boom;
      })
      .addEdge(START, "ok")
      .addEdge("ok", "bad")
      .compile();
    const error = await graph.invoke({}).catch((e) => e);
    expect(error).toBeInstanceOf(NodeError);
    expect(error.node).toBe("bad");
    expect(error.step).toBe(2);
    expect(error.cause).toBe(boom);
    expect(error.message).toMatch(/Node "bad" failed at step 2: boom/);
  });

  it("stops the run with AbortError when the signal aborts, and aborts the node's signal", async () => {
    const controller = new AbortController();
    let nodeSignal: AbortSignal | undefined;
    const graph = new Graph()
      .addNode("wait", (_s, runtime) => {
        nodeSignal = runtime.signal;
        setTimeout(() => controller.abort(new Error("user cancelled")), 5);
        return new Promise(() => {});
      })
      .addEdge(START, "wait")
      .compile();
    const error = await graph.invoke({}, { signal: controller.signal }).catch((e) => e);
    expect(error).toBeInstanceOf(AbortError);
    expect(error.message).toMatch(/user cancelled/);
    expect(nodeSignal?.aborted).toBe(true);
  });

  it("cancels the other tasks of a step when one of them fails", async () => {
    let slowSignal: AbortSignal | undefined;
    let lateSignal: AbortSignal | undefined;
    const graph = new Graph()
      .addNode("slow", async (_s, runtime) => {
        slowSignal = runtime.signal;
        await new Promise((resolve) => runtime.signal.addEventListener("abort", resolve));
        return {};
      })
      .addNode("late", async (_s, runtime) => {
        // Reads its signal only after the run has failed: it must already be aborted.
        await new Promise((resolve) => setTimeout(resolve, 20));
        lateSignal = runtime.signal;
        return {};
      })
      .addNode("bad", async () => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        throw new Error("boom");
      })
      .addEdge(START, "slow")
      .addEdge(START, "late")
      .addEdge(START, "bad")
      .compile();
    const error = await graph.invoke({}).catch((e) => e);
    expect([error instanceof NodeError, error.node]).toEqual([true, "bad"]);
    expect(slowSignal?.aborted).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(lateSignal?.aborted).toBe(true);
  });

  it("gives each step its own signal, so listeners a node leaves go with its step", async () => {
    const signals: AbortSignal[] = [];
    const graph = new Graph({ name: "Listeners" });
    for (let i = 0; i < 12; i++) {
      graph.addNode(`n${i}`, (_s, runtime) => {
        runtime.signal.addEventListener("abort", () => {});
        signals.push(runtime.signal);
        return {};
      });
      graph.addEdge(i === 0 ? START : `n${i - 1}`, `n${i}`);
    }
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on("warning", onWarning);
    try {
      await graph.compile().invoke({});
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off("warning", onWarning);
    }
    expect(new Set(signals).size).toBe(12);
    expect(warnings).not.toContain("MaxListenersExceededWarning");
  });

  it("refuses to start with an already-aborted signal", async () => {
    const graph = new Graph()
      .addNode("a", () => ({}))
      .addEdge(START, "a")
      .compile();
    await expect(graph.invoke({}, { signal: AbortSignal.abort() })).rejects.toBeInstanceOf(
      AbortError,
    );
  });

  it("passes context and config to nodes through runtime", async () => {
    const graph = new Graph<{ who?: string }, { user: string }>()
      .addNode("greet", (_s, runtime) => ({
        who: `${runtime.context.user}@${runtime.node}:${runtime.step}`,
      }))
      .addEdge(START, "greet")
      .compile();
    expect((await graph.invoke({}, { context: { user: "ada" } })).state).toEqual({
      who: "ada@greet:1",
    });
  });
});

describe("inspection", () => {
  it("reports the run's actors and events to an inspect observer (e.g. the Stately Inspector)", async () => {
    const graph = new Graph({ name: "Inspected" })
      .addNode("a", () => ({ x: 1 }))
      .addEdge(START, "a")
      .compile();
    const events: string[] = [];
    await graph.invoke(
      {},
      {
        inspect: (e) => {
          const actor = (e.actorRef as AnyActorRef).id === "tasks" ? "tasks" : "graph";
          events.push("event" in e ? `${e.type} ${actor} ${e.event.type}` : e.type);
        },
      },
    );
    expect(events).toContain("@xstate.actor");
    expect(events).toContain("@xstate.event graph INPUT");
    // START's step goes straight on to a, along the edge the graph declares.
    expect(events).toContain("@xstate.microstep graph TASKS.DONE");
    // The node's state asks the run's task runner to run it, and the runner answers.
    expect(events).toContain("@xstate.event tasks RUN");
    expect(events).toContain("@xstate.event graph TASKS.DONE");
  });

  it("fails its actor at once, saying what to pass, when started without input", () => {
    const graph = new Graph({ name: "Embedded" })
      .addNode("a", () => ({ x: 1 }))
      .addEdge(START, "a")
      .compile();
    let error: unknown;
    const actor = createActor(graph.machine);
    actor.subscribe({ error: (e) => (error = e) });
    actor.start();
    actor.stop();
    expect(error).toBeInstanceOf(InvalidConfigError);
    expect((error as Error).message).toMatch(/createActor\(graph\.machine, \{ input: /);
  });

  it("describes its declared edges", () => {
    const graph = new Graph()
      .addNode("a", () => ({}), { ends: ["c"] })
      .addNode("b", () => ({}))
      .addNode("c", () => ({}))
      .addEdge(START, "a")
      .addConditionalEdges("a", () => "b", ["b"])
      .addEdge(["b", "c"], END)
      .compile();
    expect(graph.edges).toEqual([
      { from: START, to: "a", kind: "edge" },
      { from: "b", to: END, kind: "join" },
      { from: "c", to: END, kind: "join" },
      { from: "a", to: "b", kind: "conditional" },
      { from: "a", to: "c", kind: "command" },
    ]);
  });
});

describe("state schema", () => {
  const state = z.object({
    topic: z.string(),
    drafts: z.array(z.string()).default([]),
    score: z.number().optional(),
  });

  it("fills defaults and validates every update", async () => {
    const graph = new Graph({ state })
      .addReducer("drafts", append)
      .addNode("write", (s) => ({ drafts: `about ${s.topic}` }))
      .addEdge(START, "write")
      .compile();
    expect((await graph.invoke({ topic: "owls" })).state).toEqual({
      topic: "owls",
      drafts: ["about owls"],
    });
  });

  it("starts a key at its reducer's default, shown in the thread's first checkpoint", async () => {
    const checkpointer = new MemoryCheckpointer();
    const graph = new Graph<{ log: string[]; topic?: string }>()
      .addReducer("log", (a, b) => [...a, ...b], { default: () => [] })
      .addNode("note", (s) => ({ log: [`noted ${s.topic}`] }))
      .addEdge(START, "note")
      .compile({ checkpointer });
    const config = { configurable: { thread_id: "defaults" } };
    await graph.invoke({ topic: "owls" }, { config });
    const history = [];
    for await (const s of graph.getStateHistory(config)) history.push(s);
    expect(history.at(-1)?.values).toEqual({ log: [] });
    expect(history[0]?.values).toEqual({ log: ["noted owls"], topic: "owls" });
  });

  it("rejects an unknown key, naming node, key and step", async () => {
    const graph = new Graph({ state })
      .addNode("write", () => ({ titel: "typo" }) as never)
      .addEdge(START, "write")
      .compile();
    const error = await graph.invoke({ topic: "x" }).catch((e) => e);
    expect(error).toBeInstanceOf(InvalidUpdateError);
    expect(error.message).toMatch(/Node "write" wrote unknown key "titel" at step 1/);
  });

  it("rejects a wrong type, naming node, key and step", async () => {
    const graph = new Graph({ state })
      .addNode("score", () => ({ score: "high" }) as never)
      .addEdge(START, "score")
      .compile();
    await expect(graph.invoke({ topic: "x" })).rejects.toThrow(
      /Node "score" wrote an invalid value to "score" at step 1/,
    );
  });

  it("rejects invalid input before running anything", async () => {
    let ran = false;
    const graph = new Graph({ state })
      .addNode("n", () => {
        ran = true;
      })
      .addEdge(START, "n")
      .compile();
    await expect(graph.invoke({ topic: 42 } as never)).rejects.toThrow(
      /The input wrote an invalid value to "topic"/,
    );
    expect(ran).toBe(false);
  });
});
