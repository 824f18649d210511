/**
 * Concurrent resumes of one paused thread on a server whose runs a worker executes: one
 * wins, every other gets 409, and no failed run is left in the thread's list — as on a
 * server that executes its runs itself.
 */
import { randomUUID } from "node:crypto";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, expect, it } from "vitest";
import { PostgresCheckpointer } from "../../src/checkpoint/index.js";
import { PostgresRunQueue } from "../../src/runs/index.js";
import { startWorker } from "../../src/server/index.js";
import { type RunningServer, startServer, testGraphs } from "../server/fixtures/server.js";
import { dropDeploymentTables } from "../setup/store-tables.js";

const url = process.env.STATEWEAVER_PG_URL;
const tablePrefix = `sw_resume_${randomUUID().slice(0, 8)}_`;
let server: RunningServer | undefined;
let worker: Awaited<ReturnType<typeof startWorker>> | undefined;
let store: PostgresCheckpointer | undefined;

afterAll(async () => {
  await worker?.close();
  await server?.stop();
  await store?.close();
  if (!url) return;
  await dropDeploymentTables(url, tablePrefix);
});

it.skipIf(!url)(
  "on a worker-backed server, every losing concurrent resume of a paused thread is a 409",
  async () => {
    store = new PostgresCheckpointer({ connectionString: url!, tablePrefix });
    server = await startServer({
      checkpointer: store,
      queue: await PostgresRunQueue.open({ connectionString: url!, tablePrefix }),
      concurrency: 0,
    });
    worker = await startWorker({
      graphs: testGraphs(),
      checkpointer: store,
      queue: await PostgresRunQueue.open({ connectionString: url!, tablePrefix }),
    });
    const client = new Client({ apiUrl: server.url });
    for (let round = 0; round < 8; round++) {
      const thread = await client.threads.create();
      await client.runs.wait(thread.thread_id, "question", { input: { question: "name?" } });
      // Staggered a little, so some losers arrive after the winner's run has ended.
      const answers = await Promise.all(
        Array.from({ length: 6 }, async (_, i) => {
          await new Promise((r) => setTimeout(r, i * 40));
          const res = await fetch(`${server!.url}/threads/${thread.thread_id}/runs/wait`, {
            method: "POST",
            headers: { accept: "application/json", "content-type": "application/json" },
            body: JSON.stringify({ assistant_id: "question", command: { resume: `answer ${i}` } }),
          });
          return { status: res.status, body: (await res.json()) as Record<string, unknown> };
        }),
      );
      const won = answers.filter((a) => a.status === 200);
      expect(won).toHaveLength(1);
      expect(won[0]!.body.__error__).toBeUndefined();
      expect(answers.filter((a) => a.status === 409)).toHaveLength(5);
      const listed = await client.runs.list(thread.thread_id);
      expect(listed.filter((r) => r.status === "error")).toEqual([]);
    }
  },
  120_000,
);
