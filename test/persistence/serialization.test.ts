import { describe, expect, it } from "vitest";
import type { AnyActor, InspectionEvent } from "xstate";
import { MemoryCheckpointer } from "../../src/checkpoint/index.js";
import { Graph, interrupt, NonSerializableError, START } from "../../src/index.js";
import { compactSnapshot, persistedSnapshotOf } from "../../src/runtime/snapshot-format.js";

class Money {
  constructor(readonly cents: number) {}
}
class Stamp {
  toJSON() {
    return "2026-01-01";
  }
}

function graphReturning(
  value: () => Record<string, unknown>,
  checkpointer = new MemoryCheckpointer(),
) {
  return new Graph()
    .addNode("a", () => ({ ok: true }))
    .addNode("b", value)
    .addEdge(START, "a")
    .addEdge("a", "b")
    .compile({ checkpointer });
}

describe("only JSON is checkpointed", () => {
  const cycle: Record<string, unknown> = {};
  cycle.self = cycle;
  const cases: Array<[string, () => Record<string, unknown>, RegExp]> = [
    ["a function", () => ({ cb: () => 1 }), /state\.cb is a function/],
    ["a symbol", () => ({ s: Symbol("x") }), /state\.s is a symbol/],
    [
      "a class instance without toJSON",
      () => ({ m: new Money(5) }),
      /state\.m is an instance of Money/,
    ],
    ["a cycle", () => ({ c: cycle }), /state\.c\.self is a circular reference/],
    ["a BigInt", () => ({ n: 10n }), /state\.n is a BigInt/],
    ["NaN", () => ({ n: Number.NaN }), /state\.n is NaN/],
    [
      "undefined inside an array",
      () => ({ xs: [1, undefined] }),
      /state\.xs\[1\] is undefined inside an array/,
    ],
  ];
  for (const [what, value, message] of cases) {
    it(`refuses ${what} in state, naming the path, before anything is written`, async () => {
      const checkpointer = new MemoryCheckpointer();
      const graph = graphReturning(value, checkpointer);
      const config = { configurable: { thread_id: `ser-${what}` } };
      const error = await graph.invoke({}, { config }).catch((e) => e);
      expect(error).toBeInstanceOf(NonSerializableError);
      expect(error.message).toMatch(message);
      // The last checkpoint is the barrier before "b": its write never landed.
      const state = await graph.getState(config);
      expect(state.values).toEqual({ ok: true });
      expect(state.next).toEqual(["b"]);
    });
  }

  it("accepts objects with toJSON", async () => {
    const graph = graphReturning(() => ({ at: new Stamp() }));
    const r = await graph.invoke({}, { config: { configurable: { thread_id: "ser-tojson" } } });
    expect(r.status).toBe("done");
  });

  it("refuses a non-JSON input before the thread changes", async () => {
    const graph = graphReturning(() => ({}));
    const config = { configurable: { thread_id: "ser-input" } };
    await expect(graph.invoke({ cb: () => 1 }, { config })).rejects.toThrow(
      /input\.cb is a function/,
    );
    expect((await graph.getState(config)).metadata).toBeUndefined();
  });

  it("refuses a non-JSON interrupt payload", async () => {
    const graph = new Graph()
      .addNode("ask", () => ({ a: interrupt({ callback: () => 1 }) }))
      .addEdge(START, "ask")
      .compile({ checkpointer: new MemoryCheckpointer() });
    await expect(
      graph.invoke({}, { config: { configurable: { thread_id: "ser-payload" } } }),
    ).rejects.toThrow(/interrupt value\.callback is a function/);
  });

  it("refuses a non-JSON resume value and keeps the thread paused", async () => {
    const graph = new Graph()
      .addNode("ask", () => ({ a: interrupt("?") }))
      .addEdge(START, "ask")
      .compile({ checkpointer: new MemoryCheckpointer() });
    const config = { configurable: { thread_id: "ser-resume" } };
    await graph.invoke({}, { config });
    await expect(graph.resume(new Money(1), { config })).rejects.toBeInstanceOf(
      NonSerializableError,
    );
    expect((await graph.getState(config)).next).toEqual(["ask"]);
  });

  it("allows non-JSON state in a graph without a checkpointer", async () => {
    const fn = () => 1;
    const graph = new Graph()
      .addNode("a", () => ({ fn }))
      .addEdge(START, "a")
      .compile();
    expect((await graph.invoke({})).state.fn).toBe(fn);
  });
});

describe("the stored snapshot", () => {
  it("is what XState's getPersistedSnapshot() gives, in every state a run passes through", async () => {
    const compared: string[] = [];
    const inspect = (e: InspectionEvent) => {
      const actor = e.actorRef as AnyActor;
      if (e.type !== "@xstate.snapshot" || actor.id === "tasks") return;
      const xstate = compactSnapshot(actor.getPersistedSnapshot() as never);
      expect(compactSnapshot(persistedSnapshotOf(actor.getSnapshot()))).toEqual(xstate);
      compared.push(JSON.stringify(actor.getSnapshot().value));
    };
    const child = new Graph({ name: "Child" })
      .addNode("confirm", () => ({ confirmed: interrupt("confirm?") }))
      .addEdge(START, "confirm")
      .compile();
    const graph = new Graph({ name: "Parent" })
      .addReducer("log", (a: string[] = [], b: string[]) => a.concat(b))
      .addNode("ask", () => ({ log: [`ask:${interrupt("ok?")}`] }))
      .addNode("work", () => ({ log: ["work"] }))
      .addNode("child", child)
      .addNode("bad", () => {
        throw new Error("boom");
      })
      .addEdge(START, "ask")
      .addEdge(START, "work")
      .addEdge(["ask", "work"], "child")
      .addEdge("child", "bad")
      .compile({ checkpointer: new MemoryCheckpointer(), interruptBefore: ["child"] });
    // Durability "sync" holds the run at each barrier, so barriers are snapshots too.
    const config = { configurable: { thread_id: "stored-snapshot" } };
    const options = { config, inspect, durability: "sync" as const };
    expect((await graph.invoke({}, options)).status).toBe("interrupted");
    expect((await graph.resume("yes", options)).status).toBe("interrupted");
    expect((await graph.resume(undefined, options)).status).toBe("interrupted");
    await expect(graph.resume(true, options)).rejects.toThrow(/boom/);
    // Idle, barrier, a fan-out running and paused, a lone node running, the breakpoint,
    // a paused subgraph call, and the failed run.
    const seen = new Set(compared);
    expect(seen).toContain('"barrier"');
    expect(seen).toContain('{"stepping":{"__fanout__":"interrupted"}}');
    expect(seen).toContain('"breakpoint"');
    expect(seen).toContain('{"stepping":{"child":"interrupted"}}');
    expect(seen).toContain('"failed"');
  });
});
