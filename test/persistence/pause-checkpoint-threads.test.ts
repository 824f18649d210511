/**
 * Threads paused before a pause was stored as LangGraph stores it (pending writes of the
 * step's barrier) hold their pause as a checkpoint of its own, beside the barrier. The
 * fixture is such a thread, written by that version of stateweaver with the graph below
 * (`ask` asks twice, `work` beside it finished): it reads as paused, and resumes through
 * both questions without running `work` again.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  type Checkpoint,
  MemoryCheckpointer,
  type PendingWrite,
} from "../../src/checkpoint/index.js";
import { END, Graph, interrupt, START } from "../../src/index.js";

const saved = JSON.parse(
  readFileSync(new URL("./fixtures/pause-checkpoint-thread.json", import.meta.url), "utf8"),
) as { history: Checkpoint[]; writes: Record<string, PendingWrite[]> };

const threadId = "paused-as-a-checkpoint";
const config = { configurable: { thread_id: threadId } };

async function storeWithSaved(): Promise<MemoryCheckpointer> {
  const store = new MemoryCheckpointer();
  let latest: string | null = null;
  for (const checkpoint of saved.history) {
    await store.put(checkpoint, { expectedLatestId: latest, thread: { graph: "TwoQuestions" } });
    latest = checkpoint.id;
  }
  for (const [id, writes] of Object.entries(saved.writes)) {
    for (const write of writes) await store.putWrites(threadId, "", id, write);
  }
  return store;
}

function twoQuestions(checkpointer: MemoryCheckpointer, ran: string[]) {
  return new Graph({ name: "TwoQuestions" })
    .addReducer("log", (a: string[] = [], b: string[]) => a.concat(b))
    .addNode("ask", () => {
      ran.push("ask");
      return { log: [`first:${interrupt("first?")}`, `second:${interrupt("second?")}`] };
    })
    .addNode("work", () => {
      ran.push("work");
      return { log: ["worked"] };
    })
    .addNode("join", (s: { log: string[] }) => ({ done: s.log.length }))
    .addEdge(START, "ask")
    .addEdge(START, "work")
    .addEdge(["ask", "work"], "join")
    .addEdge("join", END)
    .compile({ checkpointer });
}

describe("a thread whose pause was stored as a checkpoint", () => {
  it("reads as paused: state, history and thread record", async () => {
    const store = await storeWithSaved();
    const graph = twoQuestions(store, []);
    const state = await graph.getState(config);
    expect(state.next).toEqual(["ask"]);
    expect(state.values).toEqual({ log: ["worked"] });
    expect(state.interrupts.map((i) => i.value)).toEqual(["first?"]);
    expect(state.tasks.map((t) => [t.name, t.status])).toEqual([
      ["ask", "interrupted"],
      ["work", "done"],
    ]);
    const history = [];
    for await (const s of graph.getStateHistory(config)) history.push(s);
    expect(history).toHaveLength(3);
    expect(history[0]).toEqual(state);
    expect(await store.getThread(threadId)).toMatchObject({
      status: "interrupted",
      interrupts: [expect.objectContaining({ value: "first?" })],
    });
  });

  it("resumes through both questions without running the finished sibling again", async () => {
    const store = await storeWithSaved();
    const ran: string[] = [];
    const graph = twoQuestions(store, ran);
    const second = await graph.resume("yes", { config });
    expect(second.status).toBe("interrupted");
    expect(second.status === "interrupted" && second.interrupt.value).toBe("second?");
    expect((await store.getThread(threadId))?.interrupts.map((i) => i.value)).toEqual(["second?"]);
    const done = await graph.resume("no", { config });
    expect(done).toEqual({
      status: "done",
      state: { log: ["first:yes", "second:no", "worked"], done: 3 },
    });
    expect(ran).toEqual(["ask", "ask"]);
    expect((await store.getThread(threadId))?.status).toBe("idle");
  });
});
