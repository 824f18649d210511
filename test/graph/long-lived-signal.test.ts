import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { AbortError, Graph, START } from "../../src/index.js";

/** What a signal holds on to for each call made with it: abort listeners, and (Node 20) `AbortSignal.any` dependants. */
function held(signal: AbortSignal): number {
  const dependants = Object.getOwnPropertySymbols(signal).find(
    (s) => s.description === "kDependantSignals",
  );
  const set = dependants
    ? (signal as unknown as Record<symbol, Set<unknown>>)[dependants]
    : undefined;
  return getEventListeners(signal, "abort").length + (set?.size ?? 0);
}

describe("a long-lived AbortSignal passed to every call", () => {
  it("holds nothing per call after 2,000 invokes whose nodes read runtime.signal", async () => {
    const server = new AbortController();
    const during: number[] = [];
    const graph = new Graph()
      .addNode("a", (_s, runtime) => {
        runtime.signal.addEventListener("abort", () => {});
        return {};
      })
      .addNode("b", async (_s, runtime) => {
        void runtime.signal;
        during.push(held(server.signal));
        return {};
      })
      .addEdge(START, "a")
      .addEdge("a", "b")
      .compile();
    for (let i = 0; i < 2000; i++) await graph.invoke({}, { signal: server.signal });
    expect(held(server.signal)).toBe(0);
    // While a call runs, the signal holds that call's own links only: no more on the last than on the first.
    expect(new Set(during)).toEqual(new Set([during[0]]));
  });

  it("still aborts each running node's runtime.signal, with the caller's reason", async () => {
    const server = new AbortController();
    const signals: AbortSignal[] = [];
    let started!: () => void;
    const bothStarted = new Promise<void>((resolve) => {
      let n = 0;
      started = () => void (++n === 2 && resolve());
    });
    const graph = new Graph()
      .addNode("left", (_s, runtime) => {
        signals.push(runtime.signal);
        started();
        return new Promise(() => {});
      })
      .addNode("right", (_s, runtime) => {
        signals.push(runtime.signal);
        started();
        return new Promise(() => {});
      })
      .addEdge(START, "left")
      .addEdge(START, "right")
      .compile();
    const run = graph.invoke({}, { signal: server.signal }).catch((e) => e);
    await bothStarted;
    const reason = new Error("shutting down");
    server.abort(reason);
    expect(await run).toBeInstanceOf(AbortError);
    expect(signals.map((s) => [s.aborted, s.reason])).toEqual([
      [true, reason],
      [true, reason],
    ]);
    expect(held(server.signal)).toBe(0);
  });
});
