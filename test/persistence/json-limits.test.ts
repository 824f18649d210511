import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import {
  type Checkpointer,
  MAX_JSON_DEPTH,
  MemoryCheckpointer,
  PGliteCheckpointer,
  PostgresCheckpointer,
} from "../../src/checkpoint/index.js";
import {
  Graph,
  interrupt,
  NonSerializableError,
  START,
  ValueTooDeepError,
} from "../../src/index.js";
import { dropStoreTables } from "../setup/store-tables.js";

/** Arrays nested `levels` deep around a number. */
function nested(levels: number): unknown {
  let value: unknown = 7;
  for (let i = 0; i < levels; i++) value = [value];
  return value;
}

/** A graph that writes `value()` in its second node, after a checkpointed first one. */
function writing(value: () => unknown, checkpointer: Checkpointer = new MemoryCheckpointer()) {
  return new Graph()
    .addNode("a", () => ({ ok: true }))
    .addNode("b", () => ({ x: value() }))
    .addEdge(START, "a")
    .addEdge("a", "b")
    .compile({ checkpointer });
}

/** Runs the graph, expects a typed refusal, and checks that the write never landed. */
async function refused(value: () => unknown, thread: string) {
  const graph = writing(value);
  const config = { configurable: { thread_id: thread } };
  const error = await graph.invoke({}, { config }).catch((e) => e);
  const state = await graph.getState(config);
  expect(state.values).toEqual({ ok: true });
  expect(state.next).toEqual(["b"]);
  return error;
}

describe(`values nest at most MAX_JSON_DEPTH (${MAX_JSON_DEPTH}) levels`, () => {
  const opened: Checkpointer[] = [];
  const url = process.env.STATEWEAVER_PG_URL;
  const prefix = `sw_depth_${randomUUID().slice(0, 8)}_`;
  afterAll(async () => {
    for (const store of opened) await store.close?.();
    if (!url) return;
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    await dropStoreTables(pool, prefix);
    await pool.end();
  });
  const stores: Array<[string, (() => Checkpointer) | undefined]> = [
    ["MemoryCheckpointer", () => new MemoryCheckpointer()],
    ["PGliteCheckpointer", () => new PGliteCheckpointer("memory://")],
    [
      "PostgresCheckpointer",
      url
        ? () => new PostgresCheckpointer({ connectionString: url, tablePrefix: prefix })
        : undefined,
    ],
  ];
  for (const [name, open] of stores) {
    it.skipIf(!open)(
      `stores a value at the limit and gives it back after a restore (${name})`,
      async () => {
        const store = open!();
        opened.push(store);
        const deep = nested(MAX_JSON_DEPTH);
        let seen: unknown;
        const graph = new Graph()
          .addNode("write", () => ({ deep, answer: interrupt(deep) }))
          .addNode("read", (state) => {
            seen = state.deep;
          })
          .addEdge(START, "write")
          .addEdge("write", "read")
          .compile({ checkpointer: store });
        const config = { configurable: { thread_id: `depth-${name}` } };
        const paused = await graph.invoke({ deep }, { config });
        expect(paused.status === "interrupted" && paused.interrupt.value).toEqual(deep);
        const done = await graph.resume(deep, { config });
        expect(seen).toEqual(deep);
        expect(done.state).toEqual({ deep, answer: deep });
      },
    );
  }

  it("refuses one level more with ValueTooDeepError, before anything is written", async () => {
    const error = await refused(() => nested(MAX_JSON_DEPTH + 1), "depth-over");
    expect(error).toBeInstanceOf(ValueTooDeepError);
    expect(error.path).toBe("state.x");
    expect(error.message).toMatch(/state\.x nests objects and arrays more than 1000 levels/);
  });

  it("refuses 5,000 levels as input, write, interrupt payload or resume value without a RangeError", async () => {
    const deep = nested(5000);
    const graph = new Graph()
      .addNode("ask", (state) => ({ answer: interrupt(state.payload ?? "?") }))
      .addEdge(START, "ask")
      .compile({ checkpointer: new MemoryCheckpointer() });
    const config = { configurable: { thread_id: "depth-5000" } };
    await expect(graph.invoke({ deep }, { config })).rejects.toThrow(ValueTooDeepError);
    await expect(refused(() => deep, "depth-5000-write")).resolves.toBeInstanceOf(
      ValueTooDeepError,
    );
    await graph.invoke({ payload: "fine" }, { config });
    await expect(graph.resume(deep, { config })).rejects.toThrow(ValueTooDeepError);
    expect((await graph.getState(config)).next).toEqual(["ask"]);
    const payload = new Graph()
      .addNode("ask", () => ({ answer: interrupt(deep) }))
      .addEdge(START, "ask")
      .compile({ checkpointer: new MemoryCheckpointer() });
    const error = await payload
      .invoke({}, { config: { configurable: { thread_id: "depth-5000-payload" } } })
      .catch((e) => e);
    expect(error).toBeInstanceOf(ValueTooDeepError);
    expect(error.path).toBe("interrupt value");
  });
});

describe("a value that fails while it is read is refused with a typed error", () => {
  it("a toJSON() that returns a BigInt", async () => {
    const error = await refused(() => ({ at: { toJSON: () => 10n } }), "read-tojson-bigint");
    expect(error).toBeInstanceOf(NonSerializableError);
    expect(error.message).toMatch(/state\.x\.at is an object whose toJSON\(\) returned a BigInt/);
  });

  it("a toJSON() that returns a cycle", async () => {
    const error = await refused(() => {
      const holder: Record<string, unknown> = {};
      holder.at = { toJSON: () => ({ back: holder }) };
      return holder;
    }, "read-tojson-cycle");
    expect(error).toBeInstanceOf(NonSerializableError);
    expect(error.message).toMatch(/state\.x\.at\.back is a circular reference/);
  });

  it("a toJSON() that throws", async () => {
    const boom = new Error("no clock");
    const error = await refused(
      () => ({
        at: {
          toJSON() {
            throw boom;
          },
        },
      }),
      "read-tojson-throws",
    );
    expect(error).toBeInstanceOf(NonSerializableError);
    expect(error.message).toMatch(
      /state\.x\.at is an object whose toJSON\(\) throws \(Error: no clock\)/,
    );
    expect(error.cause).toBe(boom);
  });

  it("a getter that throws", async () => {
    const error = await refused(
      () => ({
        get secret(): string {
          throw new TypeError("locked");
        },
      }),
      "read-getter",
    );
    expect(error).toBeInstanceOf(NonSerializableError);
    expect(error.path).toBe("state.x.secret");
    expect(error.message).toMatch(/a getter or Proxy that throws when read \(TypeError: locked\)/);
  });

  it("a Proxy whose traps throw, and a revoked Proxy", async () => {
    const trapped = new Proxy(
      {},
      {
        ownKeys() {
          throw new Error("no keys for you");
        },
      },
    );
    const error = await refused(() => ({ list: [trapped] }), "read-proxy");
    expect(error).toBeInstanceOf(NonSerializableError);
    expect(error.path).toBe("state.x.list[0]");
    expect(error.message).toMatch(/no keys for you/);
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    const revoked = await refused(() => ({ p: proxy }), "read-revoked");
    expect(revoked).toBeInstanceOf(NonSerializableError);
    expect(revoked.path).toBe("state.x.p");
  });
});
