import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { opsAgent } from "./fixtures/graphs.js";
import { suiteGraphs } from "./fixtures/langgraph-suite-graphs.js";
import { type RunningServer, startServer } from "./fixtures/server.js";

// The `events` stream mode: LangChain's callback events, nested as LangGraph's are.

let running: RunningServer;
let client: Client;
beforeAll(async () => {
  running = await startServer({ graphs: { ...suiteGraphs(), ops: opsAgent() } });
  client = new Client({ apiUrl: running.url });
});
afterAll(() => running.stop());

interface CallbackEvent {
  event: string;
  name: string;
  run_id: string;
  parent_ids: string[];
  data: Record<string, any>;
}

async function eventsOf(
  graphId: string,
  input: Record<string, unknown>,
  threadId?: string,
  command?: { resume: unknown },
): Promise<CallbackEvent[]> {
  const thread = threadId ?? (await client.threads.create()).thread_id;
  const events: CallbackEvent[] = [];
  for await (const chunk of client.runs.stream(thread, graphId, {
    ...(command ? { command } : { input }),
    streamMode: "events",
    config: { configurable: { user_id: "123" } },
  })) {
    if (chunk.event === "events") events.push(chunk.data as CallbackEvent);
  }
  return events;
}

describe("the events stream mode", () => {
  it("opens with the run's on_chain_start and closes with its on_chain_end and final values", async () => {
    const events = await eventsOf("agent", { messages: [{ role: "human", content: "foo" }] });
    const [first, last] = [events[0]!, events.at(-1)!];
    expect(first).toMatchObject({ event: "on_chain_start", name: "agent", parent_ids: [] });
    expect(last).toMatchObject({ event: "on_chain_end", run_id: first.run_id, parent_ids: [] });
    expect(last.data.output.messages.at(-1).content).toBe("end");
  });

  it("nests each node's events and each streamed reply's under the task that ran them", async () => {
    const events = await eventsOf("agent", { messages: [{ role: "human", content: "foo" }] });
    const root = events[0]!.run_id;
    const tasks = events.filter((e) => e.event === "on_chain_start" && e.run_id !== root);
    expect(tasks.map((e) => e.name)).toEqual(["agent", "tool", "agent"]);
    for (const task of tasks) {
      expect(task.parent_ids).toEqual([root]);
      const end = events.findIndex((e) => e.event === "on_chain_end" && e.run_id === task.run_id);
      expect(end).toBeGreaterThan(events.indexOf(task));
    }
    const [reply] = events.filter((e) => e.event === "on_chat_model_start");
    const ofReply = events.filter((e) => e.run_id === reply!.run_id).map((e) => e.event);
    expect(ofReply).toEqual([
      "on_chat_model_start",
      ..."begin".split("").map(() => "on_chat_model_stream"),
      "on_chat_model_end",
    ]);
    expect(reply!.parent_ids).toEqual([root, tasks[0]!.run_id]);
    const end = events.find((e) => e.event === "on_chat_model_end" && e.run_id === reply!.run_id);
    expect(end!.data.output).toMatchObject({ type: "ai", content: "begin" });
  });

  it("shows the calls an agent's tools node makes, inside its task", async () => {
    const thread = await client.threads.create();
    const paused = await eventsOf(
      "ops",
      { messages: [{ type: "human", content: "remove a.txt" }] },
      thread.thread_id,
    );
    expect(paused.filter((e) => e.event === "on_tool_start")).toEqual([]);
    const resumed = await eventsOf("ops", {}, thread.thread_id, {
      resume: { decisions: [{ type: "approve" }] },
    });
    const start = resumed.find((e) => e.event === "on_tool_start");
    const end = resumed.find((e) => e.event === "on_tool_end");
    expect(start).toMatchObject({ name: "remove_file", data: { input: { path: "a.txt" } } });
    expect(end).toMatchObject({ run_id: start!.run_id, data: { output: "removed a.txt" } });
    const task = resumed.find(
      (e) => e.event === "on_chain_start" && e.run_id === start!.parent_ids[1],
    );
    expect(task?.name).toBe("tools");
  });
});
