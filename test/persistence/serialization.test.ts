import { describe, expect, it } from "vitest";
import type { AnyActor, InspectionEvent } from "xstate";
import { MemoryCheckpointer } from "../../src/checkpoint/index.js";
import { Graph, interrupt, NonSerializableError, Send, START } from "../../src/index.js";
import {
  compactSnapshot,
  persistedSnapshotOf,
  storedValue,
} from "../../src/runtime/snapshot-format.js";

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

describe("only JSON enters a graph", () => {
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

  it("accepts objects with toJSON, in their JSON form", async () => {
    const graph = graphReturning(() => ({ at: new Stamp() }));
    const r = await graph.invoke({}, { config: { configurable: { thread_id: "ser-tojson" } } });
    expect(r.state.at).toBe("2026-01-01");
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
});

describe("one rule with or without a checkpointer: values are JSON where they enter", () => {
  const date = new Date(Date.UTC(2026, 0, 1));
  const iso = "2026-01-01T00:00:00.000Z";

  for (const checkpointer of [undefined, new MemoryCheckpointer()]) {
    const label = checkpointer ? "with a checkpointer" : "without a checkpointer";
    it(`refuses a function or a BigInt ${label}, naming the path`, async () => {
      const graph = new Graph()
        .addNode("a", () => ({ fn: () => 1 }))
        .addEdge(START, "a")
        .compile({ checkpointer });
      const config = { configurable: { thread_id: `one-rule-${label}` } };
      const written = await graph.invoke({}, { config }).catch((e) => e);
      expect(written).toBeInstanceOf(NonSerializableError);
      expect(written.message).toMatch(/state\.fn is a function/);
      const input = await graph.invoke({ n: 10n }, { config }).catch((e) => e);
      expect(input).toBeInstanceOf(NonSerializableError);
      expect(input.message).toMatch(/input\.n is a BigInt/);
    });

    it(`turns a Date in the input, a write or a Send argument into its string ${label}`, async () => {
      const seen: unknown[] = [];
      const graph = new Graph()
        .addNode("write", (s) => {
          seen.push(s.from);
          return { at: date, nested: { list: [1, date] } };
        })
        .addNode("fan", (arg: { at: unknown }) => {
          seen.push(arg.at);
          return {};
        })
        .addNode("read", (s) => {
          seen.push(s.at, s.nested);
          return {};
        })
        .addEdge(START, "write")
        .addConditionalEdges("write", () => new Send("fan", { at: date }))
        .addEdge("fan", "read")
        .compile({ checkpointer });
      const config = { configurable: { thread_id: `dates-${label}` } };
      const r = await graph.invoke({ from: date }, { config });
      expect(seen).toEqual([iso, iso, iso, { list: [1, iso] }]);
      expect(r.state).toEqual({ from: iso, at: iso, nested: { list: [1, iso] } });
    });
  }

  it("gives a node a Date resume value as its string, live and after a restore alike", async () => {
    const seen: unknown[] = [];
    const graph = new Graph()
      .addNode("ask", () => {
        const first = interrupt({ asked: date });
        seen.push(first);
        return { first, second: interrupt("and?") };
      })
      .addEdge(START, "ask")
      .compile({ checkpointer: new MemoryCheckpointer() });
    const config = { configurable: { thread_id: "date-resume" } };
    const paused = await graph.invoke({}, { config });
    expect(paused.status === "interrupted" && paused.interrupt.value).toEqual({ asked: iso });
    await graph.resume(date, { config }); // live: the node sees the answer as given
    await graph.resume("done", { config }); // restored: the node re-runs from the checkpoint
    expect(seen).toEqual([iso, iso]);
  });

  it("stores an updateState Date as its string", async () => {
    const graph = graphReturning(() => ({}));
    const config = { configurable: { thread_id: "date-update" } };
    await graph.invoke({}, { config });
    await graph.updateState(config, { at: date });
    expect((await graph.getState(config)).values.at).toBe(iso);
  });

  it("copies only along the paths where it applies toJSON, and never changes what it was given", async () => {
    const plain = { tags: ["a"], deep: { n: 1 } };
    const given = { when: { at: date, note: "x" }, plain, gone: { a: undefined, b: 1 } };
    let state: Record<string, unknown> = {};
    const graph = new Graph()
      .addNode("read", (s) => {
        state = s;
      })
      .addEdge(START, "read")
      .compile();
    await graph.invoke(given);
    expect(state.plain).toBe(plain);
    expect(state.when).toEqual({ at: iso, note: "x" });
    // An undefined property is left out, as a checkpoint would leave it out.
    expect(Object.keys(state.gone as object)).toEqual(["b"]);
    expect(given.when.at).toBe(date);
    expect(Object.keys(given.gone)).toEqual(["a", "b"]);
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
      // Compared in the stored form of the state value (see storedValue).
      compared.push(JSON.stringify(storedValue(actor.getSnapshot().value)));
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
    // A barrier is checkpointed on the way from a step to the next; the run rests in the
    // states below.
    const config = { configurable: { thread_id: "stored-snapshot" } };
    const options = { config, inspect, durability: "sync" as const };
    expect((await graph.invoke({}, options)).status).toBe("interrupted");
    expect((await graph.resume("yes", options)).status).toBe("interrupted");
    expect((await graph.resume(undefined, options)).status).toBe("interrupted");
    await expect(graph.resume(true, options)).rejects.toThrow(/boom/);
    // Idle, a fan-out running and paused, a lone node running, the breakpoint, a paused
    // subgraph call, and the failed run.
    const seen = new Set(compared);
    expect(seen).toContain('"idle"');
    expect(seen).toContain('{"stepping":{"__fanout__":"interrupted"}}');
    expect(seen).toContain('"breakpoint"');
    expect(seen).toContain('{"stepping":{"child":"interrupted"}}');
    expect(seen).toContain('"failed"');
  });
});
