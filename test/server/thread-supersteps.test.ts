// A thread created with supersteps (LangGraph's bulkUpdateState at create), through the
// official SDK client: one checkpoint a superstep, each step's writes in the history's
// metadata, and a refused superstep leaves no thread behind.
import { randomUUID } from "node:crypto";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemoryCheckpointer } from "../../src/checkpoint/index.js";
import { Command, END, Graph, START } from "../../src/index.js";
import { type RunningServer, startServer } from "./fixtures/server.js";
import { serverStores } from "./fixtures/server-stores.js";

const append = (a: string[] = [], b: string | string[]) => [...a, ...[b].flat()];

/** `left` and `right` after START, `join` after both. */
const diamond = (name: string) =>
  new Graph({ name })
    .addReducer("log", append)
    .addNode("left", () => ({ log: "left" }))
    .addNode("right", () => ({ log: "right" }))
    .addNode("join", () => ({ log: "join" }))
    .addEdge(START, "left")
    .addEdge(START, "right")
    .addEdge(["left", "right"], "join")
    .compile();

let running: RunningServer;
let client: Client<any>;
beforeAll(async () => {
  running = await startServer({
    graphs: { diamond: diamond("diamond"), other: diamond("other") },
    checkpointer: new MemoryCheckpointer(),
  });
  client = new Client<any>({ apiUrl: running.url });
});
afterAll(() => running.stop());

const post = (body: unknown) =>
  fetch(`${running.url}/threads`, {
    method: "POST",
    headers: { accept: "application/json", "content-type": "application/json" },
    body: JSON.stringify(body),
  });

describe("threads.create with supersteps", () => {
  it("writes one checkpoint a superstep, several nodes' updates merged in one, and keeps the thread's metadata", async () => {
    const thread = await client.threads.create({
      graphId: "diamond",
      metadata: { owner: "ana" },
      supersteps: [
        { updates: [{ values: { log: [] }, asNode: "__input__" }] },
        { updates: [{ values: { log: [] }, asNode: "__start__" }] },
        {
          updates: [
            { values: { log: "L" }, asNode: "left" },
            { values: { log: "R" }, asNode: "right" },
          ],
        },
      ],
    });
    expect(thread.metadata).toMatchObject({ owner: "ana", graph_id: "diamond" });
    expect(thread.values).toEqual({ log: ["L", "R"] });
    const history = await client.threads.getHistory(thread.thread_id);
    expect(history.map((s) => [s.metadata?.source, s.next, s.metadata?.writes])).toEqual([
      ["update", ["join"], { left: { log: "L" }, right: { log: "R" } }],
      ["update", ["left", "right"], { __start__: { log: [] } }],
      ["input", ["__start__"], { __start__: { log: [] } }],
    ]);
    // The rebuilt thread runs on from there like any other.
    const run = await client.runs.wait(thread.thread_id, "diamond", { input: null });
    expect(run).toEqual({ log: ["L", "R", "join"] });
  });

  it("a refused superstep answers 400 with what was wrong, and leaves no thread", async () => {
    const threadId = randomUUID();
    const res = await post({
      thread_id: threadId,
      metadata: { graph_id: "diamond" },
      supersteps: [
        { updates: [{ values: { log: [] }, as_node: "__input__" }] },
        { updates: [{ values: { log: "x" }, as_node: "ghost" }] },
      ],
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: unknown }).error).toMatchObject({
      code: "INVALID_CONFIG",
      message: expect.stringContaining('asNode: "ghost"): no such node'),
    });
    await expect(client.threads.get(threadId)).rejects.toThrow(/404/);
  });

  it("a superstep without as_node is a 400 naming the field", async () => {
    const res = await post({
      metadata: { graph_id: "diamond" },
      supersteps: [{ updates: [{ values: { log: [] } }] }],
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: unknown }).error).toMatchObject({
      code: "INVALID_BODY",
      fields: [expect.objectContaining({ path: "supersteps.0.updates.0.as_node" })],
    });
  });

  it("supersteps name their graph: without metadata.graph_id on a server of several graphs, a 400 saying so", async () => {
    const threadId = randomUUID();
    const res = await post({
      thread_id: threadId,
      supersteps: [{ updates: [{ values: { log: [] }, as_node: "__input__" }] }],
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: unknown }).error).toMatchObject({
      code: "INVALID_BODY",
      message: expect.stringContaining("metadata.graph_id"),
    });
    await expect(client.threads.get(threadId)).rejects.toThrow(/404/);
  });
});

/** `review` goes to `ship` or `revise` (its ends). */
const reviewGraph = () =>
  new Graph({ name: "review" })
    .addReducer("log", append)
    .addNode("review", () => new Command({ goto: "ship" }), { ends: ["ship", "revise"] })
    .addNode("ship", () => ({ log: "shipped" }))
    .addNode("revise", () => ({ log: "revised" }))
    .addEdge(START, "review")
    .addEdge("ship", END)
    .addEdge("revise", END)
    .compile();

describe.each(serverStores)("supersteps with a command (%s)", (_name, enabled, open) => {
  it.skipIf(!enabled)(
    "a command's update is written as its node and its goto is what runs next; a resume is refused, leaving no thread",
    async () => {
      const store = await open();
      const server = await startServer({
        graphs: { review: reviewGraph() },
        checkpointer: store.checkpointer,
        ...(store.queue && { queue: store.queue }),
      });
      try {
        const sdk = new Client<any>({ apiUrl: server.url });
        const start = [
          { updates: [{ values: { log: [] }, asNode: "__input__" }] },
          { updates: [{ values: { log: [] }, asNode: "__start__" }] },
        ];
        const thread = await sdk.threads.create({
          graphId: "review",
          supersteps: [
            ...start,
            {
              updates: [
                {
                  values: undefined,
                  command: { update: { log: "by hand" }, goto: "revise" },
                  asNode: "review",
                },
              ],
            },
          ],
        });
        const state = await sdk.threads.getState(thread.thread_id);
        expect([state.values, state.next, state.metadata?.writes]).toEqual([
          { log: ["by hand"] },
          ["revise"],
          { review: { log: "by hand" } },
        ]);
        const run = await sdk.runs.wait(thread.thread_id, "review", { input: null });
        expect(run).toEqual({ log: ["by hand", "revised"] });

        const threadId = randomUUID();
        const refused = sdk.threads.create({
          threadId,
          graphId: "review",
          supersteps: [
            ...start,
            { updates: [{ values: undefined, command: { resume: "yes" }, asNode: "review" }] },
          ],
        });
        await expect(refused).rejects.toThrow(/400.*resume/s);
        await expect(sdk.threads.get(threadId)).rejects.toThrow(/404/);
      } finally {
        await server.stop();
        await store.dispose();
      }
    },
    60_000,
  );
});
