import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createAgent } from "../../src/agent/index.js";
import { MemoryCheckpointer } from "../../src/checkpoint/index.js";
import type { StateSnapshot } from "../../src/graph/running/state-snapshot.js";
import { END, Graph, interrupt, START } from "../../src/index.js";
import { FakeChatModel, tool } from "../../src/models/index.js";
import type { Decision } from "../../src/server/decisions.js";
import { timelineOf } from "../../src/server/history-timeline.js";

async function historyOf(
  graph: { getStateHistory(c: object): AsyncIterable<StateSnapshot> },
  config: object,
) {
  const page: StateSnapshot[] = [];
  for await (const s of graph.getStateHistory(config)) page.push(s as StateSnapshot);
  return page;
}

/** A decision as the server records it, at the checkpoint the pause was read from. */
const decisionAt = (checkpointId: string, answer: unknown): Decision => ({
  interruptId: `i-${checkpointId}`,
  checkpointId,
  threadId: "t",
  reviewer: "ana",
  decidedAt: "2026-12-05T00:00:00.000Z",
  waitedMs: 1000,
  answer,
  runId: "r",
  idempotencyKey: `k-${checkpointId}`,
});

/** An agent that proposes one tool call, has it reviewed, then answers. */
function reviewedAgent() {
  const removeFile = tool({
    name: "remove_file",
    description: "Delete a file.",
    schema: z.object({ path: z.string() }),
    run: ({ path }) => `removed ${path}`,
  });
  return createAgent({
    name: "ops",
    model: new FakeChatModel({
      responses: [
        { content: "", toolCalls: [{ name: "remove_file", args: { path: "a" } }] },
        "Done.",
      ],
    }),
    tools: [removeFile],
    interruptOn: { remove_file: true },
    checkpointer: new MemoryCheckpointer(),
  });
}

describe("the inbox's history timeline", () => {
  it("names the nodes behind each step and shows what changed: new list items, new values", async () => {
    type S = { messages: string[]; topic: string };
    const graph = new Graph<S>({ name: "Timeline" })
      .addReducer("messages", (a: string[] = [], b: string[]) => [...a, ...b])
      .addNode("ask", () => ({ messages: ["question"] }))
      .addNode("answer", () => ({ messages: ["answer"], topic: "answered" }))
      .addEdge(START, "ask")
      .addEdge("ask", "answer")
      .addEdge("answer", END)
      .compile({ checkpointer: new MemoryCheckpointer() });
    const config = { configurable: { thread_id: "timeline" } };
    await graph.invoke({ messages: ["hello"], topic: "new" }, { config });

    const [input, ask, answer, ...rest] = timelineOf(await historyOf(graph, config));
    expect(rest).toEqual([]);
    expect(input).toMatchObject({
      nodes: ["__start__"],
      writes: { messages: ["hello"], topic: "new" },
    });
    expect(ask).toMatchObject({
      nodes: ["ask"],
      writes: { messages: ["question"] },
      next: ["answer"],
    });
    expect(answer).toMatchObject({
      nodes: ["answer"],
      writes: { messages: ["answer"], topic: "answered" },
      next: [],
      status: "ran",
      finished: true,
    });
  });

  it("gives a reviewed agent one entry per step, numbered in order, the review after the model step that proposed it", async () => {
    const agent = reviewedAgent();
    const config = { configurable: { thread_id: "reviewed" } };
    await agent.invoke({ messages: [{ role: "user", content: "clean up" }] }, { config });
    const pause = (await agent.getState(config)).config.configurable!.checkpoint_id!;
    const approved = decisionAt(pause, { decisions: [{ type: "approve" }] });

    const waiting = timelineOf(await historyOf(agent, config), [approved]);
    expect(waiting.map((e) => [e.nodes.join(), e.status])).toEqual([
      ["__start__", "ran"],
      ["model", "ran"],
      ["humanInTheLoop/afterModel", "waiting"],
    ]);
    expect(waiting.at(-1)).toMatchObject({
      pausedAt: pause,
      decisions: [approved],
      finished: false,
    });

    await agent.resume({ decisions: [{ type: "approve" }] }, { config });
    const done = timelineOf(await historyOf(agent, config), [approved]);
    expect(done.map((e) => e.nodes.join())).toEqual([
      "__start__",
      "model",
      "humanInTheLoop/afterModel",
      "tools",
      "model",
      "humanInTheLoop/afterModel",
    ]);
    const steps = done.map((e) => e.step);
    expect(steps).toEqual([...steps].sort((a, b) => a - b));
    expect(new Set(steps).size).toBe(steps.length);
    // The decision sits under the review it answered, after the model step that proposed it.
    const reviewed = done.findIndex((e) => e.decisions.length > 0);
    expect(reviewed).toBe(2);
    expect(done[reviewed]).toMatchObject({
      pausedAt: pause,
      decisions: [approved],
      next: ["tools"],
    });
    expect(done[reviewed - 1]!.nodes).toEqual(["model"]);
    expect(done.filter((e) => e.decisions.length > 0)).toHaveLength(1);
    // The last step says the run finished; nothing after it.
    expect(done.at(-1)).toMatchObject({ status: "ran", next: [], finished: true });
    expect(done.slice(0, -1).every((e) => !e.finished)).toBe(true);
  });

  it("keeps both answers of a node that asks twice under its one step", async () => {
    const graph = new Graph<{ a?: unknown; b?: unknown }>({ name: "TwoQuestions" })
      .addNode("ask", () => ({ a: interrupt("first?"), b: interrupt("second?") }))
      .addEdge(START, "ask")
      .addEdge("ask", END)
      .compile({ checkpointer: new MemoryCheckpointer() });
    const config = { configurable: { thread_id: "twice" } };
    await graph.invoke({}, { config });
    const first = decisionAt(
      (await graph.getState(config)).config.configurable!.checkpoint_id!,
      "x",
    );
    await graph.resume("x", { config });
    const second = decisionAt(
      (await graph.getState(config)).config.configurable!.checkpoint_id!,
      "y",
    );
    await graph.resume("y", { config });

    const entries = timelineOf(await historyOf(graph, config), [first, second]);
    const ask = entries.filter((e) => e.nodes.includes("ask"));
    expect(ask).toHaveLength(1);
    expect(ask[0]).toMatchObject({ decisions: [first, second], writes: { a: "x", b: "y" } });
    expect(entries.at(-1)!.finished).toBe(true);
  });

  it("puts a breakpoint's continue under the node it let run", async () => {
    const graph = new Graph<{ n?: number }>({ name: "Breakpoint" })
      .addNode("prepare", () => ({ n: 1 }))
      .addNode("deploy", () => ({ n: 2 }))
      .addEdge(START, "prepare")
      .addEdge("prepare", "deploy")
      .addEdge("deploy", END)
      .compile({ checkpointer: new MemoryCheckpointer(), interruptBefore: ["deploy"] });
    const config = { configurable: { thread_id: "bp" } };
    await graph.invoke({}, { config });
    const continued = decisionAt(
      (await graph.getState(config)).config.configurable!.checkpoint_id!,
      null,
    );
    expect(timelineOf(await historyOf(graph, config), [continued]).at(-1)).toMatchObject({
      nodes: ["deploy"],
      status: "waiting",
      decisions: [continued],
    });
    await graph.resume(null, { config });
    const entries = timelineOf(await historyOf(graph, config), [continued]);
    expect(entries.map((e) => e.nodes.join())).toEqual(["__start__", "prepare", "deploy"]);
    expect(entries[2]).toMatchObject({ decisions: [continued], writes: { n: 2 }, finished: true });
    expect(entries[1]!.decisions).toEqual([]);
  });
});
