import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { PGliteCheckpointer } from "../../src/checkpoint/index.js";
import { approvalGraph } from "./fixtures/approval-graph.js";

const run = promisify(execFile);
const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe("a paused run survives its process", () => {
  it("pauses in a child process with a PGlite data directory and resumes here with a new instance", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "stateweaver-restart-"));
    dirs.push(dataDir);
    const fixture = new URL("./fixtures/pause-in-child.ts", import.meta.url).pathname;
    const { stdout } = await run(
      process.execPath,
      ["--conditions=source", "--import", "tsx", fixture, dataDir, "restart-1"],
      { cwd: new URL("../..", import.meta.url).pathname },
    );
    const paused = JSON.parse(stdout);
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
});
