import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  type Checkpointer,
  MemoryCheckpointer,
  PGliteCheckpointer,
} from "../../src/checkpoint/index.js";
import { Graph, InvalidUpdateError, interrupt, START } from "../../src/index.js";

// What a JSON request body gives: "__proto__" as an own key, not as the prototype.
const attack = () => JSON.parse('{"__proto__": {"isAdmin": true}}') as Record<string, unknown>;

/** What a node saw of its state: inherited properties and the prototype, or own data. */
function look(state: Record<string, unknown>) {
  return {
    isAdmin: state.isAdmin,
    prototypeIsObject: Object.getPrototypeOf(state) === Object.prototype,
    ownProto: Object.getOwnPropertyDescriptor(state, "__proto__")?.value,
  };
}

const safe = { isAdmin: undefined, prototypeIsObject: true, ownProto: { isAdmin: true } };

describe("a __proto__ key is the state's own data, never its prototype", () => {
  it("in the input", async () => {
    const seen: unknown[] = [];
    const graph = new Graph()
      .addNode("read", (state) => void seen.push(look(state)))
      .addEdge(START, "read")
      .compile();
    const r = await graph.invoke(attack());
    expect(seen).toEqual([safe]);
    expect(look(r.state)).toEqual(safe);
  });

  it("in a node's update, through a reducer, and into the next node", async () => {
    const seen: unknown[] = [];
    const graph = new Graph()
      .addReducer("log", (a: string[] = [], b: string[]) => [...a, ...b])
      .addNode("write", () => ({ ...attack(), log: ["write"] }))
      .addNode("read", (state) => void seen.push(look(state)))
      .addEdge(START, "write")
      .addEdge("write", "read")
      .compile();
    const r = await graph.invoke({});
    expect(seen).toEqual([safe]);
    expect(r.state.log).toEqual(["write"]);
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
  });

  it("in a resume value the node returns as its update", async () => {
    const seen: unknown[] = [];
    const graph = new Graph()
      .addNode("ask", () => interrupt("update?") as Record<string, unknown>)
      .addNode("read", (state) => void seen.push(look(state)))
      .addEdge(START, "ask")
      .addEdge("ask", "read")
      .compile({ checkpointer: new MemoryCheckpointer() });
    const config = { configurable: { thread_id: "proto-resume" } };
    await graph.invoke({}, { config });
    const r = await graph.resume(attack(), { config });
    expect(seen).toEqual([safe]);
    expect(look(r.state)).toEqual(safe);
  });

  it("in a key with a reducer named __proto__ (the reducer gets no inherited value)", async () => {
    const existing: unknown[] = [];
    const graph = new Graph()
      .addReducer("__proto__", (a: unknown, b: unknown) => {
        existing.push(a);
        return b;
      })
      .addNode("write", () => attack())
      .addEdge(START, "write")
      .compile();
    const r = await graph.invoke({});
    expect(existing).toEqual([undefined]);
    expect(look(r.state)).toEqual(safe);
  });

  it("in a subgraph's input, picked from the parent's state", async () => {
    const seen: unknown[] = [];
    const child = new Graph({ name: "Child" })
      .addNode("read", (state) => void seen.push(look(state)))
      .addEdge(START, "read")
      .compile();
    const graph = new Graph({ name: "Parent" })
      .addNode("child", child)
      .addEdge(START, "child")
      .compile();
    await graph.invoke(attack());
    expect(seen).toEqual([safe]);
  });

  it("refused as an unknown key (not a crash) by a graph with a schema", async () => {
    const graph = new Graph({ state: z.object({ name: z.string().optional() }) })
      .addNode("noop", () => ({}))
      .addEdge(START, "noop")
      .compile();
    for (const input of [attack(), JSON.parse('{"constructor": 1}')]) {
      const error = await graph.invoke(input).catch((e) => e);
      expect(error).toBeInstanceOf(InvalidUpdateError);
      expect(error.message).toMatch(/wrote unknown key "(__proto__|constructor)"/);
    }
  });

  const stores: Array<[string, () => Checkpointer]> = [
    ["MemoryCheckpointer", () => new MemoryCheckpointer()],
    ["PGliteCheckpointer", () => new PGliteCheckpointer("memory://")],
  ];
  const opened: Checkpointer[] = [];
  afterAll(async () => {
    for (const store of opened) await store.close?.();
  });
  for (const [name, open] of stores) {
    it(`after a checkpoint restore (${name}), nested keys included`, async () => {
      const store = open();
      opened.push(store);
      const seen: unknown[] = [];
      const graph = new Graph()
        .addNode("write", () => ({ ...attack(), nested: { user: attack() } }))
        .addNode("ask", () => ({ answer: interrupt("go on?") }))
        .addNode("read", (state) => {
          seen.push(look(state), look(state.nested.user));
        })
        .addEdge(START, "write")
        .addEdge("write", "ask")
        .addEdge("ask", "read")
        .compile({ checkpointer: store });
      const config = { configurable: { thread_id: `proto-restore-${name}` } };
      expect((await graph.invoke({}, { config })).status).toBe("interrupted");
      // The resume restores the state from the stored JSON.
      const r = await graph.resume("yes", { config });
      expect(seen).toEqual([safe, safe]);
      expect(look(r.state)).toEqual(safe);
      expect(look((await graph.getState(config)).values)).toEqual(safe);
    });
  }
});
