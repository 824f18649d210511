import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { removed } from "./fixtures/graphs.js";
import { type RunningServer, startServer, tempDataDir } from "./fixtures/server.js";

// A reviewer's browser or the terminal reviewer may send a decision again after the server
// restarted (a retry after a timeout, a second tab): the key must still find the first one.
let data: Awaited<ReturnType<typeof tempDataDir>>;
beforeAll(async () => {
  data = await tempDataDir();
});
afterAll(() => data.dispose());

async function api(url: string, path: string, init: { method?: string; body?: unknown } = {}) {
  const res = await fetch(`${url}${path}`, {
    method: init.method ?? "GET",
    headers: { accept: "application/json", "content-type": "application/json" },
    ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
  });
  return { status: res.status, body: (await res.json()) as any };
}

/** A server over the test's PGlite data directory; `stop` closes the store too. */
async function serverOnData(): Promise<RunningServer> {
  const checkpointer = data.open();
  const running = await startServer({ checkpointer });
  return {
    ...running,
    stop: async () => {
      await running.stop();
      await checkpointer.close();
    },
  };
}

describe("a decision's idempotency key", () => {
  it("answers with the first decision after a restart, and runs nothing again", async () => {
    const first = await serverOnData();
    const started = await api(first.url, "/inbox/threads", {
      method: "POST",
      body: { graphId: "ops", input: { messages: [{ type: "human", content: "remove r1.txt" }] } },
    });
    const { threadId } = started.body;
    await api(first.url, `/threads/${threadId}/runs/${started.body.runId}/join`);
    const [item] = (await api(first.url, `/inbox/threads/${threadId}`)).body.pending;
    const request = {
      checkpointId: item.checkpointId,
      interruptId: item.interruptId,
      answer: { decisions: [{ type: "approve" }] },
      reviewer: "ana",
      idempotencyKey: "restart-key-1",
    };
    const decided = await api(first.url, `/inbox/threads/${threadId}/decisions`, {
      method: "POST",
      body: request,
    });
    expect(decided.status).toBe(202);
    await api(first.url, `/threads/${threadId}/runs/${decided.body.runId}/join`);
    const before = (await api(first.url, `/inbox/threads/${threadId}`)).body;
    await first.stop();

    const second = await serverOnData();
    try {
      const again = await api(second.url, `/inbox/threads/${threadId}/decisions`, {
        method: "POST",
        body: request,
      });
      expect(again.status).toBe(202);
      expect(again.body.runId).toBe(decided.body.runId);
      expect(again.body.decision).toEqual(decided.body.decision);
      // Another pause's decision under the same key is refused, naming the first use.
      const reused = await api(second.url, `/inbox/threads/${threadId}/decisions`, {
        method: "POST",
        body: { ...request, interruptId: "some-other-interrupt" },
      });
      expect(reused.status).toBe(409);
      expect(reused.body.error.code).toBe("IDEMPOTENCY_KEY_REUSED");
      expect(reused.body.error.message).toContain(item.interruptId);
      // Nothing ran: the tool ran once, no run was queued, the thread is as it was.
      expect(removed.filter((p) => p === "r1.txt")).toHaveLength(1);
      expect((await api(second.url, `/threads/${threadId}/runs`)).body).toEqual([]);
      const after = (await api(second.url, `/inbox/threads/${threadId}`)).body;
      expect(after.thread.latestCheckpointId).toBe(before.thread.latestCheckpointId);
      expect(after.decisions).toEqual(before.decisions);
    } finally {
      await second.stop();
    }
  }, 60_000);
});
