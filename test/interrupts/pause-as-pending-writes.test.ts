/**
 * A step paused by `interrupt()` writes no checkpoint, as in LangGraph: the checkpoint the
 * step started from stays the latest, its paused tasks' state and its finished tasks'
 * writes are pending writes of it, and it reads as paused everywhere (state, history,
 * thread record, search). Resumes (some answers, then the rest) and a failed resumed run
 * go on from it, running only the tasks that had not finished.
 */
import { describe, expect, it } from "vitest";
import {
  type Checkpointer,
  MemoryCheckpointer,
  PGliteCheckpointer,
} from "../../src/checkpoint/index.js";
import { Command, END, Graph, interrupt, START } from "../../src/index.js";

/** `a` and `b` ask, `w` works beside them, `join` counts; `b` fails once after its answer. */
function fanOut(checkpointer: Checkpointer) {
  const ran = { a: 0, b: 0, w: 0 };
  const faults = { b: 1 };
  const graph = new Graph({ name: "Asks" })
    .addReducer("log", (x: string[] = [], y: string[]) => x.concat(y))
    .addNode("a", () => {
      ran.a++;
      return { log: [`a:${interrupt("a?")}`] };
    })
    .addNode("b", () => {
      ran.b++;
      const answer = interrupt("b?");
      if (faults.b-- > 0) throw new Error("b failed once");
      return { log: [`b:${answer}`] };
    })
    .addNode("w", () => {
      ran.w++;
      return { log: ["w"] };
    })
    .addNode("join", (s: { log: string[] }) => ({ count: s.log.length }))
    .addEdge(START, "a")
    .addEdge(START, "b")
    .addEdge(START, "w")
    .addEdge(["a", "b", "w"], "join")
    .addEdge("join", END)
    .compile({ checkpointer });
  return { graph, ran };
}

const stores = [
  { name: "MemoryCheckpointer", make: () => new MemoryCheckpointer() },
  { name: "PGliteCheckpointer", make: () => new PGliteCheckpointer() },
];

describe.each(stores)("a pause stored as pending writes ($name)", ({ make }) => {
  it("adds no checkpoint and reads as paused; answers some, then the rest; a failed resume re-runs only the unfinished task", async () => {
    const store = make();
    try {
      const { graph, ran } = fanOut(store);
      const threadId = `pending-pause-${Math.random()}`;
      const config = { configurable: { thread_id: threadId } };
      const paused = await graph.invoke({ log: [] }, { config });
      expect(paused.status).toBe("interrupted");
      const checkpoints = await store.list(threadId);
      const barrier = checkpoints[0]!;
      // The latest is the barrier the step started from: its next is the whole step.
      expect(barrier.next).toEqual(["a", "b", "w"]);
      expect(barrier.interrupts).toEqual([]);

      const state = await graph.getState(config);
      expect(state.config.configurable?.checkpoint_id).toBe(barrier.id);
      expect(state.next).toEqual(["a", "b"]);
      expect(state.values).toEqual({ log: ["w"] });
      expect(state.tasks.map((t) => [t.name, t.status, t.interrupts.map((i) => i.value)])).toEqual([
        ["a", "interrupted", ["a?"]],
        ["b", "interrupted", ["b?"]],
        ["w", "done", []],
      ]);
      const [qa, qb] = state.interrupts;
      expect([qa?.value, qb?.value]).toEqual(["a?", "b?"]);
      expect(await store.getThread(threadId)).toMatchObject({
        status: "interrupted",
        interrupts: state.interrupts,
        latestCheckpointId: barrier.id,
      });
      const waiting = await graph.threads.search({ status: "interrupted" });
      expect(waiting.threads.map((t) => t.threadId)).toEqual([threadId]);
      const history = [];
      for await (const s of graph.getStateHistory(config)) history.push(s);
      expect(history).toHaveLength(checkpoints.length);
      expect(history[0]).toEqual(state);

      // One answer, by its interrupt's id: the other task still waits; still no checkpoint.
      const again = await graph.resume({ [qa!.id]: "yes" }, { config });
      expect(again.status === "interrupted" && again.interrupts.map((i) => i.id)).toEqual([qb!.id]);
      expect(await store.list(threadId)).toEqual(checkpoints);
      expect((await graph.getState(config)).next).toEqual(["b"]);
      expect((await store.getThread(threadId))?.interrupts).toEqual([qb]);

      // The last answer: `b` fails after it; `a` and `w` stay done.
      await expect(
        graph.invoke(new Command({ resume: { [qb!.id]: "no" } }), { config }),
      ).rejects.toThrow("b failed once");
      expect(ran).toEqual({ a: 2, b: 2, w: 1 });
      // Its answer was not kept (as a pause is not): `b` asks again, and then goes on.
      const asked = await graph.invoke(null, { config });
      expect(asked.status === "interrupted" && asked.interrupts.map((i) => i.value)).toEqual([
        "b?",
      ]);
      const done = await graph.resume("no", { config });
      expect(done).toEqual({ status: "done", state: { log: ["a:yes", "b:no", "w"], count: 3 } });
      expect(ran).toEqual({ a: 2, b: 4, w: 1 });
      expect((await store.getThread(threadId))?.status).toBe("idle");
      // The paused step left one checkpoint, the barrier; the one after it follows it.
      const after = await store.list(threadId);
      expect(after.slice(after.length - checkpoints.length)).toEqual(checkpoints);
      expect(after.at(-checkpoints.length - 1)?.parentId).toBe(barrier.id);
    } finally {
      await store.close?.();
    }
  });
});
