import { describe, expect, it } from "vitest";
import { ThreadBusyError } from "../../src/errors/index.js";
import { InProcessRunRegistry } from "../../src/runs/index.js";

const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

describe("runs in this process", () => {
  it("go pending, running, then end with what the work returned", async () => {
    const runs = new InProcessRunRegistry();
    const run = runs.start({ threadId: "t1", graphId: "g" }, async () => "interrupted");
    expect(run.status).toBe("pending");
    expect((await runs.join(run.runId))?.status).toBe("interrupted");
  });

  it("refuse a second run on a busy thread, and allow one once it ended", async () => {
    const runs = new InProcessRunRegistry();
    let finish!: () => void;
    const first = runs.start({ threadId: "t1", graphId: "g" }, async () => {
      await new Promise<void>((resolve) => {
        finish = resolve;
      });
      return "success";
    });
    await tick();
    expect(() => runs.start({ threadId: "t1", graphId: "g" }, async () => "success")).toThrow(
      ThreadBusyError,
    );
    finish();
    await runs.join(first.runId);
    const second = runs.start({ threadId: "t1", graphId: "g" }, async () => "success");
    expect((await runs.join(second.runId))?.status).toBe("success");
  });

  it("record a failure's name and message", async () => {
    const runs = new InProcessRunRegistry();
    const run = runs.start({ threadId: "t1", graphId: "g" }, async () => {
      throw new TypeError("bad input");
    });
    expect(await runs.join(run.runId)).toMatchObject({
      status: "error",
      error: { name: "TypeError", message: "bad input" },
    });
  });

  it("cancel through the work's AbortSignal", async () => {
    const runs = new InProcessRunRegistry();
    const run = runs.start({ threadId: "t1", graphId: "g" }, async ({ signal }) => {
      await new Promise((_, reject) =>
        signal.addEventListener("abort", () => reject(signal.reason)),
      );
      return "success";
    });
    await tick();
    expect(runs.cancel(run.runId)).toBe(true);
    expect((await runs.join(run.runId))?.status).toBe("cancelled");
    expect(runs.cancel(run.runId)).toBe(false);
  });

  it("give a slow joiner every event, including those reported while it was busy", async () => {
    const runs = new InProcessRunRegistry();
    const run = runs.start({ threadId: "t1", graphId: "g" }, async ({ emit }) => {
      for (let i = 1; i <= 20; i++) {
        emit("n", i);
        if (i % 5 === 0) await tick();
      }
      return "success";
    });
    const seen: unknown[] = [];
    for await (const e of runs.events(run.runId)) {
      seen.push(e.data);
      await tick(); // slower than the run
    }
    expect(seen).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    const late: number[] = [];
    for await (const e of runs.events(run.runId, { afterSeq: 18 })) late.push(e.seq);
    expect(late).toEqual([19, 20]);
  });
});
