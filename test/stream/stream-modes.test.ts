import { describe, expect, it } from "vitest";
import { MemoryCheckpointer } from "../../src/checkpoint/index.js";
import {
  END,
  Graph,
  InvalidConfigError,
  interrupt,
  START,
  type StreamPart,
  type TaskPayload,
} from "../../src/index.js";

async function collect(gen: AsyncGenerator<StreamPart, unknown>) {
  const parts: StreamPart[] = [];
  let next = await gen.next();
  while (!next.done) {
    parts.push(next.value);
    next = await gen.next();
  }
  return { parts, result: next.value };
}

const chain = () =>
  new Graph({ name: "chain" })
    .addNode("a", (_s, runtime) => {
      runtime.writer({ progress: 50 });
      return { x: 1 };
    })
    .addNode("b", (s) => ({ y: s.x + 1 }))
    .addEdge(START, "a")
    .addEdge("a", "b")
    .addEdge("b", END);

describe("stream modes", () => {
  it("values mode yields the whole state after each step", async () => {
    const { parts, result } = await collect(
      chain().compile().stream({ q: 0 }, { streamMode: "values" }),
    );
    expect(parts).toEqual([
      { mode: "values", ns: "", data: { q: 0 } },
      { mode: "values", ns: "", data: { q: 0, x: 1 } },
      { mode: "values", ns: "", data: { q: 0, x: 1, y: 2 } },
    ]);
    expect(result).toEqual({ status: "done", state: { q: 0, x: 1, y: 2 } });
  });

  it("updates mode yields { node: update }, and { __interrupt__ } when the run pauses", async () => {
    const graph = new Graph({ name: "ask" })
      .addNode("prepare", () => ({ ready: true }))
      .addNode("ask", () => ({ answer: interrupt("Proceed?") }))
      .addEdge(START, "prepare")
      .addEdge("prepare", "ask")
      .compile({ checkpointer: new MemoryCheckpointer() });
    const config = { configurable: { thread_id: "updates-mode" } };
    const { parts } = await collect(graph.stream({}, { config, streamMode: "updates" }));
    expect(parts[0]).toEqual({ mode: "updates", ns: "", data: { prepare: { ready: true } } });
    expect(parts[1]).toMatchObject({
      mode: "updates",
      data: { __interrupt__: [{ value: "Proceed?", node: "ask" }] },
    });
    expect(parts).toHaveLength(2);
  });

  it("several modes at once: every part is tagged with the mode it belongs to", async () => {
    const { parts } = await collect(
      chain()
        .compile()
        .stream({}, { streamMode: ["updates", "custom"] }),
    );
    expect(parts.map((p) => p.mode)).toEqual(["custom", "updates", "updates"]);
    expect(parts[0]).toEqual({
      mode: "custom",
      ns: "",
      data: { progress: 50 },
      metadata: { node: "a", step: 1 },
    });
  });

  it("tasks mode shows each task's start with its input, and its end with its result or error", async () => {
    const graph = new Graph({ name: "fails" })
      .addNode("ok", () => ({ x: 1 }))
      .addNode("bad", () => {
        throw new Error("broken");
      })
      .addEdge(START, "ok")
      .addEdge("ok", "bad")
      .compile();
    const parts: StreamPart[] = [];
    await expect(
      (async () => {
        for await (const part of graph.stream({ q: 1 }, { streamMode: "tasks" })) parts.push(part);
      })(),
    ).rejects.toThrow(/broken/);
    expect(parts.map((p) => p.data)).toEqual([
      { id: "1:ok:0", name: "ok", step: 1, attempt: 1, input: { q: 1 } },
      { id: "1:ok:0", name: "ok", step: 1, attempt: 1, result: { x: 1 } },
      { id: "2:bad:0", name: "bad", step: 2, attempt: 1, input: { q: 1, x: 1 } },
      {
        id: "2:bad:0",
        name: "bad",
        step: 2,
        attempt: 1,
        error: { name: "Error", message: "broken" },
      },
    ]);
  });

  it("tasks mode shows every attempt of a retried node, with the wait before the next", async () => {
    let calls = 0;
    const graph = new Graph({ name: "retried" })
      .addNode(
        "flaky",
        () => {
          calls++;
          if (calls < 3) throw new Error(`try ${calls}`);
          return { done: true };
        },
        { retryPolicy: { initialInterval: 2, backoffFactor: 2, jitter: false } },
      )
      .addEdge(START, "flaky")
      .compile();
    const { parts } = await collect(graph.stream({}, { streamMode: "tasks" }));
    const data = parts.map((p) => p.data as TaskPayload);
    const ends = data.filter((d) => !("input" in d));
    expect(ends).toEqual([
      expect.objectContaining({
        attempt: 1,
        error: { name: "Error", message: "try 1" },
        retryInMs: 2,
      }),
      expect.objectContaining({
        attempt: 2,
        error: { name: "Error", message: "try 2" },
        retryInMs: 4,
      }),
      expect.objectContaining({ attempt: 3, result: { done: true } }),
    ]);
    expect(data.filter((d) => "input" in d).map((d) => d.attempt)).toEqual([1, 2, 3]);
  });

  it("checkpoints mode yields each checkpoint's config, values and next, which getState reads back", async () => {
    const graph = chain().compile({ checkpointer: new MemoryCheckpointer() });
    const config = { configurable: { thread_id: "checkpoints-mode" } };
    const { parts } = await collect(graph.stream({}, { config, streamMode: "checkpoints" }));
    const data = parts.map((p) => p.data as Extract<StreamPart, { mode: "checkpoints" }>["data"]);
    expect(data.map((c) => c.next)).toEqual([["__start__"], ["a"], ["b"], []]);
    expect(data.at(-1)!.values).toEqual({ x: 1, y: 2 });
    expect(data[1]!.parentConfig).toEqual(data[0]!.config);
    const last = await graph.getState(config);
    expect(last.config.configurable?.checkpoint_id).toBe(
      data.at(-1)!.config.configurable.checkpoint_id,
    );
  });

  it("debug mode wraps tasks and checkpoints with their type, step and time", async () => {
    const graph = chain().compile({ checkpointer: new MemoryCheckpointer() });
    const config = { configurable: { thread_id: "debug-mode" } };
    const { parts } = await collect(graph.stream({}, { config, streamMode: "debug" }));
    const types = parts.map((p) => (p.data as { type: string }).type);
    expect(types).toEqual([
      "checkpoint",
      "checkpoint",
      "task",
      "task_result",
      "checkpoint",
      "task",
      "task_result",
      "checkpoint",
    ]);
    for (const p of parts)
      expect(Date.parse((p.data as { timestamp: string }).timestamp)).not.toBeNaN();
  });

  it("subgraph runs stream only with subgraphs: true, under their namespace", async () => {
    const child = new Graph({ name: "child" })
      .addNode("inner", () => ({ inner: true }))
      .addEdge(START, "inner")
      .compile();
    const graph = new Graph({ name: "parent" })
      .addNode("child", child)
      .addEdge(START, "child")
      .compile();
    const flat = await collect(graph.stream({}, { streamMode: "updates" }));
    expect(flat.parts).toEqual([{ mode: "updates", ns: "", data: { child: { inner: true } } }]);
    const nested = await collect(graph.stream({}, { streamMode: "updates", subgraphs: true }));
    expect(nested.parts).toHaveLength(2);
    expect(nested.parts[0]).toMatchObject({ mode: "updates", data: { inner: { inner: true } } });
    expect(nested.parts[0]!.ns).toMatch(/^child:/);
    expect(nested.parts[1]).toEqual(flat.parts[0]);
  });

  it("an unknown stream mode is refused before anything runs", () => {
    const graph = chain().compile();
    expect(() => graph.stream({}, { streamMode: ["values", "everything" as never] })).toThrow(
      InvalidConfigError,
    );
  });
});

describe("streamEvents", () => {
  it("returns the state and the events of a finished run", async () => {
    const r = await chain().compile().streamEvents({});
    expect(r.status).toBe("done");
    if (r.status !== "done") return;
    expect(r.state).toEqual({ x: 1, y: 2 });
    expect(r.events.map((e) => e.mode)).toEqual(["custom", "updates", "updates"]);
  });

  it("returns the interrupt and the events up to the pause", async () => {
    const graph = new Graph({ name: "pause" })
      .addNode("prepare", () => ({ ready: true }))
      .addNode("ask", () => ({ answer: interrupt("Proceed?") }))
      .addEdge(START, "prepare")
      .addEdge("prepare", "ask")
      .compile({ checkpointer: new MemoryCheckpointer() });
    const config = { configurable: { thread_id: "stream-events" } };
    const r = await graph.streamEvents({}, { config, streamMode: ["values", "updates"] });
    expect(r.status).toBe("interrupted");
    if (r.status !== "interrupted") return;
    expect(r.interrupt.value).toBe("Proceed?");
    expect(r.events.at(-1)).toMatchObject({ mode: "updates", data: { __interrupt__: [{}] } });
    expect(r.events.filter((e) => e.mode === "values").at(-1)!.data).toEqual({ ready: true });
  });
});
