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

/** Both resumes must have read the paused checkpoint before either writes: hold them in the node. */
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
  const racing = Promise.allSettled([a.resume(true, { config }), b.resume(false, { config })]);
  while (gate.arrived < 2) await new Promise((r) => setTimeout(r, 2));
  release();
  const results = await racing;
  const fulfilled = results.filter((r) => r.status === "fulfilled");
  const rejected = results.filter((r) => r.status === "rejected") as PromiseRejectedResult[];
  expect(fulfilled).toHaveLength(1);
  expect(rejected).toHaveLength(1);
  expect(rejected[0]!.reason).toBeInstanceOf(ConcurrentUpdateError);
  // The thread holds exactly the winner's outcome.
  const winner = (fulfilled[0] as PromiseFulfilledResult<{ state: Record<string, unknown> }>).value
    .state;
  const state = await a.getState(config);
  expect(state.values).toEqual(winner);
  expect(state.next).toEqual([]);
}

describe("two concurrent resumes of one paused thread: exactly one completes", () => {
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
