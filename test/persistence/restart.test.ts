import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PGliteCheckpointer } from "../../src/checkpoint/index.js";
import { approvalGraph, nestedApprovalGraph } from "./fixtures/approval-graph.js";

const run = promisify(execFile);

/** Run the fixture in a fresh Node process and return what it printed. */
async function pauseInChild(dataDir: string, threadId: string, shape: "flat" | "nested") {
  const fixture = new URL("./fixtures/pause-in-child.ts", import.meta.url).pathname;
  const { stdout, stderr } = await run(
    process.execPath,
    ["--conditions=source", "--import", "tsx", fixture, dataDir, threadId, shape],
    { cwd: new URL("../..", import.meta.url).pathname },
  );
  // The child's warnings would not reach the test's console guard: its stderr must be clean too.
  expect(stderr).toBe("");
  return JSON.parse(stdout);
}
// One data directory for the file: creating a PGlite database costs seconds, reopening it does not.
let dataDir: string;
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "stateweaver-restart-"));
});
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

describe("a paused run survives its process", () => {
  it("pauses in a child process with a PGlite data directory and resumes here with a new instance", async () => {
    const paused = await pauseInChild(dataDir, "restart-1", "flat");
    expect(paused.status).toBe("interrupted");
    expect(paused.interrupt.value).toEqual({
      question: "Approve?",
      details: "Transfer $500 (prepared)",
    });

    // The child has exited: nothing of its run is in memory anywhere.
    const checkpointer = new PGliteCheckpointer(dataDir);
    try {
      const graph = approvalGraph(checkpointer);
      const config = { configurable: { thread_id: "restart-1" } };
      const state = await graph.getState(config);
      expect(state.next).toEqual(["approval"]);
      expect(state.interrupts[0]!.id).toBe(paused.interrupt.id);
      const done = await graph.resume(true, { config });
      expect(done).toEqual({
        status: "done",
        state: { details: "Transfer $500 (prepared)", approved: true, outcome: "executed" },
      });
    } finally {
      await checkpointer.close();
    }
  }, 60_000);

  it("resumes a subgraph's interrupt in a new process from the namespaced snapshots", async () => {
    const paused = await pauseInChild(dataDir, "restart-nested", "nested");
    expect(paused.status).toBe("interrupted");
    expect(paused.interrupt.ns).toMatch(/^review:/);
    const checkpointer = new PGliteCheckpointer(dataDir);
    try {
      const graph = nestedApprovalGraph(checkpointer);
      const config = { configurable: { thread_id: "restart-nested" } };
      const nested = await graph.getState(config, { subgraphs: true });
      expect(nested.tasks[0]!.state!.interrupts[0]!.id).toBe(paused.interrupt.id);
      const done = await graph.resume({ [paused.interrupt.id]: false }, { config });
      expect(done.state).toEqual({ details: "Transfer $500", approved: false, outcome: "skipped" });
    } finally {
      await checkpointer.close();
    }
  }, 60_000);
});
