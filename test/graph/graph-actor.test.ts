/**
 * A compiled graph's machine used the way an XState user uses any machine: createActor with
 * the graph's input, a pause as a tagged snapshot, RESUME, persisted snapshots, and a parent
 * machine that invokes graphs. Only XState's public API drives the actors here.
 */
import { describe, expect, it } from "vitest";
import { assign, createActor, sendTo, setup, waitFor } from "xstate";
import { z } from "zod";
import {
  END,
  Graph,
  InvalidResumeError,
  InvalidUpdateError,
  interrupt,
  NodeError,
  RecursionLimitError,
  Send,
  START,
} from "../../src/index.js";

const append = (existing: unknown[] = [], update: unknown) => [...existing, ...[update].flat()];

/** draft -> approve (asks) -> publish, every node async. */
function approvalGraph(name = "Approval") {
  return new Graph({ name })
    .addReducer("log", append)
    .addNode("draft", async (s) => ({ text: `about ${s.topic}`, log: "draft" }))
    .addNode("approve", async (s) => ({
      verdict: interrupt<string>({ question: `Publish "${s.text}"?` }),
      log: "approve",
    }))
    .addNode("publish", async (s) => ({ published: s.verdict === "yes", log: "publish" }))
    .addEdge(START, "draft")
    .addEdge("draft", "approve")
    .addEdge("approve", "publish")
    .addEdge("publish", END)
    .compile();
}

describe("a graph's machine as an actor", () => {
  it("runs the graph from its input and is done with the final state as output", async () => {
    const graph = new Graph({ name: "MapReduce" })
      .addReducer("results", append)
      .addNode("plan", async () => ({}))
      .addNode("square", async (arg: { x: number }) => ({ results: arg.x * arg.x }))
      .addNode("sum", (s) => ({ total: s.results.reduce((a: number, b: number) => a + b, 0) }))
      .addEdge(START, "plan")
      .addConditionalEdges("plan", (s) => s.xs.map((x: number) => new Send("square", { x })))
      .addEdge("square", "sum")
      .compile();
    const actor = createActor(graph.machine, { input: { xs: [1, 2, 3], results: [] } }).start();
    const done = await waitFor(actor, (s) => s.status === "done");
    expect(done.output).toEqual({ xs: [1, 2, 3], results: [1, 4, 9], total: 14 });
    expect(done.output).toEqual((await graph.invoke({ xs: [1, 2, 3], results: [] })).state);
  });

  it("runs subgraphs and retries a flaky node as invoke does", async () => {
    const inner = new Graph({ name: "Inner" })
      .addNode("double", (s) => ({ n: s.n * 2 }))
      .addEdge(START, "double")
      .compile();
    let calls = 0;
    const graph = new Graph({ name: "Outer" })
      .addNode("inner", inner)
      .addNode(
        "flaky",
        (s) => {
          calls++;
          if (calls < 3) throw new Error("upstream 503");
          return { n: s.n + 1 };
        },
        { retryPolicy: { maxAttempts: 3, initialInterval: 1, jitter: false } },
      )
      .addEdge(START, "inner")
      .addEdge("inner", "flaky")
      .compile();
    const actor = createActor(graph.machine, { input: { n: 5 } }).start();
    const done = await waitFor(actor, (s) => s.status === "done");
    expect(done.output).toEqual({ n: 11 });
    expect(calls).toBe(3);
  });

  it("fails with the typed error invoke throws: a node's failure, the recursion limit, bad input", async () => {
    const failing = new Graph({ name: "Failing" })
      .addNode("boom", () => {
        throw new Error("disk full");
      })
      .addEdge(START, "boom")
      .compile();
    const invoked = await failing.invoke({}).catch((e: unknown) => e);
    const actor = createActor(failing.machine, { input: {} });
    actor.subscribe({ error: () => {} });
    actor.start();
    const failed = await waitFor(actor, (s) => s.status !== "active");
    expect(failed.status).toBe("error");
    expect(failed.error).toBeInstanceOf((invoked as Error).constructor);
    expect((failed.error as Error).message).toBe((invoked as Error).message);
    expect(failed.error).toBeInstanceOf(NodeError);

    const loop = new Graph({ name: "Loop" })
      .addNode("again", (s) => ({ n: s.n + 1 }))
      .addEdge(START, "again")
      .addEdge("again", "again")
      .compile();
    const looping = createActor(loop.machine, { input: { n: 0 } });
    looping.subscribe({ error: () => {} });
    looping.start();
    const limited = await waitFor(looping, (s) => s.status !== "active");
    expect(limited.error).toBeInstanceOf(RecursionLimitError);

    const typed = new Graph({ name: "Typed", state: z.object({ topic: z.string() }) })
      .addNode("a", () => ({}))
      .addEdge(START, "a")
      .compile();
    const bad = createActor(typed.machine, { input: { topic: 42 } });
    let reported: unknown;
    bad.subscribe({ error: (e) => (reported = e) });
    bad.start();
    expect(bad.getSnapshot().status).toBe("error");
    expect(reported).toBeInstanceOf(InvalidUpdateError);
  });

  it("pauses as an active snapshot tagged interrupted, naming the node and listing the interrupts", async () => {
    const graph = approvalGraph();
    const actor = createActor(graph.machine, { input: { topic: "owls" } }).start();
    const paused = await waitFor(actor, (s) => s.hasTag("interrupted"));
    expect(paused.status).toBe("active");
    expect(paused.matches({ workflow: { approve: "interrupted" } })).toBe(true);
    expect(paused.context.interrupts).toEqual([
      expect.objectContaining({
        id: expect.any(String),
        node: "approve",
        value: { question: 'Publish "about owls"?' },
      }),
    ]);
    actor.send({ type: "RESUME", resume: "yes" });
    const done = await waitFor(actor, (s) => s.status === "done");
    expect(done.output).toEqual({
      topic: "owls",
      text: "about owls",
      verdict: "yes",
      published: true,
      log: ["draft", "approve", "publish"],
    });
  });

  it("answers several pending interrupts by id, one at a time", async () => {
    const graph = new Graph({ name: "TwoQuestions" })
      .addNode("start", () => ({}))
      .addNode("a", () => ({ a: interrupt("a?") }))
      .addNode("b", () => ({ b: interrupt("b?") }))
      .addEdge(START, "start")
      .addEdge("start", "a")
      .addEdge("start", "b")
      .addEdge(["a", "b"], END)
      .compile();
    const actor = createActor(graph.machine, { input: {} }).start();
    const paused = await waitFor(actor, (s) => s.hasTag("interrupted"));
    const [a, b] = paused.context.interrupts!;
    expect([a!.node, b!.node]).toEqual(["a", "b"]);
    actor.send({ type: "RESUME", resume: { [a!.id]: "A" } });
    const half = await waitFor(actor, (s) => s.hasTag("interrupted") && !s.hasTag("running"));
    expect(half.context.interrupts.map((i: { node: string }) => i.node)).toEqual(["b"]);
    actor.send({ type: "RESUME", resume: { [b!.id]: "B" } });
    expect((await waitFor(actor, (s) => s.status === "done")).output).toEqual({ a: "A", b: "B" });
  });

  it("refuses a RESUME that does not fit: emits resume.refused with the typed error and stays as it was", async () => {
    const graph = new Graph({ name: "TwoQuestions" })
      .addNode("a", () => ({ a: interrupt("a?") }))
      .addNode("b", () => ({ b: interrupt("b?") }))
      .addEdge(START, "a")
      .addEdge(START, "b")
      .compile();
    const actor = createActor(graph.machine, { input: {} }).start();
    const paused = await waitFor(actor, (s) => s.hasTag("interrupted"));
    const refused: unknown[] = [];
    actor.on("resume.refused", ({ error }) => refused.push(error));
    // Two interrupts wait: a plain value does not say which it answers.
    actor.send({ type: "RESUME", resume: "yes" });
    actor.send({ type: "RESUME", resume: { "not-an-interrupt": 1 } });
    expect(refused).toHaveLength(2);
    for (const error of refused) expect(error).toBeInstanceOf(InvalidResumeError);
    expect(actor.getSnapshot()).toBe(paused);
    expect(actor.getSnapshot().status).toBe("active");
  });

  it("stops at a compiled breakpoint and goes on with a RESUME that carries no value", async () => {
    const graph = new Graph({ name: "Breakpoint" })
      .addNode("a", () => ({ a: 1 }))
      .addNode("b", () => ({ b: 2 }))
      .addEdge(START, "a")
      .addEdge("a", "b")
      .compile({ interruptBefore: ["b"] });
    const actor = createActor(graph.machine, { input: {} }).start();
    const paused = await waitFor(actor, (s) => s.hasTag("interrupted"));
    expect(paused.matches({ runtime: "breakpoint" })).toBe(true);
    expect(paused.context.interrupts).toEqual([
      expect.objectContaining({ node: "b", timing: "before" }),
    ]);
    actor.send({ type: "RESUME" } as never);
    expect((await waitFor(actor, (s) => s.status === "done")).output).toEqual({ a: 1, b: 2 });
  });

  it("persists a pause as plain JSON that a new actor continues from", async () => {
    const graph = approvalGraph();
    const first = createActor(graph.machine, { input: { topic: "owls" } }).start();
    await waitFor(first, (s) => s.hasTag("interrupted"));
    const persisted = first.getPersistedSnapshot();
    first.stop();
    const json = JSON.stringify(persisted);
    expect(JSON.parse(json)).toEqual(persisted);

    // A graph compiled again (as another process would) takes the snapshot.
    const again = approvalGraph();
    const restored = createActor(again.machine, { snapshot: JSON.parse(json) }).start();
    const paused = restored.getSnapshot();
    expect(paused.hasTag("interrupted")).toBe(true);
    expect(paused.context.interrupts![0]!.node).toBe("approve");
    restored.send({ type: "RESUME", resume: "no" });
    const done = await waitFor(restored, (s) => s.status === "done");
    expect(done.output).toMatchObject({ published: false, log: ["draft", "approve", "publish"] });
  });

  it("is observable by an inspector like any actor", async () => {
    const graph = approvalGraph();
    const seen: string[] = [];
    const actor = createActor(graph.machine, {
      input: { topic: "owls" },
      inspect: (e) => {
        if (e.type === "@xstate.event" || e.type === "@xstate.microstep") seen.push(e.event.type);
      },
    }).start();
    await waitFor(actor, (s) => s.hasTag("interrupted"));
    expect(seen).toContain("INPUT");
    expect(seen).toContain("RUN");
    expect(seen).toContain("TASKS.DONE");
  });
});

describe("a parent machine invoking graphs", () => {
  it("sees a graph's pause, answers it with sendTo, and takes its output in onDone; siblings run apart", async () => {
    const review = approvalGraph("Review");
    const legal = approvalGraph("Legal");
    const app = setup({
      types: {
        context: {} as { review?: unknown; legal?: unknown },
        events: {} as { type: "ANSWER"; to: "review" | "legal"; resume: string },
      },
      actors: { review: review.machine, legal: legal.machine },
    }).createMachine({
      id: "app",
      context: {},
      type: "parallel",
      on: {
        ANSWER: {
          actions: sendTo(
            ({ event, system }) => system.get(event.to),
            ({ event }) => ({ type: "RESUME", resume: event.resume }),
          ),
        },
      },
      states: {
        review: {
          initial: "running",
          states: {
            running: {
              invoke: {
                src: "review",
                systemId: "review",
                input: { topic: "owls" },
                onDone: {
                  target: "done",
                  actions: assign({ review: ({ event }) => event.output }),
                },
              },
            },
            done: { type: "final" },
          },
        },
        legal: {
          initial: "running",
          states: {
            running: {
              invoke: {
                src: "legal",
                systemId: "legal",
                input: { topic: "bats" },
                onDone: { target: "done", actions: assign({ legal: ({ event }) => event.output }) },
              },
            },
            done: { type: "final" },
          },
        },
      },
    });
    const actor = createActor(app).start();
    const pausedChild = (id: "review" | "legal") =>
      waitFor(actor.system.get(id), (s) => s.hasTag("interrupted"));
    const reviewPause = await pausedChild("review");
    await pausedChild("legal");
    expect(reviewPause.context.interrupts[0].value).toEqual({ question: 'Publish "about owls"?' });
    actor.send({ type: "ANSWER", to: "legal", resume: "no" });
    await waitFor(actor, (s) => s.matches({ legal: "done" }));
    expect(actor.getSnapshot().matches({ review: "running" })).toBe(true);
    actor.send({ type: "ANSWER", to: "review", resume: "yes" });
    const done = await waitFor(actor, (s) => s.status === "done");
    expect(done.context.review).toMatchObject({ text: "about owls", published: true });
    expect(done.context.legal).toMatchObject({ text: "about bats", published: false });
  });

  it("goes to onError with the graph's typed error when the graph fails", async () => {
    const failing = new Graph({ name: "Failing" })
      .addNode("boom", async () => {
        throw new Error("disk full");
      })
      .addEdge(START, "boom")
      .compile();
    const app = setup({ actors: { work: failing.machine } }).createMachine({
      context: { error: undefined as unknown },
      initial: "working",
      states: {
        working: {
          invoke: {
            src: "work",
            input: {},
            onError: { target: "failed", actions: assign({ error: ({ event }) => event.error }) },
          },
        },
        failed: { type: "final" },
      },
    });
    const done = await waitFor(createActor(app).start(), (s) => s.status === "done");
    expect(done.context.error).toBeInstanceOf(NodeError);
  });
});
