import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { removed } from "./fixtures/graphs.js";
import { type RunningServer, startServer, tempDataDir } from "./fixtures/server.js";

// The official SDK client, unchanged, against our server on a real local port.
describe("the LangGraph SDK client drives a review end to end", () => {
  let running: RunningServer;
  let client: Client;
  beforeAll(async () => {
    running = await startServer();
    client = new Client({ apiUrl: running.url });
  });
  afterAll(() => running.stop());

  it("answers health and lists one assistant per graph with its nodes and edges", async () => {
    expect(await (await fetch(`${running.url}/ok`)).json()).toEqual({ ok: true });
    const assistants = await client.assistants.search();
    expect(assistants.map((a) => a.assistant_id).sort()).toEqual([
      "ops",
      "pair",
      "question",
      "stepper",
    ]);
    const graph = await client.assistants.getGraph("stepper");
    expect(graph.nodes.map((n) => n.id)).toEqual(["__start__", "count", "publish", "__end__"]);
    expect(graph.edges).toContainEqual({ source: "count", target: "publish", conditional: false });
  });

  it("runs to a tool review, finds it by status, and resumes it with a decision", async () => {
    const thread = await client.threads.create({ metadata: { ticket: "T-1" } });
    const paused = await client.runs.wait(thread.thread_id, "ops", {
      input: { messages: [{ type: "human", content: "remove notes.txt" }] },
    });
    const interrupts = (paused as { __interrupt__?: Array<{ id: string; value: any }> })
      .__interrupt__;
    expect(interrupts?.[0]?.value.actionRequests[0]).toMatchObject({
      name: "remove_file",
      args: { path: "notes.txt" },
    });
    expect(removed).not.toContain("notes.txt");

    const waiting = await client.threads.search({
      status: "interrupted",
      metadata: { ticket: "T-1" },
    });
    expect(waiting.map((t) => t.thread_id)).toEqual([thread.thread_id]);
    expect(waiting[0]!.status).toBe("interrupted");

    const done = await client.runs.wait(thread.thread_id, "ops", {
      command: { resume: { [interrupts![0]!.id]: { decisions: [{ type: "approve" }] } } },
    });
    const messages = (done as { messages: Array<{ type: string; content: string }> }).messages;
    expect(messages.map((m) => m.type)).toEqual(["human", "ai", "tool", "ai"]);
    expect(messages.at(-1)!.content).toBe("Done: removed notes.txt");
    expect(removed).toContain("notes.txt");
    expect((await client.threads.get(thread.thread_id)).status).toBe("idle");
  });

  it("refuses a resume that does not fit the review, leaving the thread exactly as it was", async () => {
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, "ops", {
      input: { messages: [{ role: "user", content: "remove a.txt and b.txt" }] },
    });
    const before = await client.threads.getState(thread.thread_id);
    await expect(
      client.runs.wait(thread.thread_id, "ops", {
        command: { resume: { decisions: [{ type: "approve" }] } },
      }),
    ).rejects.toThrow(/Give exactly 2 decisions/);
    await expect(
      client.runs.wait(thread.thread_id, "ops", {
        command: {
          resume: {
            decisions: [
              {
                type: "edit",
                editedAction: { name: "remove_file", args: { path: "/etc/passwd" } },
              },
              { type: "approve" },
            ],
          },
        },
      }),
    ).rejects.toThrow(/pattern|match/i);
    const after = await client.threads.getState(thread.thread_id);
    expect(after).toEqual(before);
    expect((await client.threads.get(thread.thread_id)).status).toBe("interrupted");
  });

  it("refuses an edit that fails the tool's own schema, keeping the review pending", async () => {
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, "ops", {
      input: { messages: [{ type: "human", content: "fetch log.txt" }] },
    });
    const before = await client.threads.getState(thread.thread_id);
    await expect(
      client.runs.wait(thread.thread_id, "ops", {
        command: {
          resume: {
            decisions: [{ type: "edit", editedAction: { name: "fetch_file", args: { path: 5 } } }],
          },
        },
      }),
    ).rejects.toThrow(/editedAction\.args\.path: Invalid input: expected string/);
    expect(await client.threads.getState(thread.thread_id)).toEqual(before);
    expect((await client.threads.get(thread.thread_id)).status).toBe("interrupted");
  });

  it("streams a run's values, updates and model tokens as SSE", async () => {
    const thread = await client.threads.create();
    const events: Array<{ event: string; data: any }> = [];
    for await (const part of client.runs.stream(thread.thread_id, "ops", {
      input: { messages: [{ type: "human", content: "hello there friend" }] },
      // "debug" is not spoken here: asked for, it sends nothing and breaks nothing.
      streamMode: ["values", "updates", "messages-tuple", "debug"],
    })) {
      events.push(part as { event: string; data: any });
    }
    const names = events.map((e) => e.event);
    expect(names[0]).toBe("metadata");
    expect(names).toContain("updates");
    const tokens = events.filter((e) => e.event === "messages").map((e) => e.data[0].content);
    expect(tokens.join("")).toBe("You said hello there friend");
    expect(tokens.length).toBeGreaterThan(1);
    const last = events.filter((e) => e.event === "values").at(-1)!.data;
    expect(last.messages.at(-1)).toMatchObject({
      type: "ai",
      content: "You said hello there friend",
    });
    // The streamed chunks carry the id the finished message gets, so a UI can merge them.
    const chunkIds = new Set(events.filter((e) => e.event === "messages").map((e) => e.data[0].id));
    expect([...chunkIds]).toEqual([last.messages.at(-1).id]);
  });

  it("streams what nodes write as custom events, and the pause at a breakpoint", async () => {
    const thread = await client.threads.create();
    const events: Array<{ event: string; data: any }> = [];
    for await (const part of client.runs.stream(thread.thread_id, "stepper", {
      input: { n: 1 },
      streamMode: ["custom", "updates"],
    })) {
      events.push(part as { event: string; data: any });
    }
    expect(events.filter((e) => e.event === "custom").map((e) => e.data)).toEqual([{ counted: 2 }]);
    expect(events.find((e) => e.event === "updates" && "__interrupt__" in e.data)).toBeDefined();
    // The stream just closes, as LangGraph's does: no closing event reaches the client.
    expect(events.map((e) => e.event)).not.toContain("end");
  });

  it("creates a background run, joins it, and joins its stream after the fact", async () => {
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "question", {
      input: { question: "Colour?" },
    });
    const joined = await client.runs.join(thread.thread_id, run.run_id);
    expect(
      (joined as { __interrupt__: Array<{ value: unknown }> }).__interrupt__[0]!.value,
    ).toEqual({
      question: "Colour?",
    });
    const replay: string[] = [];
    for await (const part of client.runs.joinStream(thread.thread_id, run.run_id))
      replay.push(part.event);
    expect(replay).toContain("values");
    expect((await client.runs.get(thread.thread_id, run.run_id)).status).toBe("interrupted");

    const answered = await client.runs.wait(thread.thread_id, "question", {
      command: { resume: "Blue" },
    });
    expect(answered).toMatchObject({ question: "Colour?", answer: "Blue" });
  });

  it("updates state through POST /threads/:id/state and reads the history", async () => {
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, "stepper", { input: { n: 1 } });
    expect((await client.threads.getState(thread.thread_id)).next).toEqual(["publish"]);
    await client.threads.updateState(thread.thread_id, { values: { n: 10 } });
    const done = await client.runs.wait(thread.thread_id, "stepper", { input: null });
    expect(done).toEqual({ n: 10, published: true });
    const history = await client.threads.getHistory(thread.thread_id, { limit: 20 });
    expect(history.length).toBeGreaterThan(2);
    expect(history[0]!.values).toEqual({ n: 10, published: true });
  });

  it("cancels a run and deletes a thread", async () => {
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, "question", { input: { question: "?" } });
    await client.threads.delete(thread.thread_id);
    await expect(client.threads.get(thread.thread_id)).rejects.toThrow(/404|No thread/);
  });
});

describe("a thread that paused before a restart is resumed after it", () => {
  it("keeps the pause in the PGlite data directory across server processes' lifetimes", async () => {
    const data = await tempDataDir();
    try {
      const firstStore = data.open();
      const first = await startServer({ checkpointer: firstStore });
      const before = new Client({ apiUrl: first.url });
      const thread = await before.threads.create();
      await before.runs.wait(thread.thread_id, "ops", {
        input: { messages: [{ type: "human", content: "remove old.log" }] },
      });
      await first.stop();
      await firstStore.close();

      const secondStore = data.open();
      const second = await startServer({ checkpointer: secondStore });
      try {
        const after = new Client({ apiUrl: second.url });
        const [waiting] = await after.threads.search({ status: "interrupted" });
        expect(waiting?.thread_id).toBe(thread.thread_id);
        const done = await after.runs.wait(thread.thread_id, "ops", {
          command: { resume: { decisions: [{ type: "approve" }] } },
        });
        expect((done as { messages: Array<{ content: string }> }).messages.at(-1)!.content).toBe(
          "Done: removed old.log",
        );
      } finally {
        await second.stop();
        await secondStore.close();
      }
    } finally {
      await data.dispose();
    }
  });
});
