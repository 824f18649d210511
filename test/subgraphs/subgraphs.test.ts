import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryCheckpointer } from "../../src/checkpoint/index.js";
import { Command, END, Graph, interrupt, START } from "../../src/index.js";

let threads = 0;
const thread = () => ({ configurable: { thread_id: `sub-${++threads}` } });
const append = (existing: unknown[] = [], update: unknown) => [...existing, ...[update].flat()];

describe("a compiled graph as a node", () => {
  it("runs the child and passes shared keys in and out through the parent's reducers without duplicates", async () => {
    const child = new Graph({ name: "Child" })
      .addReducer("messages", append)
      .addNode("reply", (s) => ({ messages: `reply to ${s.messages.length} messages` }))
      .addNode("sign", () => ({ messages: "-- child" }))
      .addEdge(START, "reply")
      .addEdge("reply", "sign")
      .compile();
    const parent = new Graph({ name: "Parent" })
      .addReducer("messages", append)
      .addNode("greet", () => ({ messages: "hello" }))
      .addNode("child", child)
      .addEdge(START, "greet")
      .addEdge("greet", "child")
      .compile();
    const r = await parent.invoke({ messages: ["start"] });
    expect(r.state.messages).toEqual(["start", "hello", "reply to 2 messages", "-- child"]);
  });

  it("keeps the child's private keys out of a parent with a schema", async () => {
    const child = new Graph({
      name: "Child",
      state: z.object({ topic: z.string(), scratch: z.string().optional() }),
    })
      .addNode("think", (s) => ({
        scratch: `thinking about ${s.topic}`,
        topic: s.topic.toUpperCase(),
      }))
      .addEdge(START, "think")
      .compile();
    const parent = new Graph({
      name: "Parent",
      state: z.object({ topic: z.string(), other: z.number().default(1) }),
    })
      .addNode("child", child)
      .addEdge(START, "child")
      .compile();
    expect((await parent.invoke({ topic: "owls" })).state).toEqual({ topic: "OWLS", other: 1 });
  });
});

function approvalChild(checkpointer?: MemoryCheckpointer) {
  return new Graph({ name: "Approval" })
    .addReducer("log", append)
    .addNode("prepare", () => ({ log: "child:prepare" }))
    .addNode("ask", (s) => ({
      decision: interrupt({ question: "Approve?", topic: s.topic }),
      log: "child:ask",
    }))
    .addEdge(START, "prepare")
    .addEdge("prepare", "ask")
    .compile(checkpointer ? { checkpointer } : {});
}

describe("interrupts inside subgraphs", () => {
  it("surfaces the child's interrupt with its namespace and resumes it with the same thread config", async () => {
    const parent = new Graph({ name: "Parent" })
      .addReducer("log", append)
      .addNode("review", approvalChild())
      .addNode("finish", (s) => ({ log: `parent:finish(${s.decision})` }))
      .addEdge(START, "review")
      .addEdge("review", "finish")
      .compile({ checkpointer: new MemoryCheckpointer() });
    const config = thread();
    const r = await parent.invoke({ topic: "deploy", log: [] }, { config });
    expect(r.status).toBe("interrupted");
    if (r.status !== "interrupted") return;
    expect(r.interrupt.value).toEqual({ question: "Approve?", topic: "deploy" });
    expect(r.interrupt.node).toBe("ask");
    expect(r.interrupt.ns).toMatch(/^review:\d+:review:0$/);
    const done = await parent.resume("yes", { config });
    expect(done.state).toEqual({
      topic: "deploy",
      log: ["child:prepare", "child:ask", "parent:finish(yes)"],
      decision: "yes",
    });
  });

  it("accepts the resume keyed by the nested interrupt id", async () => {
    const parent = new Graph()
      .addNode("review", approvalChild())
      .addEdge(START, "review")
      .compile({ checkpointer: new MemoryCheckpointer() });
    const config = thread();
    const r = await parent.invoke({ topic: "x", log: [] }, { config });
    if (r.status !== "interrupted") throw new Error("expected a pause");
    expect((await parent.resume({ [r.interrupt.id]: "ok" }, { config })).state.decision).toBe("ok");
  });

  it("re-runs parent-node code before the child call on resume, but not the child's finished steps", async () => {
    const counts = { parentSetup: 0, childPrepare: 0 };
    const child = new Graph({ name: "Child" })
      .addNode("prepare", () => {
        counts.childPrepare++;
        return { prepared: true };
      })
      .addNode("ask", () => ({ answer: interrupt("Go?") }))
      .addEdge(START, "prepare")
      .addEdge("prepare", "ask")
      .compile();
    const parent = new Graph({ name: "Parent" })
      .addNode("call", async () => {
        counts.parentSetup++;
        const result = await child.invoke({});
        return { fromChild: result.state.answer };
      })
      .addEdge(START, "call")
      .compile({ checkpointer: new MemoryCheckpointer() });
    const config = thread();
    const r = await parent.invoke({}, { config });
    expect(r.status === "interrupted" && r.interrupt.ns).toMatch(/^call:/);
    const done = await parent.resume("go", { config });
    expect(done.state).toEqual({ fromChild: "go" });
    expect(counts).toEqual({ parentSetup: 2, childPrepare: 1 });
  });

  it("replays a nested run that finished earlier in the same task instead of running it again", async () => {
    let childRuns = 0;
    const child = new Graph()
      .addNode("work", () => {
        childRuns++;
        return { result: 42 };
      })
      .addEdge(START, "work")
      .compile();
    const parent = new Graph()
      .addNode("call", async () => {
        const { state } = await child.invoke({});
        const ok = interrupt(`Use ${state.result}?`);
        return { used: ok ? state.result : null };
      })
      .addEdge(START, "call")
      .compile({ checkpointer: new MemoryCheckpointer() });
    const config = thread();
    await parent.invoke({}, { config });
    expect((await parent.resume(true, { config })).state).toEqual({ used: 42 });
    expect(childRuns).toBe(1);
  });

  it("reaches the top from three levels deep and resumes all the way down", async () => {
    const leaf = new Graph({ name: "Leaf" })
      .addNode("ask", () => ({ answer: interrupt("deepest question") }))
      .addEdge(START, "ask")
      .compile();
    const middle = new Graph({ name: "Middle" })
      .addNode("leaf", leaf)
      .addEdge(START, "leaf")
      .compile();
    const upper = new Graph({ name: "Upper" })
      .addNode("middle", middle)
      .addEdge(START, "middle")
      .compile();
    const root = new Graph({ name: "Root" })
      .addNode("upper", upper)
      .addNode("after", (s) => ({ final: `got ${s.answer}` }))
      .addEdge(START, "upper")
      .addEdge("upper", "after")
      .compile({ checkpointer: new MemoryCheckpointer() });
    const config = thread();
    const r = await root.invoke({}, { config });
    if (r.status !== "interrupted") throw new Error("expected a pause");
    expect(r.interrupt.value).toBe("deepest question");
    expect(r.interrupt.ns.split("|").map((level) => level.split(":")[0])).toEqual([
      "upper",
      "middle",
      "leaf",
    ]);
    const nested = await root.getState(config, { subgraphs: true });
    const upperState = nested.tasks[0]!.state!;
    const middleState = upperState.tasks[0]!.state!;
    const leafState = middleState.tasks[0]!.state!;
    expect(leafState.interrupts[0]!.id).toBe(r.interrupt.id);
    expect(leafState.next).toEqual(["ask"]);
    const done = await root.resume("forty-two", { config });
    expect(done.state).toEqual({ answer: "forty-two", final: "got forty-two" });
  });

  it("pauses two subgraph nodes of one step together and resumes them one at a time or together", async () => {
    const ask = (q: string) =>
      new Graph({ name: `Ask-${q}` })
        .addNode("ask", () => ({ answers: [`${q}=${interrupt(q)}`] }))
        .addEdge(START, "ask")
        .addReducer("answers", append)
        .compile();
    const build = () =>
      new Graph({ name: "Both" })
        .addReducer("answers", append)
        .addNode("left", ask("left"))
        .addNode("right", ask("right"))
        .addEdge(START, "left")
        .addEdge(START, "right")
        .addEdge("left", END)
        .addEdge("right", END)
        .compile({ checkpointer: new MemoryCheckpointer() });

    const oneByOne = build();
    const c1 = thread();
    const r = await oneByOne.invoke({ answers: [] }, { config: c1 });
    if (r.status !== "interrupted") throw new Error("expected a pause");
    expect(r.interrupts.map((i) => i.value)).toEqual(["left", "right"]);
    const half = await oneByOne.resume({ [r.interrupts[1]!.id]: "R" }, { config: c1 });
    expect(half.status === "interrupted" && half.interrupts.map((i) => i.value)).toEqual(["left"]);
    expect((await oneByOne.resume("L", { config: c1 })).state.answers).toEqual([
      "left=L",
      "right=R",
    ]);

    const together = build();
    const c2 = thread();
    const r2 = await together.invoke({ answers: [] }, { config: c2 });
    if (r2.status !== "interrupted") throw new Error("expected a pause");
    const answers = Object.fromEntries(
      r2.interrupts.map((i) => [i.id, String(i.value).toUpperCase()]),
    );
    expect((await together.resume(answers, { config: c2 })).state.answers).toEqual([
      "left=LEFT",
      "right=RIGHT",
    ]);
  });
});

describe("routing from a subgraph", () => {
  it("routes in the parent with Command({ graph: Command.PARENT, goto, update })", async () => {
    const child = new Graph({ name: "Child" })
      .addNode("escalate", (s) =>
        s.severity > 5
          ? new Command({ graph: Command.PARENT, goto: "pager", update: { escalated: true } })
          : { escalated: false },
      )
      .addEdge(START, "escalate")
      .compile();
    const parent = new Graph({ name: "Parent" })
      .addNode("triage", child, { ends: ["pager"] })
      .addNode("pager", () => ({ paged: true }))
      .addEdge(START, "triage")
      .compile();
    expect((await parent.invoke({ severity: 9 })).state).toEqual({
      severity: 9,
      escalated: true,
      paged: true,
    });
    expect((await parent.invoke({ severity: 1 })).state).toEqual({ severity: 1, escalated: false });
  });

  it("refuses Command.PARENT in a graph that has no parent", async () => {
    const graph = new Graph()
      .addNode("a", () => new Command({ graph: Command.PARENT, goto: "x" }))
      .addEdge(START, "a")
      .compile();
    await expect(graph.invoke({})).rejects.toThrow(/was not called by another graph/);
  });
});

/** A parent whose child graph stops before its "process" node. */
function parentWithBreakpointInChild() {
  const child = new Graph({ name: "Child" })
    .addNode("load", () => ({ loaded: true }))
    .addNode("process", () => ({ processed: true }))
    .addEdge(START, "load")
    .addEdge("load", "process")
    .compile({ interruptBefore: ["process"] });
  return new Graph({ name: "Parent" })
    .addNode("child", child)
    .addEdge(START, "child")
    .compile({ checkpointer: new MemoryCheckpointer() });
}

describe("static breakpoints inside a subgraph", () => {
  it("pause and continue the same way as at top level", async () => {
    const parent = parentWithBreakpointInChild();
    const config = thread();
    const r = await parent.invoke({}, { config });
    if (r.status !== "interrupted") throw new Error("expected a pause");
    expect(r.interrupt).toMatchObject({ node: "process", timing: "before" });
    expect(r.interrupt.ns).toMatch(/^child:/);
    expect((await parent.resume(undefined, { config })).state).toEqual({
      loaded: true,
      processed: true,
    });
  });
});

describe("continuing and reading subgraph runs", () => {
  it("invoke(null) continues a thread whose only pauses are breakpoints inside subgraphs", async () => {
    const parent = parentWithBreakpointInChild();
    const config = thread();
    expect((await parent.invoke({}, { config })).status).toBe("interrupted");
    expect(await parent.invoke(null, { config })).toEqual({
      status: "done",
      state: { loaded: true, processed: true },
    });
  });

  it("nodes see their namespace in runtime.config, and getState/getStateHistory read it by checkpoint_ns", async () => {
    const seen: unknown[] = [];
    const child = new Graph({ name: "Child" })
      .addNode("inner", (_s, runtime) => {
        seen.push(runtime.config.configurable?.checkpoint_ns);
        return { inner: interrupt("inner?") };
      })
      .addEdge(START, "inner")
      .compile();
    const parent = new Graph({ name: "Parent" })
      .addNode("outer", (_s, runtime) => {
        seen.push(runtime.config.configurable?.checkpoint_ns);
        return {};
      })
      .addNode("child", child)
      .addEdge(START, "outer")
      .addEdge("outer", "child")
      .compile({ checkpointer: new MemoryCheckpointer() });
    const config = thread();
    const r = await parent.invoke({}, { config });
    if (r.status !== "interrupted") throw new Error("expected a pause");
    expect(seen[0]).toBe("");
    expect(seen[1]).toBe(r.interrupt.ns);
    const nsConfig = {
      configurable: { thread_id: config.configurable.thread_id, checkpoint_ns: r.interrupt.ns },
    };
    const inner = await parent.getState(nsConfig);
    expect(inner.next).toEqual(["inner"]);
    expect(inner.interrupts.map((i) => i.id)).toEqual([r.interrupt.id]);
    expect(inner.config.configurable?.checkpoint_ns).toBe(r.interrupt.ns);
    const history = [];
    for await (const past of parent.getStateHistory(nsConfig)) history.push(past);
    expect(history.length).toBeGreaterThan(1);
    expect(history.every((h) => h.config.configurable?.checkpoint_ns === r.interrupt.ns)).toBe(
      true,
    );
  });
});
