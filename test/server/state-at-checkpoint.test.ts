import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { suiteGraphs } from "./fixtures/langgraph-suite-graphs.js";
import { type RunningServer, startServer } from "./fixtures/server.js";

// The SDK's getState with a checkpoint object (POST /threads/:id/state/checkpoint): a
// checkpoint of the thread by id, or a subgraph run's state by its namespace.

let running: RunningServer;
let client: Client;
beforeAll(async () => {
  running = await startServer({ graphs: suiteGraphs() });
  client = new Client({ apiUrl: running.url });
});
afterAll(() => running.stop());

describe("getState with a checkpoint object", () => {
  it("shows a subgraph run's state by the checkpoint its task names", async () => {
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, "weather", {
      input: { messages: [{ role: "human", content: "SF" }] },
    });
    const state = await client.threads.getState(thread.thread_id);
    const inner = await client.threads.getState<{ city: string }>(
      thread.thread_id,
      state.tasks[0]!.checkpoint!,
    );
    expect(inner.values.city).toBe("San Francisco");
    expect(inner.next).toEqual(["weather_node"]);
    expect(inner.checkpoint.checkpoint_ns).toBe(state.tasks[0]!.checkpoint!.checkpoint_ns);
  });

  it("shows a checkpoint of the thread by its id, as the id alone does", async () => {
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, "weather", {
      input: { messages: [{ role: "human", content: "SF" }] },
    });
    const [, earlier] = await client.threads.getHistory(thread.thread_id);
    const id = earlier!.checkpoint.checkpoint_id!;
    const byObject = await client.threads.getState(thread.thread_id, earlier!.checkpoint);
    expect(byObject).toEqual(await client.threads.getState(thread.thread_id, id));
    expect(byObject.checkpoint.checkpoint_id).toBe(id);
  });
});
