import { describe, expect, it } from "vitest";
import { MemoryCheckpointer } from "../../src/checkpoint/index.js";
import { Command, END, Graph, interrupt, START } from "../../src/index.js";

let threads = 0;
const thread = () => ({ configurable: { thread_id: `cmd-${++threads}` } });
const append = (existing: unknown[] = [], update: unknown) => [...existing, ...[update].flat()];

describe("Command as input", () => {
  it("Command({ resume, update }) applies the update through the reducers before the resumed task runs", async () => {
    const seen: unknown[] = [];
    const graph = new Graph({ name: "ResumeWithUpdate" })
      .addReducer("log", append)
      .addNode("ask", (state) => {
        const answer = interrupt("Proceed?");
        seen.push(state.note);
        return { answer, log: "asked" };
      })
      .addEdge(START, "ask")
      .compile({ checkpointer: new MemoryCheckpointer() });
    const config = thread();
    await graph.invoke({ log: ["start"] }, { config });
    const result = await graph.invoke(
      new Command({ resume: "yes", update: { note: "from the reviewer", log: "updated" } }),
      { config },
    );
    expect(result).toEqual({
      status: "done",
      state: { log: ["start", "updated", "asked"], note: "from the reviewer", answer: "yes" },
    });
    // The first run paused before reading the note; the resumed one saw the update.
    expect(seen).toEqual(["from the reviewer"]);
  });

  it("a refused Command({ resume, update }) applies nothing", async () => {
    const graph = new Graph({ name: "Refused" })
      .addNode("a", () => ({ a: interrupt("a?") }))
      .addNode("b", () => ({ b: interrupt("b?") }))
      .addEdge(START, "a")
      .addEdge(START, "b")
      .compile({ checkpointer: new MemoryCheckpointer() });
    const config = thread();
    await graph.invoke({ x: 1 }, { config });
    const before = await graph.getState(config);
    // Two interrupts pending: a bare value is ambiguous.
    await expect(
      graph.invoke(new Command({ resume: "yes", update: { x: 2 } }), { config }),
    ).rejects.toThrow(/ambiguous/);
    expect(await graph.getState(config)).toEqual(before);
  });

  it("Command({ goto }) as input runs only the goto targets, not START's edges", async () => {
    const ran: string[] = [];
    const graph = new Graph({ name: "GotoInput" })
      .addNode(
        "first",
        () => {
          ran.push("first");
        },
        { ends: ["jump"] },
      )
      .addNode("jump", () => {
        ran.push("jump");
      })
      .addEdge(START, "first")
      .addEdge("first", END)
      .addEdge("jump", END)
      .compile();
    const result = await graph.invoke(new Command({ goto: "jump", update: { via: "goto" } }));
    expect(result).toEqual({ status: "done", state: { via: "goto" } });
    expect(ran).toEqual(["jump"]);
  });
});

describe("Command.PARENT from a subgraph", () => {
  it("hands the parent every write the child made, each exactly once, in order", async () => {
    const child = new Graph({ name: "Child" })
      .addReducer("foo", append)
      .addNode("c1", () => ({ foo: "bar" }))
      .addNode(
        "c2",
        () => new Command({ graph: Command.PARENT, goto: "after", update: { foo: "baz" } }),
      )
      .addEdge(START, "c1")
      .addEdge("c1", "c2")
      .compile();
    const parent = new Graph({ name: "Parent" })
      .addReducer("foo", append)
      .addNode("sub", child, { ends: ["after"] })
      .addNode("after", (state) => ({ seen: state.foo.length }))
      .addEdge(START, "sub")
      .compile();
    expect(await parent.invoke({ foo: ["foo"] })).toEqual({
      status: "done",
      state: { foo: ["foo", "bar", "baz"], seen: 3 },
    });
  });

  it("does so with a checkpointer too, across a pause in the child", async () => {
    const child = new Graph({ name: "PausingChild" })
      .addReducer("foo", append)
      .addNode("c1", () => ({ foo: "bar" }))
      .addNode("c2", () => {
        const ok = interrupt("send it up?");
        return new Command({ graph: Command.PARENT, goto: "after", update: { foo: ok } });
      })
      .addEdge(START, "c1")
      .addEdge("c1", "c2")
      .compile();
    const parent = new Graph({ name: "PausingParent" })
      .addReducer("foo", append)
      .addNode("sub", child, { ends: ["after"] })
      .addNode("after", () => ({ done: true }))
      .addEdge(START, "sub")
      .compile({ checkpointer: new MemoryCheckpointer() });
    const config = thread();
    expect((await parent.invoke({ foo: ["foo"] }, { config })).status).toBe("interrupted");
    expect(await parent.resume("baz", { config })).toEqual({
      status: "done",
      state: { foo: ["foo", "bar", "baz"], done: true },
    });
  });
});
