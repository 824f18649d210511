import { describe, expect, it } from "vitest";
import { MemoryCheckpointer } from "../../src/checkpoint/index.js";
import { END, Graph, START } from "../../src/index.js";

let threads = 0;
const thread = () => ({ configurable: { thread_id: `bp-${++threads}` } });

function debuggableFlow(options: { interruptBefore?: string[]; interruptAfter?: string[] } = {}) {
  const calls: string[] = [];
  const graph = new Graph({ name: "DebuggableFlow" })
    .addNode("load", (s) => {
      calls.push("load");
      return { data: `${s.input}!` };
    })
    .addNode("process", (s) => {
      calls.push("process");
      return { result: s.data.toUpperCase() };
    })
    .addEdge(START, "load")
    .addEdge("load", "process")
    .addEdge("process", END)
    .compile({ checkpointer: new MemoryCheckpointer(), ...options });
  return { graph, calls };
}

describe("static breakpoints", () => {
  it("pauses before a node (interruptBefore) with timing 'before'", async () => {
    const { graph, calls } = debuggableFlow({ interruptBefore: ["process"] });
    const config = thread();
    const r = await graph.invoke({ input: "data" }, { config });
    expect(r.status).toBe("interrupted");
    if (r.status !== "interrupted") return;
    expect(r.interrupt).toMatchObject({ node: "process", timing: "before", value: null });
    expect(calls).toEqual(["load"]);
    expect(r.state).toEqual({ input: "data", data: "data!" });
    expect((await graph.getState(config)).next).toEqual(["process"]);
    const done = await graph.resume(undefined, { config });
    expect(done).toEqual({
      status: "done",
      state: { input: "data", data: "data!", result: "DATA!" },
    });
    expect(calls).toEqual(["load", "process"]);
  });

  it("pauses after a node (interruptAfter) with timing 'after'", async () => {
    const { graph, calls } = debuggableFlow({ interruptAfter: ["load"] });
    const config = thread();
    const r = await graph.invoke({ input: "x" }, { config });
    expect(r.status === "interrupted" && r.interrupt).toMatchObject({
      node: "load",
      timing: "after",
    });
    expect(calls).toEqual(["load"]);
    expect((await graph.resume(null, { config })).status).toBe("done");
  });

  it("continues with invoke(null) as well as resume()", async () => {
    const { graph } = debuggableFlow({ interruptBefore: ["process"] });
    const config = thread();
    await graph.invoke({ input: "x" }, { config });
    expect((await graph.invoke(null, { config })).status).toBe("done");
  });

  it("takes breakpoints as invoke options too", async () => {
    const { graph, calls } = debuggableFlow();
    const config = thread();
    const r = await graph.invoke({ input: "x" }, { config, interruptBefore: ["load"] });
    expect(r.status === "interrupted" && r.interrupt).toMatchObject({
      node: "load",
      timing: "before",
    });
    expect(calls).toEqual([]);
    expect((await graph.resume(undefined, { config })).status).toBe("done");
  });

  it("stops once when after and before both apply at one barrier (continuing passes the barrier, as in LangGraph)", async () => {
    const { graph, calls } = debuggableFlow({
      interruptAfter: ["load"],
      interruptBefore: ["process"],
    });
    const config = thread();
    const first = await graph.invoke({ input: "x" }, { config });
    expect(first.status === "interrupted" && first.interrupt.timing).toBe("after");
    expect((await graph.resume(undefined, { config })).status).toBe("done");
    expect(calls).toEqual(["load", "process"]);
  });

  it("pauses after the last node before the run is done", async () => {
    const { graph } = debuggableFlow({ interruptAfter: ["process"] });
    const config = thread();
    const r = await graph.invoke({ input: "x" }, { config });
    expect(r.status === "interrupted" && r.interrupt).toMatchObject({
      node: "process",
      timing: "after",
    });
    expect((await graph.getState(config)).next).toEqual([]);
    expect((await graph.resume(undefined, { config })).state.result).toBe("X!");
  });
});

describe("a static breakpoint's checkpoints (as LangGraph stores them)", () => {
  const history = async (
    graph: ReturnType<typeof debuggableFlow>["graph"],
    config: ReturnType<typeof thread>,
  ) => {
    const out = [];
    for await (const s of graph.getStateHistory(config)) out.push(s);
    return out.reverse();
  };

  it("is the checkpoint of the step that scheduled the node: no checkpoint of its own", async () => {
    const { graph } = debuggableFlow({ interruptBefore: ["process"] });
    const config = thread();
    await graph.invoke({ input: "x" }, { config });
    const steps = await history(graph, config);
    expect(steps.map((s) => [s.metadata?.step, s.next])).toEqual([
      [0, ["__start__"]],
      [1, ["load"]],
      [2, ["process"]],
    ]);
    const paused = await graph.getState(config);
    expect(paused.config).toEqual(steps[2]!.config);
    expect(paused.interrupts).toMatchObject([{ node: "process", timing: "before" }]);
    expect(paused.tasks.map((t) => t.name)).toEqual(["process"]);
  });

  it("is continued from without a checkpoint for passing it", async () => {
    const { graph } = debuggableFlow({ interruptBefore: ["process"] });
    const config = thread();
    await graph.invoke({ input: "x" }, { config });
    const paused = await graph.getState(config);
    await graph.invoke(null, { config });
    const steps = await history(graph, config);
    expect(steps.map((s) => s.metadata?.step)).toEqual([0, 1, 2, 3]);
    expect(steps[3]!.parentConfig?.configurable?.checkpoint_id).toBe(
      paused.config.configurable?.checkpoint_id,
    );
  });

  it("stops again on fresh input, not when continued from", async () => {
    const { graph, calls } = debuggableFlow({ interruptAfter: ["load"] });
    const config = thread();
    await graph.invoke({ input: "a" }, { config });
    expect((await graph.invoke(null, { config })).status).toBe("done");
    const again = await graph.invoke({ input: "b" }, { config });
    expect(again.status === "interrupted" && again.interrupt.timing).toBe("after");
    expect(calls).toEqual(["load", "process", "load"]);
  });
});

describe("a step continued from a breakpoint", () => {
  it("keeps what its finished tasks wrote when the run is cut short: a restart runs only the others", async () => {
    const calls: string[] = [];
    let stall = true;
    let aFinished!: () => void;
    const finished = new Promise<void>((resolve) => {
      aFinished = resolve;
    });
    const graph = new Graph({ name: "ContinuedThenCut" })
      .addNode("go", () => ({}))
      .addNode("a", () => {
        calls.push("a");
        setImmediate(aFinished);
        return { a: "done" };
      })
      .addNode("b", async (_s, runtime) => {
        calls.push("b");
        if (stall) {
          await new Promise((_, reject) =>
            runtime.signal.addEventListener("abort", () => reject(runtime.signal.reason)),
          );
        }
        return { b: "done" };
      })
      .addEdge(START, "go")
      .addEdge("go", "a")
      .addEdge("go", "b")
      .compile({ checkpointer: new MemoryCheckpointer(), interruptBefore: ["a"] });
    const config = thread();
    await graph.invoke({}, { config });
    const cut = new AbortController();
    const continued = graph.invoke(null, { config, signal: cut.signal });
    await finished;
    cut.abort();
    await expect(continued).rejects.toThrow();
    stall = false;
    const done = await graph.invoke(null, { config });
    expect(done).toMatchObject({ status: "done", state: { a: "done", b: "done" } });
    expect(calls).toEqual(["a", "b", "b"]);
  });
});
