import { describe, expect, it } from "vitest";
import { MemoryCheckpointer } from "../../src/checkpoint/index.js";
import { Graph, START } from "../../src/index.js";

const append = (a: string[] = [], b: string | string[] = []) => [...a, ...[b].flat()];

/** A parent whose `child` subgraph stops before its `c2` (a static breakpoint of the child). */
function pausedInChild() {
  const child = new Graph({ name: "child" })
    .addReducer("log", append)
    .addNode("c1", () => ({ log: "c1" }))
    .addNode("c2", () => ({ log: "c2" }))
    .addEdge(START, "c1")
    .addEdge("c1", "c2")
    .compile({ interruptBefore: ["c2"] });
  return new Graph({ name: "parent" })
    .addReducer("log", append)
    .addNode("p1", () => ({ log: "p1" }))
    .addNode("child", child)
    .addEdge(START, "p1")
    .addEdge("p1", "child")
    .compile({ checkpointer: new MemoryCheckpointer() });
}

let threads = 0;

describe("updateState addressed to a subgraph run (its checkpoint_ns)", () => {
  it("updates the subgraph's state, and the parent's paused task goes on from it", async () => {
    const parent = pausedInChild();
    const config = { configurable: { thread_id: `sub-update-${++threads}` } };
    await parent.invoke({ log: [] }, { config });
    const before = await parent.getState(config, { subgraphs: true });
    const ns = before.tasks[0]!.state!.config.configurable!.checkpoint_ns!;
    const childConfig = { configurable: { ...config.configurable, checkpoint_ns: ns } };

    const updated = await parent.updateState(childConfig, { log: ["edited"] });
    expect(updated.configurable?.checkpoint_ns).toBe(ns);
    const inner = await parent.getState(childConfig);
    expect(inner.values.log).toEqual(["p1", "c1", "edited"]);
    expect(inner.next).toEqual(["c2"]);
    // The parent is as it was: still paused in its child task.
    const after = await parent.getState(config);
    expect(after.config).toEqual(before.config);
    expect(after.next).toEqual(["child"]);

    const done = await parent.invoke(null, { config });
    expect(done).toMatchObject({ status: "done", state: { log: ["p1", "c1", "edited", "c2"] } });
  });

  it("refuses a checkpoint_ns that names no subgraph, saying where to take one, and changes nothing", async () => {
    const parent = pausedInChild();
    const config = { configurable: { thread_id: `sub-update-${++threads}` } };
    await parent.invoke({ log: [] }, { config });
    const before = await parent.getState(config);
    await expect(
      parent.updateState(
        { configurable: { ...config.configurable, checkpoint_ns: "p1:1:p1:0" } },
        { log: ["x"] },
      ),
    ).rejects.toThrow(/"p1" is not one of its subgraph nodes \(child\).*getState\(config\)\.tasks/);
    expect(await parent.getState(config)).toEqual(before);
  });
});
