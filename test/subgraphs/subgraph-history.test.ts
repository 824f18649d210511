// A LangGraph.js subgraph state-history scenario: getStateHistory with a subgraph's config
// (its checkpoint_ns) lists the child's own checkpoints. The same scenario runs against
// @langchain/langgraph in the same test, so what is expected is LangGraph's own listing.
import {
  Annotation,
  START as LG_START,
  Command as LgCommand,
  interrupt as lgInterrupt,
  MemorySaver,
  StateGraph,
} from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import type { Checkpoint } from "../../src/checkpoint/checkpointer.js";
import { MemoryCheckpointer } from "../../src/checkpoint/index.js";
import { oneCheckpointPerStep } from "../../src/graph/running/subgraph-history.js";
import { Graph, interrupt, START } from "../../src/index.js";

/** A history entry as both libraries can show it. */
type Entry = { next: string[]; paused: boolean; source: unknown; log: string[] };
type Listing = { entries: Entry[]; steps: number[]; linked: boolean };
type Pause = "interrupt" | "breakpoint";

const append = (a: string[] = [], b: string | string[] = []) => [...a, ...[b].flat()];

/** Newest first, each entry's parent the one listed after it, the oldest without one. */
function linked(
  history: Array<{ config: unknown; parentConfig?: unknown }>,
  id: (c: unknown) => unknown,
) {
  return history.every((h, i) =>
    i + 1 < history.length
      ? id(h.parentConfig) === id(history[i + 1]!.config)
      : h.parentConfig === undefined,
  );
}
const idOf = (c: unknown) =>
  (c as { configurable?: { checkpoint_id?: string } } | undefined)?.configurable?.checkpoint_id;

async function ours(pause: Pause, threadId: string) {
  const child = new Graph({ name: "child" })
    .addReducer("log", append)
    .addNode("c1", () => ({ log: "c1" }))
    .addNode("c2", () => ({ log: pause === "interrupt" ? `c2:${interrupt("ok?")}` : "c2" }))
    .addNode("c3", () => ({ log: "c3" }))
    .addEdge(START, "c1")
    .addEdge("c1", "c2")
    .addEdge("c2", "c3")
    .compile(pause === "breakpoint" ? { interruptBefore: ["c2"] } : {});
  const parent = new Graph({ name: "parent" })
    .addReducer("log", append)
    .addNode("p1", () => ({ log: "p1" }))
    .addNode("child", child)
    .addEdge(START, "p1")
    .addEdge("p1", "child")
    .compile({ checkpointer: new MemoryCheckpointer() });
  const config = { configurable: { thread_id: threadId } };
  await parent.invoke({ log: [] }, { config });
  const ns = (await parent.getState(config, { subgraphs: true })).tasks[0]!.state!.config
    .configurable!.checkpoint_ns!;
  const childConfig = { configurable: { thread_id: threadId, checkpoint_ns: ns } };
  const listing = async (): Promise<Listing> => {
    const history = [];
    for await (const s of parent.getStateHistory(childConfig)) history.push(s);
    return {
      entries: history.map((s) => ({
        next: s.next,
        paused: s.interrupts.some((i) => i.timing === "during"),
        source: s.metadata?.source,
        log: (s.values.log as string[] | undefined) ?? [],
      })),
      steps: history.map((s) => s.metadata!.step),
      linked: linked(history, idOf),
    };
  };
  const paused = await listing();
  if (pause === "interrupt") await parent.resume("yes", { config });
  else await parent.invoke(null, { config });
  const limited = [];
  for await (const s of parent.getStateHistory(childConfig, { limit: 2 })) limited.push(s.next);
  return { paused, done: await listing(), limited };
}

async function langGraphs(pause: Pause, threadId: string) {
  const State = Annotation.Root({
    log: Annotation<string[], string | string[]>({ reducer: append, default: () => [] }),
  });
  const child = new StateGraph(State)
    .addNode("c1", () => ({ log: "c1" }))
    .addNode("c2", () => ({
      log: pause === "interrupt" ? `c2:${lgInterrupt<string, string>("ok?")}` : "c2",
    }))
    .addNode("c3", () => ({ log: "c3" }))
    .addEdge(LG_START, "c1")
    .addEdge("c1", "c2")
    .addEdge("c2", "c3")
    .compile(pause === "breakpoint" ? { interruptBefore: ["c2"] } : {});
  const parent = new StateGraph(State)
    .addNode("p1", () => ({ log: "p1" }))
    .addNode("child", child)
    .addEdge(LG_START, "p1")
    .addEdge("p1", "child")
    .compile({ checkpointer: new MemorySaver() });
  const config = { configurable: { thread_id: threadId } };
  await parent.invoke({ log: [] }, config);
  const task = (await parent.getState(config, { subgraphs: true })).tasks[0]!;
  const ns = (task.state as { config: { configurable: { checkpoint_ns: string } } }).config
    .configurable.checkpoint_ns;
  const childConfig = { configurable: { thread_id: threadId, checkpoint_ns: ns } };
  const listing = async (): Promise<Listing> => {
    const history = [];
    for await (const s of parent.getStateHistory(childConfig)) history.push(s);
    return {
      entries: history.map((s) => ({
        next: [...s.next],
        paused: s.tasks.some((t) => t.interrupts.length > 0),
        source: s.metadata?.source,
        // Our input checkpoint is the state before the input, and this child's has no default.
        log: s.metadata?.source === "input" ? [] : (s.values.log as string[]),
      })),
      // LangGraph numbers the input checkpoint's step -1, we number it 0.
      steps: history.map((s) => s.metadata!.step + 1),
      linked: linked(history, idOf),
    };
  };
  const paused = await listing();
  await parent.invoke(pause === "interrupt" ? new LgCommand({ resume: "yes" }) : null, config);
  const limited = [];
  for await (const s of parent.getStateHistory(childConfig, { limit: 2 }))
    limited.push([...s.next]);
  return { paused, done: await listing(), limited };
}

describe("getStateHistory with a subgraph's config", () => {
  it("lists the child's own checkpoints, one per child step, newest first, a paused step once with its interrupt", async () => {
    const expected = {
      paused: {
        entries: [
          { next: ["c2"], paused: true, source: "loop", log: ["p1", "c1"] },
          { next: ["c1"], paused: false, source: "loop", log: ["p1"] },
          { next: ["__start__"], paused: false, source: "input", log: [] },
        ],
        steps: [2, 1, 0],
        linked: true,
      },
      done: {
        entries: [
          { next: [], paused: false, source: "loop", log: ["p1", "c1", "c2:yes", "c3"] },
          { next: ["c3"], paused: false, source: "loop", log: ["p1", "c1", "c2:yes"] },
          { next: ["c2"], paused: true, source: "loop", log: ["p1", "c1"] },
          { next: ["c1"], paused: false, source: "loop", log: ["p1"] },
          { next: ["__start__"], paused: false, source: "input", log: [] },
        ],
        steps: [4, 3, 2, 1, 0],
        linked: true,
      },
      limited: [[], ["c3"]],
    };
    expect(await langGraphs("interrupt", "h-interrupt")).toEqual(expected);
    expect(await ours("interrupt", "h-interrupt")).toEqual(expected);
  });

  it("lists a step the child's own breakpoint paused once, also after it was continued", async () => {
    const expected = {
      paused: {
        entries: [
          { next: ["c2"], paused: false, source: "loop", log: ["p1", "c1"] },
          { next: ["c1"], paused: false, source: "loop", log: ["p1"] },
          { next: ["__start__"], paused: false, source: "input", log: [] },
        ],
        steps: [2, 1, 0],
        linked: true,
      },
      done: {
        entries: [
          { next: [], paused: false, source: "loop", log: ["p1", "c1", "c2", "c3"] },
          { next: ["c3"], paused: false, source: "loop", log: ["p1", "c1", "c2"] },
          { next: ["c2"], paused: false, source: "loop", log: ["p1", "c1"] },
          { next: ["c1"], paused: false, source: "loop", log: ["p1"] },
          { next: ["__start__"], paused: false, source: "input", log: [] },
        ],
        steps: [4, 3, 2, 1, 0],
        linked: true,
      },
      limited: [[], ["c3"]],
    };
    expect(await langGraphs("breakpoint", "h-breakpoint")).toEqual(expected);
    expect(await ours("breakpoint", "h-breakpoint")).toEqual(expected);
  });
});

describe("oneCheckpointPerStep", () => {
  const checkpoint = (id: string, parentId: string | null, step: number): Checkpoint => ({
    id,
    threadId: "t",
    ns: "child:1:child:0",
    parentId,
    snapshot: {},
    values: {},
    next: [],
    interrupts: [],
    metadata: { step, source: step === 0 ? "input" : "loop" },
    createdAt: "2026-01-01T00:00:00.000Z",
  });
  async function* newestFirst(list: Checkpoint[]) {
    yield* list;
  }
  const listed = async (list: Checkpoint[]) => {
    const out: Array<[string, string | null]> = [];
    for await (const { checkpoint, parentId } of oneCheckpointPerStep(newestFirst(list)))
      out.push([checkpoint.id, parentId]);
    return out;
  };

  it("leaves out a checkpoint's older ones of the same step and links past them", async () => {
    // barrier b2, its pause p2, the barrier again after a continued breakpoint a2
    const history = [
      checkpoint("d3", "a2", 3),
      checkpoint("a2", "p2", 2),
      checkpoint("p2", "b2", 2),
      checkpoint("b2", "b1", 2),
      checkpoint("b1", "i0", 1),
      checkpoint("i0", null, 0),
    ];
    expect(await listed(history)).toEqual([
      ["d3", "a2"],
      ["a2", "b1"],
      ["b1", "i0"],
      ["i0", null],
    ]);
  });

  it("keeps a run started afresh in the same namespace apart from the older run", async () => {
    // a fork re-ran the parent's step: a new child run (n0, n1) over the old one (o1, o0)
    const history = [
      checkpoint("n1", "n0", 1),
      checkpoint("n0", null, 0),
      checkpoint("o1", "o0", 1),
      checkpoint("o0", null, 0),
    ];
    expect(await listed(history)).toEqual([
      ["n1", "n0"],
      ["n0", null],
      ["o1", "o0"],
      ["o0", null],
    ]);
  });
});
