// bulkUpdateState with a Command as an update's values, as LangGraph takes it: the update is
// written as the node wrote it and its goto is where control goes next, as if the node had
// returned that Command. A resume, a goto to no node (or not in the node's ends), or a goto
// without a node is refused, and the thread is left as it was.
import { describe, expect, it } from "vitest";
import { MemoryCheckpointer } from "../../src/checkpoint/index.js";
import { GraphValidationError, InvalidUpdateError } from "../../src/errors/index.js";
import { Command, END, Graph, START } from "../../src/index.js";

const append = (a: string[] = [], b: string | string[]) => [...a, ...[b].flat()];

/** `review` decides between `ship` and `revise` (its ends); `revise` goes on to `audit`. */
const reviewGraph = () =>
  new Graph({ name: "review" })
    .addReducer("log", append)
    .addNode("review", () => new Command({ update: { log: "reviewed" }, goto: "ship" }), {
      ends: ["ship", "revise"],
    })
    .addNode("ship", () => ({ log: "shipped" }))
    .addNode("revise", () => ({ log: "revised" }))
    .addNode("audit", () => ({ log: "audited" }))
    .addEdge(START, "review")
    .addEdge("ship", END)
    .addEdge("revise", "audit")
    .addEdge("audit", END)
    .compile({ checkpointer: new MemoryCheckpointer() });

const input = { updates: [{ values: { log: [] }, asNode: "__input__" }] };

describe("bulkUpdateState with a Command", () => {
  it("writes the Command's update as its node and goes where its goto says", async () => {
    const graph = reviewGraph();
    const config = { configurable: { thread_id: "goto" } };
    await graph.bulkUpdateState(config, [
      input,
      { updates: [{ values: { log: [] }, asNode: START }] },
      {
        updates: [
          {
            values: new Command({ update: { log: "by hand", ok: false }, goto: "revise" }),
            asNode: "review",
          },
        ],
      },
    ]);
    const state = await graph.getState(config);
    expect(state.values).toEqual({ log: ["by hand"], ok: false });
    expect(state.next).toEqual(["revise"]);
    expect(state.metadata).toMatchObject({
      source: "update",
      writes: { review: { log: "by hand", ok: false } },
    });
    const done = await graph.invoke(null, { config });
    expect(done.state).toEqual({ log: ["by hand", "revised", "audited"], ok: false });
  });

  it("a goto from START goes only there, as a Command input does", async () => {
    const graph = reviewGraph();
    const config = { configurable: { thread_id: "start" } };
    await graph.bulkUpdateState(config, [
      input,
      { updates: [{ values: new Command({ goto: ["audit"] }), asNode: START }] },
    ]);
    expect((await graph.getState(config)).next).toEqual(["audit"]);
    expect((await graph.invoke(null, { config })).state).toEqual({ log: ["audited"] });
  });

  it("refuses a resume, a goto to no node, one outside the node's ends and one without a node, writing nothing", async () => {
    const graph = reviewGraph();
    const config = { configurable: { thread_id: "refused" } };
    const before = await graph.bulkUpdateState(config, [input]);
    const refused = async (
      values: Command,
      asNode: string | undefined,
      type: new (...a: never[]) => Error,
      text: RegExp,
    ) => {
      const call = graph.bulkUpdateState(config, [
        { updates: [{ values: { log: [] }, asNode: START }] },
        { updates: [{ values, asNode }] },
      ]);
      await expect(call).rejects.toBeInstanceOf(type);
      await expect(call).rejects.toThrow(text);
      expect((await graph.getState(config)).config).toEqual(before);
    };
    await refused(new Command({ resume: "yes" }), "review", InvalidUpdateError, /resume/);
    await refused(new Command({ goto: "ghost" }), "review", InvalidUpdateError, /"ghost", no node/);
    await refused(new Command({ goto: "ship" }), undefined, InvalidUpdateError, /needs asNode/);
    await refused(
      new Command({ goto: "audit" }),
      "review",
      GraphValidationError,
      /not in its ends/,
    );
  });
});
