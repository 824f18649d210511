/**
 * A graph actor on a thread (`graph.machineFor(config)`): made and driven with XState's own
 * API, it writes the checkpoints invoke writes, under the same claims, so invoke/resume,
 * getState, the history and the thread index see its thread, and the other way round.
 * Run against every store: Memory, PGlite, and PostgreSQL when STATEWEAVER_PG_URL is set.
 */
import { randomUUID } from "node:crypto";
import { Client } from "@langchain/langgraph-sdk";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { type AnyActorRef, createActor, setup, waitFor } from "xstate";
import type { Checkpointer } from "../../src/checkpoint/checkpointer.js";
import {
  MemoryCheckpointer,
  PGliteCheckpointer,
  PostgresCheckpointer,
} from "../../src/checkpoint/index.js";
import {
  Command,
  type CompiledGraph,
  ConcurrentUpdateError,
  END,
  Graph,
  InvalidConfigError,
  interrupt,
  NodeError,
  START,
  ThreadBusyError,
  whenSaved,
} from "../../src/index.js";
import { startServer } from "../server/fixtures/server.js";
import { dropStoreTables } from "../setup/store-tables.js";

const url = process.env.STATEWEAVER_PG_URL;
const prefix = `sw_actor_thread_${randomUUID().slice(0, 8)}_`;
const opened: Checkpointer[] = [];
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

const append = (existing: unknown[] = [], update: unknown) => [...existing, ...[update].flat()];

/** draft -> approve (asks) -> publish, every node async. */
function approvalGraph(checkpointer: Checkpointer) {
  return new Graph({ name: "Approval" })
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
    .compile({ checkpointer });
}

const threadOf = (id: string) => ({ configurable: { thread_id: id } });

/** What a thread's history says, without ids and times: the checkpoints as invoke writes them. */
async function historyOf(graph: CompiledGraph, thread: string) {
  const out: unknown[] = [];
  for await (const s of graph.getStateHistory(threadOf(thread))) {
    out.push({
      step: s.metadata?.step,
      source: s.metadata?.source,
      next: s.next,
      values: s.values,
      interrupts: s.interrupts.map((i) => i.value),
    });
  }
  return out;
}

/** The same run made by invoke and resume, on a thread of its own: what the actor's should equal. */
async function invokedHistory(graph: ReturnType<typeof approvalGraph>, resume: string) {
  const thread = `reference-${randomUUID()}`;
  await graph.invoke({ topic: "owls" }, { config: threadOf(thread) });
  await graph.invoke(new Command({ resume }), { config: threadOf(thread) });
  return historyOf(graph, thread);
}

for (const [name, open] of stores) {
  describe.skipIf(!open)(`a graph actor on a thread (${name})`, () => {
    const store = () => {
      const s = open!();
      opened.push(s);
      return s;
    };

    it("writes the checkpoints invoke writes: getState, the history and the thread index see its pause and its end", async () => {
      const checkpointer = store();
      const graph = approvalGraph(checkpointer);
      const config = threadOf("actor-1");
      const actor = createActor(await graph.machineFor(config), {
        input: { topic: "owls" },
      }).start();
      const paused = await waitFor(actor, (s) => s.hasTag("interrupted"));
      await whenSaved(actor);

      const state = await graph.getState(config);
      expect(state.next).toEqual(["approve"]);
      expect(state.interrupts).toEqual(paused.context.interrupts);
      expect((await checkpointer.getThread("actor-1"))?.status).toBe("interrupted");
      const waiting = await checkpointer.searchThreads({ status: "interrupted" });
      expect(waiting.threads.map((t) => t.threadId)).toContain("actor-1");

      actor.send({ type: "RESUME", resume: "yes" });
      const done = await waitFor(actor, (s) => s.status === "done");
      await whenSaved(actor);
      expect((await graph.getState(config)).values).toEqual(done.output);
      expect((await checkpointer.getThread("actor-1"))?.status).toBe("idle");
      expect(await historyOf(graph, "actor-1")).toEqual(await invokedHistory(graph, "yes"));
    });

    it("pauses a thread that invoke(new Command({ resume })) then resumes", async () => {
      const graph = approvalGraph(store());
      const config = threadOf("actor-2");
      const actor = createActor(await graph.machineFor(config), {
        input: { topic: "owls" },
      }).start();
      const paused = await waitFor(actor, (s) => s.hasTag("interrupted"));
      await whenSaved(actor);
      actor.stop();

      // Answered by the id the actor showed: invoke sees the same interrupt.
      const id = paused.context.interrupts[0].id;
      const r = await graph.invoke(new Command({ resume: { [id]: "no" } }), { config });
      expect(r.status).toBe("done");
      expect(r.state).toMatchObject({ published: false, log: ["draft", "approve", "publish"] });
      expect(await historyOf(graph, "actor-2")).toEqual(await invokedHistory(graph, "no"));
    });

    it("continues a thread invoke paused: restored paused, answered by RESUME, same history", async () => {
      const graph = approvalGraph(store());
      const config = threadOf("actor-3");
      const invoked = await graph.invoke({ topic: "owls" }, { config });
      expect(invoked.status).toBe("interrupted");

      const actor = createActor(await graph.machineFor(config)).start();
      const paused = actor.getSnapshot();
      expect(paused.hasTag("interrupted")).toBe(true);
      expect(paused.matches({ workflow: { approve: "interrupted" } })).toBe(true);
      expect(paused.context.interrupts).toEqual(
        invoked.status === "interrupted" ? invoked.interrupts : [],
      );
      actor.send({ type: "RESUME", resume: "yes" });
      const done = await waitFor(actor, (s) => s.status === "done");
      await whenSaved(actor);
      expect(done.output).toMatchObject({ published: true, log: ["draft", "approve", "publish"] });
      expect((await graph.getState(config)).values).toEqual(done.output);
      expect(await historyOf(graph, "actor-3")).toEqual(await invokedHistory(graph, "yes"));
    });

    it("fails with ConcurrentUpdateError, storing nothing, when its thread moved on since it last saw it", async () => {
      const graph = approvalGraph(store());
      const config = threadOf("actor-4");
      const actor = createActor(await graph.machineFor(config), { input: { topic: "owls" } });
      let failure: unknown;
      actor.subscribe({ error: (e) => (failure = e) });
      actor.start();
      await waitFor(actor, (s) => s.hasTag("interrupted"));
      await whenSaved(actor);
      // The thread is resumed elsewhere while this actor still shows the pause.
      await graph.invoke(new Command({ resume: "no" }), { config });
      const before = await historyOf(graph, "actor-4");

      actor.send({ type: "RESUME", resume: "yes" });
      await expect(whenSaved(actor)).rejects.toBeInstanceOf(ConcurrentUpdateError);
      expect(actor.getSnapshot().status).toBe("error");
      expect(failure).toBeInstanceOf(ConcurrentUpdateError);
      expect(await historyOf(graph, "actor-4")).toEqual(before);
      expect((await graph.getState(config)).values).toMatchObject({ published: false });
    });
  });
}

describe("a graph actor on a thread", () => {
  it("fails with ThreadBusyError, running no node, while another run holds its thread", async () => {
    const checkpointer = new MemoryCheckpointer();
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let entered!: () => void;
    const inside = new Promise<void>((r) => (entered = r));
    const runs: string[] = [];
    const graph = new Graph({ name: "Slow" })
      .addNode("work", async (s) => {
        runs.push(s.who);
        entered();
        await held;
        return { done: true };
      })
      .addEdge(START, "work")
      .compile({ checkpointer });
    const config = threadOf("busy");
    const logic = await graph.machineFor(config);
    const invoked = graph.invoke({ who: "invoke" }, { config });
    await inside;

    const actor = createActor(logic, { input: { who: "actor" } });
    actor.subscribe({ error: () => {} });
    actor.start();
    await expect(whenSaved(actor)).rejects.toBeInstanceOf(ThreadBusyError);
    expect(actor.getSnapshot().error).toBeInstanceOf(ThreadBusyError);
    release();
    await invoked;
    expect(runs).toEqual(["invoke"]);
    expect((await graph.getState(config)).values).toEqual({ who: "invoke", done: true });
  });

  it("marks its thread as failed when a node fails, as invoke does", async () => {
    const checkpointer = new MemoryCheckpointer();
    const graph = new Graph({ name: "Failing" })
      .addNode("boom", async () => {
        throw new Error("disk full");
      })
      .addEdge(START, "boom")
      .compile({ checkpointer });
    const actor = createActor(await graph.machineFor(threadOf("failing")), { input: {} });
    const failure = new Promise((resolve) => actor.subscribe({ error: resolve }));
    actor.start();
    expect(await failure).toBeInstanceOf(NodeError);
    await whenSaved(actor);
    expect((await checkpointer.getThread("failing"))?.status).toBe("error");
  });

  it("applies new input to a thread that has run, as invoke(input) does", async () => {
    const checkpointer = new MemoryCheckpointer();
    const graph = approvalGraph(checkpointer);
    const config = threadOf("again");
    await graph.invoke({ topic: "owls" }, { config });
    await graph.invoke(new Command({ resume: "yes" }), { config });

    const actor = createActor(await graph.machineFor(config), { input: { topic: "bats" } });
    const paused = await waitFor(actor.start(), (s) => s.hasTag("interrupted"));
    await whenSaved(actor);
    expect(paused.context.values.log).toEqual(["draft", "approve", "publish", "draft"]);
    const reference = threadOf("again-by-invoke");
    await graph.invoke({ topic: "owls" }, { config: reference });
    await graph.invoke(new Command({ resume: "yes" }), { config: reference });
    await graph.invoke({ topic: "bats" }, { config: reference });
    expect(await historyOf(graph, "again")).toEqual(await historyOf(graph, "again-by-invoke"));
  });

  it("pauses inside a subgraph and resumes it, writing what invoke writes at both levels", async () => {
    const checkpointer = new MemoryCheckpointer();
    const inner = new Graph({ name: "Inner" })
      .addNode("ask", () => ({ answer: interrupt("inner?") }))
      .addEdge(START, "ask")
      .compile();
    const graph = new Graph({ name: "Outer" })
      .addNode("prep", () => ({ n: 1 }))
      .addNode("sub", inner)
      .addNode("after", (s) => ({ seen: s.answer }))
      .addEdge(START, "prep")
      .addEdge("prep", "sub")
      .addEdge("sub", "after")
      .compile({ checkpointer });
    const levels = async (thread: string) => {
      const state = await graph.getState(threadOf(thread));
      const ns = state.interrupts[0]?.ns ?? "";
      const top = await checkpointer.list(thread, { ns: "" });
      const nested = await checkpointer.list(thread, { ns });
      return { state, shape: [top, nested].map((l) => l.map((c) => [c.next, c.values])) };
    };
    const actor = createActor(await graph.machineFor(threadOf("nested")), { input: {} });
    const paused = await waitFor(actor.start(), (s) => s.hasTag("interrupted"));
    await whenSaved(actor);
    await graph.invoke({}, { config: threadOf("nested-by-invoke") });
    const byActor = await levels("nested");
    expect(byActor.state.interrupts).toEqual(paused.context.interrupts);
    expect(byActor.shape).toEqual((await levels("nested-by-invoke")).shape);

    actor.send({ type: "RESUME", resume: "yes" });
    const done = await waitFor(actor, (s) => s.status === "done");
    await whenSaved(actor);
    await graph.invoke(new Command({ resume: "yes" }), { config: threadOf("nested-by-invoke") });
    expect(done.output).toEqual({ n: 1, answer: "yes", seen: "yes" });
    expect(await historyOf(graph, "nested")).toEqual(await historyOf(graph, "nested-by-invoke"));
  });

  it("stops at a compiled breakpoint on its thread, which invoke(null) then continues", async () => {
    const checkpointer = new MemoryCheckpointer();
    const graph = new Graph({ name: "Breakpoint" })
      .addNode("a", () => ({ a: 1 }))
      .addNode("b", () => ({ b: 2 }))
      .addEdge(START, "a")
      .addEdge("a", "b")
      .compile({ checkpointer, interruptBefore: ["b"] });
    const config = threadOf("breakpoint");
    const actor = createActor(await graph.machineFor(config), { input: {} });
    const paused = await waitFor(actor.start(), (s) => s.hasTag("interrupted"));
    expect(paused.matches({ runtime: "breakpoint" })).toBe(true);
    await whenSaved(actor);
    const state = await graph.getState(config);
    expect(state.next).toEqual(["b"]);
    expect(state.interrupts).toEqual(paused.context.interrupts);
    actor.stop();
    const r = await graph.invoke(null, { config });
    expect(r).toMatchObject({ status: "done", state: { a: 1, b: 2 } });
  });

  it("runs as a parent machine's child, writing its thread", async () => {
    const checkpointer = new MemoryCheckpointer();
    const graph = approvalGraph(checkpointer);
    const config = threadOf("child");
    const app = setup({ actors: { review: await graph.machineFor(config) } }).createMachine({
      initial: "reviewing",
      states: {
        reviewing: {
          invoke: {
            src: "review",
            systemId: "review",
            input: { topic: "owls" },
            onDone: "done",
          },
        },
        done: { type: "final" },
      },
    });
    const parent = createActor(app).start();
    const child = parent.system.get("review") as AnyActorRef;
    await waitFor(child, (s) => s.hasTag("interrupted"));
    await whenSaved(child);
    expect((await graph.getState(config)).next).toEqual(["approve"]);
    child.send({ type: "RESUME", resume: "yes" });
    await waitFor(parent, (s) => s.status === "done");
    await whenSaved(child);
    expect((await graph.getState(config)).values).toMatchObject({ published: true });
  });

  it("needs a checkpointer and a thread id, and starts from the latest checkpoint only", async () => {
    const bare = new Graph({ name: "Bare" })
      .addNode("a", () => ({}))
      .addEdge(START, "a")
      .compile();
    await expect(bare.machineFor(threadOf("x"))).rejects.toBeInstanceOf(InvalidConfigError);
    const graph = approvalGraph(new MemoryCheckpointer());
    await expect(graph.machineFor({ configurable: {} })).rejects.toBeInstanceOf(InvalidConfigError);
    await expect(
      graph.machineFor({ configurable: { thread_id: "x", checkpoint_id: "c1" } }),
    ).rejects.toThrow(/fork it with invoke\(null/);
  });
});

describe("a graph actor's thread over the HTTP API", () => {
  it("is seen and answered through the SDK client, and continues a thread the API paused", async () => {
    const checkpointer = new MemoryCheckpointer();
    const graph = approvalGraph(checkpointer);
    const running = await startServer({ checkpointer, graphs: { approval: graph } });
    try {
      const client = new Client({ apiUrl: running.url, callerOptions: { maxRetries: 0 } });
      const thread = await client.threads.create({ graphId: "approval" });
      const config = threadOf(thread.thread_id);
      const actor = createActor(await graph.machineFor(config), { input: { topic: "owls" } });
      await waitFor(actor.start(), (s) => s.hasTag("interrupted"));
      await whenSaved(actor);
      actor.stop();

      const state = await client.threads.getState(thread.thread_id);
      expect(state.next).toEqual(["approve"]);
      const waiting = await client.threads.search({ status: "interrupted" });
      expect(waiting.map((t) => t.thread_id)).toContain(thread.thread_id);
      const answered = await client.runs.wait(thread.thread_id, "approval", {
        command: { resume: "yes" },
      });
      expect(answered).toMatchObject({ published: true, log: ["draft", "approve", "publish"] });

      // The other way: the API pauses a thread, an actor made for it answers.
      const second = await client.threads.create({ graphId: "approval" });
      await client.runs.wait(second.thread_id, "approval", { input: { topic: "bats" } });
      const continued = createActor(await graph.machineFor(threadOf(second.thread_id))).start();
      expect(continued.getSnapshot().context.interrupts[0].value).toEqual({
        question: 'Publish "about bats"?',
      });
      continued.send({ type: "RESUME", resume: "no" });
      const done = await waitFor(continued, (s) => s.status === "done");
      await whenSaved(continued);
      expect((await client.threads.getState(second.thread_id)).values).toEqual(done.output);
    } finally {
      await running.stop();
    }
  });
});
