/**
 * Threads saved by an earlier stateweaver keep working: these checkpoints were
 * written before the task runner existed (no `tasks` child in the snapshot, one
 * promise actor per step), by the same graphs as below.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  type Checkpoint,
  MemoryCheckpointer,
  type PendingWrite,
} from "../../src/checkpoint/index.js";
import { END, Graph, interrupt, START } from "../../src/index.js";
import { approvalGraph } from "./fixtures/approval-graph.js";

const saved = JSON.parse(
  readFileSync(new URL("./fixtures/checkpoints-before-task-runner.json", import.meta.url), "utf8"),
) as { approval: Checkpoint[]; fanOut: Checkpoint[]; fanOutPendingWrites: PendingWrite[] };

/** A store holding `history` (oldest first) as it was saved. */
async function storeWith(history: Checkpoint[], pendingWrites: PendingWrite[] = []) {
  const store = new MemoryCheckpointer();
  let latest: string | null = null;
  for (const checkpoint of history) {
    await store.put(checkpoint, { expectedLatestId: latest });
    latest = checkpoint.id;
  }
  const last = history.at(-1)!;
  for (const write of pendingWrites) await store.putWrites(last.threadId, last.ns, last.id, write);
  return store;
}

const ran: string[] = [];

function fanOut(checkpointer: MemoryCheckpointer) {
  return new Graph({ name: "Fan" })
    .addReducer("log", (a: string[] = [], b: string[]) => a.concat(b))
    .addNode("ask", () => {
      ran.push("ask");
      return { log: [`asked:${interrupt("ok?")}`] };
    })
    .addNode("work", () => {
      ran.push("work");
      return { log: ["worked"] };
    })
    .addNode("join", (s) => ({ done: s.log.length }))
    .addEdge(START, "ask")
    .addEdge(START, "work")
    .addEdge(["ask", "work"], "join")
    .addEdge("join", END)
    .compile({ checkpointer });
}

describe("checkpoints saved before the task runner", () => {
  it("shows a paused thread and resumes it", async () => {
    const store = await storeWith(saved.approval);
    const graph = approvalGraph(store);
    const config = { configurable: { thread_id: "before-runner" } };
    const state = await graph.getState(config);
    expect([state.next, state.interrupts.map((i) => i.value)]).toEqual([
      ["approval"],
      [{ question: "Approve?", details: "Transfer $500 (prepared)" }],
    ]);
    const done = await graph.resume(true, { config });
    expect(done).toEqual({
      status: "done",
      state: { details: "Transfer $500 (prepared)", approved: true, outcome: "executed" },
    });
  });

  it("resumes a paused fan-out without re-running the sibling that had finished", async () => {
    const store = await storeWith(saved.fanOut, saved.fanOutPendingWrites);
    const graph = fanOut(store);
    const done = await graph.resume("yes", {
      config: { configurable: { thread_id: "fan-before-runner" } },
    });
    expect(done).toEqual({ status: "done", state: { log: ["asked:yes", "worked"], done: 2 } });
    expect(ran).toEqual(["ask"]);
  });
});
