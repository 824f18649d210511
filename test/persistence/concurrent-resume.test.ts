import { afterAll, describe, expect, it } from "vitest";
import {
  type Checkpointer,
  MemoryCheckpointer,
  PGliteCheckpointer,
  PostgresCheckpointer,
} from "../../src/checkpoint/index.js";
import { ConcurrentUpdateError, Graph, interrupt, START } from "../../src/index.js";

const pgUrl = process.env.STATEWEAVER_PG_URL;
const stores: Checkpointer[] = [];
afterAll(async () => {
  for (const s of stores) await s.close?.();
});

/** The node holds the winner until the loser has been refused; `arrived` counts node runs. */
function gatedApproval(checkpointer: Checkpointer, gate: { arrived: number; open: Promise<void> }) {
  return new Graph({ name: "Gated" })
    .addNode("approval", async () => {
      const approved = interrupt("Approve?");
      gate.arrived++;
      await gate.open;
      return { approved };
    })
    .addEdge(START, "approval")
    .compile({ checkpointer });
}

async function raceTwoResumes(first: Checkpointer, second: Checkpointer) {
  const threadId = `race-${Math.random().toString(36).slice(2)}`;
  const config = { configurable: { thread_id: threadId } };
  let release!: () => void;
  const gate = { arrived: 0, open: new Promise<void>((r) => (release = r)) };
  const a = gatedApproval(first, gate);
  const b = gatedApproval(second, gate);
  const paused = await a.invoke({}, { config });
  expect(paused.status).toBe("interrupted");
  const runs = [a.resume(true, { config }), b.resume(false, { config })];
  const loser = await Promise.race(
    runs.map((run, i) =>
      run.then(
        () => undefined,
        (error: unknown) => ({ i, error }),
      ),
    ),
  );
  // The loser was refused while the winner still waits in its node: it ran nothing.
  expect(loser?.error).toBeInstanceOf(ConcurrentUpdateError);
  expect(gate.arrived).toBe(1);
  release();
  const winner = (await runs[1 - loser!.i]!) as { state: Record<string, unknown> };
  expect(gate.arrived).toBe(1);
  // The thread holds exactly the winner's outcome.
  const state = await a.getState(config);
  expect(state.values).toEqual(winner.state);
  expect(state.next).toEqual([]);
}

describe("two concurrent resumes of one paused thread: the loser is refused before any node runs", () => {
  it("on the memory checkpointer", async () => {
    const store = new MemoryCheckpointer();
    await raceTwoResumes(store, store);
  });

  it("on PGlite", async () => {
    const store = new PGliteCheckpointer("memory://");
    stores.push(store);
    await raceTwoResumes(store, store);
  }, 30_000);

  it.skipIf(!pgUrl)("on PostgreSQL, from two independent pools", async () => {
    const one = new PostgresCheckpointer({ connectionString: pgUrl! });
    const two = new PostgresCheckpointer({ connectionString: pgUrl! });
    stores.push(one, two);
    await raceTwoResumes(one, two);
  });
});
