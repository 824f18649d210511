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

  it("stops after and then before when both apply at one barrier", async () => {
    const { graph } = debuggableFlow({ interruptAfter: ["load"], interruptBefore: ["process"] });
    const config = thread();
    const first = await graph.invoke({ input: "x" }, { config });
    expect(first.status === "interrupted" && first.interrupt.timing).toBe("after");
    const second = await graph.resume(undefined, { config });
    expect(second.status === "interrupted" && second.interrupt.timing).toBe("before");
    expect((await graph.resume(undefined, { config })).status).toBe("done");
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
