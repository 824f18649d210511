/**
 * A process killed with SIGKILL while it runs a thread leaves a claim behind; another
 * process can run on that thread once the claim's lifetime has passed: within 5 s by
 * default, sooner with a shorter `claimTtlMs`.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { afterAll, expect, it } from "vitest";
import { PostgresCheckpointer } from "../../src/checkpoint/index.js";
import { ConcurrentUpdateError, Graph, START, ThreadBusyError } from "../../src/index.js";
import { DEFAULT_CLAIM_TTL_MS } from "../../src/runtime/claim-renewal.js";
import { dropStoreTables } from "../setup/store-tables.js";

const pgUrl = process.env.STATEWEAVER_PG_URL;
const tablePrefix = `sw_claimkill_${randomUUID().slice(0, 8)}_`;
const holder = fileURLToPath(new URL("./fixtures/claim-holder.ts", import.meta.url));
const stores: PostgresCheckpointer[] = [];

afterAll(async () => {
  for (const store of stores) await store.close();
  if (!pgUrl) return;
  const pool = new pg.Pool({ connectionString: pgUrl });
  await dropStoreTables(pool, tablePrefix);
  await pool.end();
});

/** Start a holder of `threadId`, wait until its node runs, kill it; when it died. */
async function killHolder(threadId: string, claimTtlMs?: number): Promise<number> {
  const child: ChildProcess = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      holder,
      pgUrl!,
      tablePrefix,
      threadId,
      ...(claimTtlMs ? [String(claimTtlMs)] : []),
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  await new Promise<void>((ready, failed) => {
    child.stdout!.setEncoding("utf8").on("data", (text: string) => {
      if (text.includes("holding")) ready();
    });
    child.once("exit", (code) => failed(new Error(`the holder exited early (${code})`)));
  });
  const exited = new Promise((done) => child.once("exit", done));
  child.kill("SIGKILL");
  await exited;
  return Date.now();
}

/** How long after `diedAt` a run on `threadId` was first let in. */
async function recoveryMs(store: PostgresCheckpointer, threadId: string, diedAt: number) {
  const graph = new Graph<{ n: number }>({ name: "holder" })
    .addNode("wait", (s) => ({ n: s.n + 1 }))
    .addEdge(START, "wait")
    .compile({ checkpointer: store });
  const config = { configurable: { thread_id: threadId } };
  let refused = 0;
  for (;;) {
    try {
      await graph.invoke({ n: 1 }, { config });
      return { ms: Date.now() - diedAt, refused };
    } catch (error) {
      // A write the killed holder had sent may still land just after its death: read again.
      if (!(error instanceof ConcurrentUpdateError)) throw error;
      if (error instanceof ThreadBusyError) refused++;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

it.skipIf(!pgUrl)(
  "after a holder is killed with SIGKILL, another process runs on its thread within 5 s by default",
  async () => {
    const store = new PostgresCheckpointer({ connectionString: pgUrl!, tablePrefix });
    stores.push(store);
    await store.searchThreads({ limit: 1 }); // the tables exist before the holder starts
    const threadId = randomUUID();
    const diedAt = await killHolder(threadId);
    const { ms, refused } = await recoveryMs(store, threadId, diedAt);
    // The claim was there (the thread was busy at first), and it ran out in time.
    expect(refused).toBeGreaterThan(0);
    expect(ms).toBeLessThanOrEqual(DEFAULT_CLAIM_TTL_MS + 1000);
    expect(ms).toBeLessThan(5000);
  },
  60_000,
);

it.skipIf(!pgUrl)(
  "a store's claimTtlMs sets how long a dead holder's claim lasts",
  async () => {
    const store = new PostgresCheckpointer({ connectionString: pgUrl!, tablePrefix });
    stores.push(store);
    await store.searchThreads({ limit: 1 });
    const threadId = randomUUID();
    // The holder's store says 1 s: the claim its run took lasts that long.
    const diedAt = await killHolder(threadId, 1000);
    const { ms, refused } = await recoveryMs(store, threadId, diedAt);
    expect(refused).toBeGreaterThan(0);
    expect(ms).toBeLessThan(DEFAULT_CLAIM_TTL_MS);
    expect(() => new PostgresCheckpointer({ connectionString: pgUrl!, claimTtlMs: 10 })).toThrow(
      /claimTtlMs must be a number of milliseconds ≥ 300/,
    );
  },
  60_000,
);
