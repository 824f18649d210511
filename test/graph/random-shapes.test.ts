import { Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { END, Graph, START } from "../../src/index.js";

const GRAPHS = 400;
/** Longer than any of these tiny runs can take, unless it spins. */
const STALL_MS = 3_000;
/** The worker first loads tsx and the fixture: seconds on a busy machine, before any graph runs. */
const BOOT_MS = 60_000;

describe("no graph shape can hang a run", () => {
  it(`${GRAPHS} random small graphs each finish, hit the recursion limit, or are refused — never spin, never an untyped error`, async () => {
    const outcomes = new Map<number, string>();
    // The worker loads the TypeScript fixture through tsx, as the test runner does here.
    const fixture = new URL("./fixtures/random-shapes.ts", import.meta.url).href;
    const boot = `import("tsx/esm/api").then((tsx) => { tsx.register(); return import(${JSON.stringify(fixture)}); })`;
    const worker = new Worker(boot, { eval: true, workerData: { from: 1, count: GRAPHS } });
    const stalled = await new Promise<number | undefined>((resolve, reject) => {
      let last = 0;
      let timer = setTimeout(() => resolve(last + 1), BOOT_MS);
      worker.on("message", (m: { seed?: number; outcome?: string; done?: boolean }) => {
        if (m.done) {
          clearTimeout(timer);
          resolve(undefined);
          return;
        }
        last = m.seed!;
        outcomes.set(m.seed!, m.outcome!);
        clearTimeout(timer);
        timer = setTimeout(() => resolve(last + 1), STALL_MS);
      });
      worker.on("error", reject);
    });
    await worker.terminate();
    expect(
      stalled,
      `graph of seed ${stalled} did not finish (see fixtures/random-shapes.ts)`,
    ).toBeUndefined();
    const untyped = [...outcomes].filter(([, o]) => o.startsWith("untyped"));
    expect(untyped).toEqual([]);
    const kinds = new Set([...outcomes.values()].map((o) => o.split(":")[0]));
    // The generator reaches every kind of ending, so the test covers them.
    expect(kinds).toEqual(new Set(["done", "limit", "refused"]));
  }, 120_000);
});

describe("a long run of synchronous nodes", () => {
  it("lets timers run while it goes (it yields every MAX_UNBROKEN_STEPS steps)", async () => {
    const graph = new Graph({ name: "SyncLoop" })
      .addNode("tick", (s) => ({ n: s.n + 1 }))
      .addEdge(START, "tick")
      .addConditionalEdges("tick", (s) => (s.n < 2_000 ? "tick" : END))
      .compile();
    let stepWhenTimerFired: number | undefined;
    let seen = 0;
    setTimeout(() => {
      stepWhenTimerFired = seen;
    }, 0);
    const run = graph.stream({ n: 0 }, { recursionLimit: 5_000 });
    for await (const ev of run) if (ev.type === "values") seen = ev.step;
    expect(seen).toBeGreaterThan(2_000);
    // The timer fired while the run was still going, not after it.
    expect(stepWhenTimerFired).toBeDefined();
    expect(stepWhenTimerFired!).toBeLessThan(seen);
  });
});
