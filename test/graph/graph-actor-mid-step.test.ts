/**
 * A graph actor's persisted snapshot taken while a node is still running: restored in a new
 * actor, the unfinished step runs again (as from a checkpoint) and the run ends with exactly
 * the state an uninterrupted run reaches. Each test holds a node on a promise it controls.
 */
import { describe, expect, it } from "vitest";
import { createActor, waitFor } from "xstate";
import { MemoryCheckpointer } from "../../src/checkpoint/index.js";
import { END, Graph, interrupt, Send, START, whenSaved } from "../../src/index.js";

const append = (existing: unknown[] = [], update: unknown) => [...existing, ...[update].flat()];

/** A promise the test opens, and a count of the nodes that reached it. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  const waiting: Array<() => void> = [];
  let arrived = 0;
  return {
    open,
    /** A node waits here until the test opens the gate. */
    async pass(): Promise<void> {
      arrived++;
      for (const tell of waiting.splice(0)) tell();
      await opened;
    },
    /** Settles once `n` nodes in all have reached the gate. */
    async reached(n: number): Promise<void> {
      while (arrived < n) await new Promise<void>((resolve) => waiting.push(resolve));
    },
  };
}

/** The actor's persisted snapshot as another process would read it back. */
const asStored = (actor: { getPersistedSnapshot(): unknown }) =>
  JSON.parse(JSON.stringify(actor.getPersistedSnapshot()));

describe("a graph actor's snapshot taken mid-step", () => {
  it("restores to a run that re-runs the unfinished node and ends with the exact state", async () => {
    const g = gate();
    const runs: string[] = [];
    const build = () =>
      new Graph({ name: "Slow" })
        .addReducer("log", append)
        .addNode("fetch", async (s) => {
          runs.push("fetch");
          await g.pass();
          return { data: `rows for ${s.query}`, log: "fetch" };
        })
        .addNode("summarise", (s) => ({ summary: s.data.toUpperCase(), log: "summarise" }))
        .addEdge(START, "fetch")
        .addEdge("fetch", "summarise")
        .addEdge("summarise", END)
        .compile();
    const first = createActor(build().machine, { input: { query: "owls" } }).start();
    await g.reached(1);
    expect(first.getSnapshot().matches({ workflow: { fetch: "running" } })).toBe(true);
    const stored = asStored(first);
    first.stop();

    const restored = createActor(build().machine, { snapshot: stored }).start();
    await g.reached(2);
    g.open();
    const done = await waitFor(restored, (s) => s.status === "done");
    expect(runs).toEqual(["fetch", "fetch"]);
    expect(done.output).toEqual({
      query: "owls",
      data: "rows for owls",
      summary: "ROWS FOR OWLS",
      log: ["fetch", "summarise"],
    });
  });

  it("re-runs every task of a fan-out step, finished ones too, and merges each once", async () => {
    const g = gate();
    const build = () =>
      new Graph({ name: "Fan" })
        .addReducer("squares", append)
        .addNode("plan", () => ({}))
        .addNode("square", async (arg: { x: number }) => {
          // The last one waits; the others finish before the snapshot is taken.
          if (arg.x === 3) await g.pass();
          return { squares: arg.x * arg.x };
        })
        .addNode("sum", (s) => ({ total: s.squares.reduce((a: number, b: number) => a + b, 0) }))
        .addEdge(START, "plan")
        .addConditionalEdges("plan", (s) => s.xs.map((x: number) => new Send("square", { x })))
        .addEdge("square", "sum")
        .compile();
    const first = createActor(build().machine, { input: { xs: [1, 2, 3] } }).start();
    await g.reached(1);
    const stored = asStored(first);
    first.stop();

    const restored = createActor(build().machine, { snapshot: stored }).start();
    await g.reached(2);
    g.open();
    const done = await waitFor(restored, (s) => s.status === "done");
    expect(done.output).toEqual({ xs: [1, 2, 3], squares: [1, 4, 9], total: 14 });
  });

  it("taken while an answered task runs and its sibling still waits, keeps the sibling waiting", async () => {
    const g = gate();
    const build = () =>
      new Graph({ name: "TwoQuestions" })
        .addNode("start", () => ({}))
        .addNode("a", async () => {
          const a = interrupt("a?");
          await g.pass();
          return { a };
        })
        .addNode("b", () => ({ b: interrupt("b?") }))
        .addEdge(START, "start")
        .addEdge("start", "a")
        .addEdge("start", "b")
        .addEdge(["a", "b"], END)
        .compile();
    const first = createActor(build().machine, { input: {} }).start();
    const paused = await waitFor(first, (s) => s.hasTag("interrupted"));
    const [a, b] = paused.context.interrupts;
    first.send({ type: "RESUME", resume: { [a.id]: "A" } });
    await g.reached(1);
    const stored = asStored(first);
    first.stop();

    const restored = createActor(build().machine, { snapshot: stored }).start();
    await g.reached(2);
    g.open();
    const waiting = await waitFor(restored, (s) => s.hasTag("interrupted") && !s.hasTag("running"));
    expect(waiting.context.interrupts.map((i: { id: string }) => i.id)).toEqual([b.id]);
    restored.send({ type: "RESUME", resume: "B" });
    const done = await waitFor(restored, (s) => s.status === "done");
    expect(done.output).toEqual({ a: "A", b: "B" });
  });

  it("on a thread, restores into a new actor of the thread's machine that finishes the thread", async () => {
    const g = gate();
    const checkpointer = new MemoryCheckpointer();
    const graph = new Graph({ name: "SlowThread" })
      .addReducer("log", append)
      .addNode("fetch", async (s) => {
        await g.pass();
        return { data: `rows for ${s.query}`, log: "fetch" };
      })
      .addNode("summarise", (s) => ({ summary: s.data.toUpperCase(), log: "summarise" }))
      .addEdge(START, "fetch")
      .addEdge("fetch", "summarise")
      .compile({ checkpointer });
    const config = { configurable: { thread_id: "mid-step" } };
    const first = createActor(await graph.machineFor(config), { input: { query: "owls" } });
    first.start();
    await g.reached(1);
    const stored = asStored(first);
    first.stop();
    // The stopped actor let the thread go: its step's barrier is the latest checkpoint.
    await whenSaved(first);
    expect((await graph.getState(config)).next).toEqual(["fetch"]);

    const restored = createActor(await graph.machineFor(config), { snapshot: stored }).start();
    await g.reached(2);
    g.open();
    const done = await waitFor(restored, (s) => s.status === "done");
    await whenSaved(restored);
    const expected = { query: "owls", data: "rows for owls", summary: "ROWS FOR OWLS" };
    expect(done.output).toEqual({ ...expected, log: ["fetch", "summarise"] });
    expect((await graph.getState(config)).values).toEqual(done.output);
    expect((await checkpointer.getThread("mid-step"))?.status).toBe("idle");
  });
});
