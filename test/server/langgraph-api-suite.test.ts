// LangGraph's own Agent Server end-to-end suite (langchain-ai/langgraphjs,
// libs/langgraph-api/tests/api.test.mts), ported: the same calls through the official SDK
// client, the same assertions; only the graphs are ours (fixtures/langgraph-suite-graphs.ts)
// and a fresh server on a fresh store stands in for LangGraph's `truncate`: a PGlite
// directory here, PostgreSQL tables when langgraph-api-suite-postgres.test.ts runs it.
// A test for a part stateweaver has not built yet is `it.skip` with the reason, so this file
// is the honest score of our parity (docs/server.md).

import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { RemoteGraph } from "@langchain/langgraph/remote";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { buildUi, factoryGraph } from "../../src/server/index.js";
import { suiteDynamic, suiteGraphs } from "./fixtures/langgraph-suite-graphs.js";
import { suiteRoutes } from "./fixtures/langgraph-suite-routes.js";
import { type RunningServer, startServer } from "./fixtures/server.js";
import { freshSuiteStore } from "./fixtures/suite-store.js";

// Whole conversations on PGlite on a shared machine: more time than a unit test's default.
vi.setConfig({ testTimeout: 60_000 });

const globalConfig = { configurable: { user_id: "123" } };

interface Msg {
  type: string;
  content: string;
  id?: string;
}
interface AgentState {
  messages: Msg[];
  sharedStateValue?: string | null;
}

async function gatherIterator<T>(it: AsyncIterable<T> | Promise<AsyncIterable<T>>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of await it) out.push(item);
  return out;
}
const findLast = <T>(list: T[], pick: (item: T) => boolean): any => [...list].reverse().find(pick);

// Bundled once: each fresh server serves the same build.
const suiteUi = buildUi(
  { agent: "./ui/components.tsx" },
  { cwd: fileURLToPath(new URL("./fixtures", import.meta.url)) },
);

let running: RunningServer | undefined;
let disposeStore: (() => Promise<void>) | undefined;
let client: Client<any>;

/** A new server on a new store (fixtures/suite-store.ts): LangGraph's suite truncates its own. */
async function freshServer() {
  await running?.stop();
  await disposeStore?.();
  const store = await freshSuiteStore();
  disposeStore = store.dispose;
  running = await startServer({
    graphs: { ...suiteGraphs(), dynamic: await factoryGraph(suiteDynamic, "dynamic") },
    checkpointer: store.checkpointer,
    ...(store.queue && { queue: store.queue }),
    // LangGraph's suite runs its server with LANGGRAPH_CONFIG and its test app as http.app.
    graphDefaults: { agent: { config: { configurable: { model_name: "openai" } } } },
    routes: suiteRoutes(),
    // LangGraph's suite config: "ui": { "agent": "./graphs/agent.ui.tsx" }.
    ui: await suiteUi,
  });
  client = new Client<any>({ apiUrl: running.url });
}

beforeAll(freshServer);
afterAll(async () => {
  await running?.stop();
  await disposeStore?.();
});

describe("assistants", () => {
  it("create read update delete", async () => {
    const graphId = "agent";
    const config = { configurable: { model_name: "gpt" } };

    let res = await client.assistants.create({ graphId, config });
    expect(res).toMatchObject({ graph_id: graphId, config });

    const metadata = { name: "woof" };
    await client.assistants.update(res.assistant_id, { graphId, metadata });

    res = await client.assistants.get(res.assistant_id);
    expect(res).toMatchObject({ graph_id: graphId, config, metadata });

    await client.assistants.delete(res.assistant_id);
    await expect(() => client.assistants.get(res.assistant_id)).rejects.toThrow(
      "HTTP 404: Assistant not found",
    );
  });

  it("schemas", async () => {
    const graphId = "agent";
    const config = { configurable: { model: "openai" } };

    let res = await client.assistants.create({ graphId, config });
    expect(res).toMatchObject({ graph_id: graphId, config });

    res = await client.assistants.get(res.assistant_id);
    expect(res).toMatchObject({ graph_id: graphId, config });

    const graph = await client.assistants.getGraph(res.assistant_id);
    expect(graph).toMatchObject({
      nodes: expect.arrayContaining([
        expect.objectContaining({ id: "__start__", type: "schema" }),
        expect.objectContaining({
          id: "agent",
          type: "runnable",
          data: expect.objectContaining({ name: "agent" }),
        }),
        expect.objectContaining({
          id: "tool",
          type: "runnable",
          data: expect.objectContaining({ name: "tool" }),
        }),
        expect.objectContaining({ id: "__end__", type: "schema" }),
      ]),
      edges: expect.arrayContaining([
        expect.objectContaining({ source: "__start__", target: "agent" }),
        expect.objectContaining({ source: "tool", target: "agent" }),
        expect.objectContaining({ source: "agent", target: "tool", conditional: true }),
        expect.objectContaining({ source: "agent", target: "__end__" }),
      ]),
    });

    const schemas = await client.assistants.getSchemas(res.assistant_id);
    expect(schemas.input_schema).not.toBe(null);
    expect(schemas.output_schema).not.toBe(null);
    expect(schemas.config_schema).toMatchObject({
      type: "object",
      properties: { model_name: { type: "string" } },
      $schema: "http://json-schema.org/draft-07/schema#",
    });
    expect(schemas.state_schema).toMatchObject({
      type: "object",
      properties: { messages: { type: "array", items: { $ref: "#/definitions/BaseMessage" } } },
      $schema: "http://json-schema.org/draft-07/schema#",
    });

    await client.assistants.delete(res.assistant_id);
    await expect(() => client.assistants.get(res.assistant_id)).rejects.toThrow(
      "HTTP 404: Assistant not found",
    );
  });

  it("list assistants", async () => {
    let search = await client.assistants.search();
    expect(search.length).toBeGreaterThanOrEqual(1);

    const graphid = "agent";
    const create = await client.assistants.create({ graphId: "agent" });

    search = await client.assistants.search();
    expect(search.length).toBeGreaterThanOrEqual(2);

    search = await client.assistants.search({ graphId: graphid });
    expect(search.length).toBeGreaterThanOrEqual(2);
    expect(search.every((i) => i.graph_id === graphid)).toBe(true);

    search = await client.assistants.search({ metadata: { created_by: "system" } });
    expect(search.length).toBeGreaterThanOrEqual(1);
    expect(search.every((i) => i.assistant_id !== create.assistant_id)).toBe(true);
  });

  it("get assistant versions", async () => {
    const assistant = await client.assistants.create({ graphId: "agent" });
    expect(await client.assistants.getVersions(assistant.assistant_id)).toMatchObject([
      { version: 1 },
    ]);

    await client.assistants.update(assistant.assistant_id, {
      config: { configurable: { foo: "bar" } },
    });
    expect(await client.assistants.getVersions(assistant.assistant_id)).toMatchObject([
      { version: 2, config: { configurable: { foo: "bar" } } },
      { version: 1 },
    ]);
    expect(await client.assistants.getVersions(assistant.assistant_id, { limit: 1 })).toMatchObject(
      [{ version: 2 }],
    );
    expect(
      await client.assistants.getVersions(assistant.assistant_id, { offset: 1 }),
    ).toMatchObject([{ version: 1 }]);

    await client.assistants.update(assistant.assistant_id, { metadata: { foo: "baz" } });
    expect(
      await client.assistants.getVersions(assistant.assistant_id, { metadata: { foo: "baz" } }),
    ).toMatchObject([{ version: 3 }]);

    await client.assistants.update(assistant.assistant_id, {});
    expect(await client.assistants.getVersions(assistant.assistant_id)).toMatchObject([
      { version: 4 },
      { version: 3 },
      { version: 2 },
      { version: 1 },
    ]);

    await client.assistants.delete(assistant.assistant_id);
    await expect(client.assistants.getVersions(assistant.assistant_id)).rejects.toThrow("HTTP 404");
  });

  it("set latest version", async () => {
    const created = await client.assistants.create({ graphId: "agent" });
    const updated = await client.assistants.update(created.assistant_id, {});
    expect(updated.version).toBe(2);

    const changed = await client.assistants.setLatest(created.assistant_id, 1);
    expect(changed.version).toBe(1);

    const updatedAgain = await client.assistants.update(created.assistant_id, {});
    expect(updatedAgain.version).toBe(3);
    await expect(client.assistants.setLatest(created.assistant_id, 4)).rejects.toThrow();
  });

  it("config from env", async () => {
    const search = await client.assistants.search({
      graphId: "agent",
      metadata: { created_by: "system" },
    });
    expect(search.length).toBe(1);
    expect(search[0]!.config).toMatchObject({ configurable: { model_name: "openai" } });
  });

  it("assistant name", async () => {
    let search = await client.assistants.search({
      graphId: "agent",
      metadata: { created_by: "system" },
    });
    expect(search.length).toBe(1);
    expect(search[0]!.name).toBe("agent");

    const assistant = await client.assistants.create({ graphId: "agent", name: "woof" });
    expect(assistant.name).toBe("woof");

    search = (await client.assistants.search({ graphId: "agent", limit: 100 })).filter(
      (i) => i.name === "woof",
    );
    expect(search.length).toBe(1);
    expect(search[0]!.name).toBe("woof");
  });
});

describe("threads crud", () => {
  beforeEach(freshServer);

  it("create, read, update, delete thread", async () => {
    const metadata = { name: "test_thread" };

    const threadOne = await client.threads.create({ metadata });
    expect(threadOne.metadata).toEqual(metadata);

    let get = await client.threads.get(threadOne.thread_id);
    expect(get.thread_id).toBe(threadOne.thread_id);
    expect(get.metadata).toEqual(metadata);

    await client.threads.update(threadOne.thread_id, { metadata: { modified: true } });

    get = await client.threads.get(threadOne.thread_id);
    expect(get.metadata).toEqual({ ...metadata, modified: true });

    const threadTwo = await client.threads.create({ metadata: { name: "another_thread" } });
    let search = await client.threads.search();
    expect(search.length).toBe(2);
    expect(search[0]!.thread_id).toBe(threadTwo.thread_id);
    expect(search[1]!.thread_id).toBe(threadOne.thread_id);

    search = await client.threads.search({ metadata: { modified: true } });
    expect(search.length).toBe(1);
    expect(search[0]!.thread_id).toBe(threadOne.thread_id);

    await client.threads.delete(threadOne.thread_id);
    search = await client.threads.search();

    expect(search.length).toBe(1);
    expect(search[0]!.thread_id).toBe(threadTwo.thread_id);
  });

  it("list threads", async () => {
    let search = await client.threads.search();
    expect(search.length).toBe(0);

    const createThreadResponse = await client.threads.create();
    search = await client.threads.search();
    expect(search.length).toBe(1);
    expect(createThreadResponse.thread_id).toBe(search[0]!.thread_id);

    const metadata = { name: "test_thread" };
    const create = await client.threads.create({ metadata });

    search = await client.threads.search();
    expect(search.length).toBe(2);
    expect(create.thread_id).toBe(search[0]!.thread_id);

    search = await client.threads.search({ metadata });
    expect(search.length).toBe(1);
    expect(create.thread_id).toBe(search[0]!.thread_id);

    search = await client.threads.search({ offset: 1, limit: 1 });
    expect(search.length).toBe(1);
    expect(createThreadResponse.thread_id).toBe(search[0]!.thread_id);

    search = await client.threads.search({ sortBy: "created_at", sortOrder: "asc" });
    expect(search.length).toBe(2);
    expect(search[0]!.thread_id).toBe(createThreadResponse.thread_id);
    expect(search[1]!.thread_id).toBe(create.thread_id);

    search = await client.threads.search({ sortBy: "created_at", sortOrder: "desc" });
    expect(search.length).toBe(2);
    expect(search[0]!.thread_id).toBe(create.thread_id);
    expect(search[1]!.thread_id).toBe(createThreadResponse.thread_id);
  });

  it("update state while run in flight", async () => {
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "agent_simple", {
      input: { messages: [{ role: "human", content: "foo" }] },
      afterSeconds: 2,
    });
    await new Promise((resolve) => setTimeout(resolve, 500));

    await expect(() =>
      client.threads.updateState(thread.thread_id, {
        values: { messages: [{ type: "ai", content: "One must imagine Sisyphus happy." }] },
        asNode: "agent",
      }),
    ).rejects.toThrow("HTTP 409");

    await client.runs.cancel(thread.thread_id, run.run_id);

    const state = await client.threads.getState(thread.thread_id);
    expect(JSON.stringify(state)).not.toContain("Sisyphus");

    await client.runs.join(thread.thread_id, run.run_id);
    const runState = await client.runs.get(thread.thread_id, run.run_id);
    expect(runState.status).toBe("interrupted");

    const threadState = await client.threads.get(thread.thread_id);
    expect(threadState.status).toBe("idle");

    await client.threads.updateState(thread.thread_id, {
      values: { messages: [{ type: "ai", content: "One must imagine Sisyphus happy." }] },
      asNode: "agent",
    });
    const finalState = await client.threads.getState(thread.thread_id);
    expect(JSON.stringify(finalState)).toContain("Sisyphus");
  });
});

describe("threads copy", () => {
  it("copy", async () => {
    const assistantId = "agent";
    const thread = await client.threads.create();
    const input = { messages: [{ type: "human", content: "foo" }] };
    await client.runs.wait(thread.thread_id, assistantId, { input, config: globalConfig });

    const threadState = await client.threads.getState(thread.thread_id);
    const copiedThread = await client.threads.copy(thread.thread_id);
    const copiedThreadState = await client.threads.getState(copiedThread.thread_id);

    const expectedThreadState = {
      ...threadState,
      metadata: { ...threadState.metadata, thread_id: copiedThread.thread_id },
      checkpoint: { ...threadState.checkpoint, thread_id: copiedThread.thread_id },
      parent_checkpoint: { ...threadState.parent_checkpoint, thread_id: copiedThread.thread_id },
    };
    expect(copiedThreadState).toEqual(expectedThreadState);

    const originalHistory = await client.threads.getHistory(thread.thread_id);
    const copiedHistory = await client.threads.getHistory(copiedThread.thread_id);
    expect(originalHistory.length).toBe(copiedHistory.length);
    for (let i = 0; i < originalHistory.length; i++) {
      const original = originalHistory[i]!;
      expect(copiedHistory[i]).toEqual({
        ...original,
        metadata: { ...original.metadata, thread_id: copiedThread.thread_id },
        checkpoint: { ...original.checkpoint, thread_id: copiedThread.thread_id },
        parent_checkpoint: original.parent_checkpoint
          ? { ...original.parent_checkpoint, thread_id: copiedThread.thread_id }
          : null,
      });
    }
  });

  it("copy runs", async () => {
    const assistantId = "agent";
    const thread = await client.threads.create();
    const input = { messages: [{ type: "human", content: "foo" }] };
    await client.runs.wait(thread.thread_id, assistantId, { input, config: globalConfig });
    const originalThreadState = await client.threads.getState(thread.thread_id);

    const copiedThread = await client.threads.copy(thread.thread_id);
    const newInput = { messages: [{ type: "human", content: "bar" }] };
    await client.runs.wait(copiedThread.thread_id, assistantId, {
      input: newInput,
      config: globalConfig,
    });

    const copiedThreadState = await client.threads.getState<AgentState>(copiedThread.thread_id);
    expect(copiedThreadState.values.messages.map((m) => m.content)).toEqual([
      "foo",
      "begin",
      "tool_call__begin",
      "end",
      "bar",
      "begin",
      "tool_call__begin",
      "end",
    ]);

    const currentOriginalThreadState = await client.threads.getState(thread.thread_id);
    expect(currentOriginalThreadState).toEqual(originalThreadState);
  });

  it("get thread history", async () => {
    const assistant = await client.assistants.create({ graphId: "agent" });
    const thread = await client.threads.create();
    const input = { messages: [{ type: "human", content: "foo" }] };

    const emptyHistory = await client.threads.getHistory(thread.thread_id);
    expect(emptyHistory.length).toBe(0);

    await client.runs.wait(thread.thread_id, assistant.assistant_id, {
      input,
      config: globalConfig,
    });

    const history = await client.threads.getHistory<AgentState>(thread.thread_id);
    expect(history.length).toBe(5);
    expect(history[0]!.values.messages.length).toBe(4);
    expect(history[0]!.next.length).toBe(0);
    expect(history.at(-1)?.next).toEqual(["__start__"]);

    const runMetadata = { run_metadata: "run_metadata" };
    const inputBar = { messages: [{ type: "human", content: "bar" }] };
    await client.runs.wait(thread.thread_id, assistant.assistant_id, {
      input: inputBar,
      metadata: runMetadata,
      config: globalConfig,
    });

    const fullHistory = await client.threads.getHistory<AgentState>(thread.thread_id);
    const filteredHistory = await client.threads.getHistory<AgentState>(thread.thread_id, {
      metadata: runMetadata,
    });
    expect(fullHistory.length).toBe(10);
    expect(fullHistory.at(-1)?.values.messages.length).toBe(0);
    expect(filteredHistory.length).toBe(5);
    expect(filteredHistory.at(-1)?.values.messages.length).toBe(4);
  });

  it("copy update", async () => {
    const assistantId = "agent";
    const thread = await client.threads.create();
    const input = { messages: [{ type: "human", content: "foo", id: "initial-message" }] };
    await client.runs.wait(thread.thread_id, assistantId, { input, config: globalConfig });

    const originalState = await client.threads.getState(thread.thread_id);
    const copyThread = await client.threads.copy(thread.thread_id);

    const update = { type: "human", content: "bar", id: "initial-message" };
    await client.threads.updateState(copyThread.thread_id, { values: { messages: [update] } });

    const copiedThreadState = await client.threads.getState<AgentState>(copyThread.thread_id);
    expect(copiedThreadState.values.messages[0]!.content).toBe("bar");

    const currentOriginalThreadState = await client.threads.getState(thread.thread_id);
    expect(currentOriginalThreadState).toEqual(originalState);
  });
});

describe("runs", () => {
  const input = { messages: [{ type: "human", content: "foo", id: "initial-message" }] };

  it("list runs", async () => {
    const assistant = await client.assistants.create({ graphId: "agent" });
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, assistant.assistant_id, {
      input: { messages: [{ type: "human", content: "foo" }] },
      config: globalConfig,
    });

    const pendingRun = await client.runs.create(thread.thread_id, assistant.assistant_id, {
      input: { messages: [{ type: "human", content: "bar" }] },
      config: globalConfig,
      afterSeconds: 10,
    });

    let runs = await client.runs.list(thread.thread_id);
    expect(runs.length).toBe(2);

    runs = await client.runs.list(thread.thread_id, { status: "pending" });
    expect(runs.length).toBe(1);

    await client.runs.cancel(thread.thread_id, pendingRun.run_id);

    runs = await client.runs.list(thread.thread_id, { status: "interrupted" });
    expect(runs.length).toBe(1);
  });

  it("stream values", async () => {
    const assistant = await client.assistants.create({ graphId: "agent" });
    const thread = await client.threads.create();
    const stream = client.runs.stream(thread.thread_id, assistant.assistant_id, {
      input,
      streamMode: "values",
      config: globalConfig,
    });

    let runId: string | null = null;
    let previousMessageIds: string[] = [];
    const seenEventTypes = new Set();
    let chunk: any;
    for await (chunk of stream) {
      seenEventTypes.add(chunk.event);
      if (chunk.event === "metadata") runId = chunk.data.run_id;
      if (chunk.event === "values") {
        const messageIds = chunk.data.messages.map((message: { id: string }) => message.id);
        expect(messageIds.slice(0, -1)).toEqual(previousMessageIds);
        previousMessageIds = messageIds;
      }
    }

    expect(chunk.event).toBe("values");
    expect(seenEventTypes).toEqual(new Set(["metadata", "values"]));
    expect(runId).not.toBeNull();
    const run = await client.runs.get(thread.thread_id, runId as string);
    expect(run.status).toBe("success");
    const runCheckpoints = await client.threads.getHistory(thread.thread_id);
    expect(runCheckpoints.length).toBeGreaterThan(1);
  });

  it("wait error", async () => {
    const assistant = await client.assistants.create({ graphId: "agent" });
    const thread = await client.threads.create();
    await expect(
      client.runs.wait(thread.thread_id, assistant.assistant_id, {
        input,
        config: { ...globalConfig, recursion_limit: 1 },
      }),
    ).rejects.toThrowError(/GraphRecursionError/);
    const threadUpdated = await client.threads.get(thread.thread_id);
    expect(threadUpdated.status).toBe("error");
  });

  it("wait", async () => {
    const assistant = await client.assistants.create({ graphId: "agent" });
    const thread = await client.threads.create();
    const values = await client.runs.wait(thread.thread_id, assistant.assistant_id, {
      input,
      config: globalConfig,
    });
    expect(Array.isArray((values as any).messages)).toBe(true);
    const threadUpdated = await client.threads.get(thread.thread_id);
    expect(threadUpdated.status).toBe("idle");
  });

  it("stream updates", async () => {
    const assistant = await client.assistants.create({ graphId: "agent" });
    const thread = await client.threads.create();
    const stream = client.runs.stream(thread.thread_id, assistant.assistant_id, {
      input,
      streamMode: "updates",
      config: globalConfig,
    });

    let runId: string | null = null;
    const seenEventTypes = new Set();
    const seenNodes: string[] = [];
    let chunk: any;
    for await (chunk of stream) {
      seenEventTypes.add(chunk.event);
      if (chunk.event === "metadata") runId = chunk.data.run_id;
      if (chunk.event === "updates") seenNodes.push(Object.keys(chunk.data)[0]!);
    }

    expect(seenNodes).toEqual(["agent", "tool", "agent"]);
    expect(chunk.event).toBe("updates");
    expect(seenEventTypes).toEqual(new Set(["metadata", "updates"]));
    expect(runId).not.toBeNull();
    const run = await client.runs.get(thread.thread_id, runId as string);
    expect(run.status).toBe("success");
  });

  it("stream events", async () => {
    const assistant = await client.assistants.create({ graphId: "agent" });
    const thread = await client.threads.create();
    const stream = client.runs.stream(thread.thread_id, assistant.assistant_id, {
      input,
      streamMode: "events",
      config: globalConfig,
    });

    const events = await gatherIterator(stream);
    expect(new Set(events.map((i) => i.event))).toEqual(new Set(["metadata", "events"]));
    expect(
      new Set(events.filter((i) => i.event === "events").map((i) => (i.data as any).event)),
    ).toEqual(
      new Set([
        "on_chain_start",
        "on_chain_end",
        "on_chat_model_end",
        "on_chat_model_start",
        "on_chat_model_stream",
      ]),
    );
  });

  it("stream messages", async () => {
    const assistant = await client.assistants.create({ graphId: "agent" });
    const thread = await client.threads.create();
    const stream = client.runs.stream(thread.thread_id, assistant.assistant_id, {
      input,
      streamMode: "messages",
      config: globalConfig,
    });

    let runId: string | null = null;
    const seenEventTypes = new Set();
    const messageIdToContent: Record<string, string> = {};
    let lastMessage: any = null;
    let chunk: any;
    for await (chunk of stream) {
      seenEventTypes.add(chunk.event);
      if (chunk.event === "metadata") runId = chunk.data.run_id;
      if (chunk.event === "messages/partial") {
        const message = chunk.data[0];
        messageIdToContent[message.id] = message.content;
      }
      if (chunk.event === "messages/complete") {
        const message = chunk.data[0];
        expect(message.content).not.toBeNull();
        if (message.type === "ai") expect(message.content).toBe(messageIdToContent[message.id]);
        lastMessage = message;
      }
    }

    expect(lastMessage).not.toBeNull();
    expect(lastMessage.content).toBe("end");
    expect(chunk.event).toBe("messages/complete");
    expect(seenEventTypes).toEqual(
      new Set(["metadata", "messages/metadata", "messages/partial", "messages/complete"]),
    );
    expect(runId).not.toBeNull();
    const run = await client.runs.get(thread.thread_id, runId as string);
    expect(run.status).toBe("success");
  });

  it("stream messages tuple", async () => {
    const assistant = await client.assistants.create({ graphId: "agent" });
    const thread = await client.threads.create();
    const stream = client.runs.stream(thread.thread_id, assistant.assistant_id, {
      input,
      streamMode: "messages-tuple",
      config: globalConfig,
    });

    const chunks = await gatherIterator(stream);
    const runId = findLast(chunks, (i) => i.event === "metadata")?.data.run_id;
    expect(runId).not.toBeNull();

    const messages = chunks.filter((i) => i.event === "messages").map((i) => i.data[0]);
    expect(messages).toHaveLength("begin".length + "end".length + 1);
    expect(messages).toMatchObject([
      ..."begin".split("").map((c) => ({ content: c })),
      { content: "tool_call__begin" },
      ..."end".split("").map((c) => ({ content: c })),
    ]);

    const seenEventTypes = new Set(chunks.map((i) => i.event));
    expect(seenEventTypes).toEqual(new Set(["metadata", "messages"]));
    const run = await client.runs.get(thread.thread_id, runId as string);
    expect(run.status).toBe("success");
  });

  it("stream mixed modes", async () => {
    const assistant = await client.assistants.create({ graphId: "agent" });
    const thread = await client.threads.create();
    const stream = client.runs.stream(thread.thread_id, assistant.assistant_id, {
      input,
      streamMode: ["messages", "values"],
      config: globalConfig,
    });

    const chunks = await gatherIterator(stream);
    expect(chunks.at(-1)?.event).toBe("messages/complete");
    expect(chunks.filter((i) => i.event === "error").length).toBe(0);

    const messages: Msg[] = findLast(chunks, (i) => i.event === "values")?.data.messages;
    expect(messages.length).toBe(4);
    expect(messages.at(-1)?.content).toBe("end");

    const runId = findLast(chunks, (i) => i.event === "metadata")?.data.run_id;
    expect(runId).not.toBeNull();
    const seenEventTypes = new Set(chunks.map((i) => i.event));
    expect(seenEventTypes).toEqual(
      new Set(["metadata", "messages/metadata", "messages/partial", "messages/complete", "values"]),
    );
    const run = await client.runs.get(thread.thread_id, runId!);
    expect(run.status).toBe("success");
  });

  it("human in the loop - no modification", async () => {
    const assistant = await client.assistants.create({ graphId: "agent" });
    const thread = await client.threads.create();
    let messages: Msg[] = [];

    let chunks = await gatherIterator(
      client.runs.stream(thread.thread_id, assistant.assistant_id, {
        input,
        interruptBefore: ["tool"],
        config: globalConfig,
      }),
    );
    expect(chunks.filter((i) => i.event === "error").length).toBe(0);
    messages =
      findLast(chunks, (i) => i.event === "values" && "messages" in i.data)?.data.messages ?? [];

    const threadAfterInterrupt = await client.threads.get(thread.thread_id);
    expect(threadAfterInterrupt.status).toBe("interrupted");
    expect(messages.at(-1)).not.toBeNull();
    expect(messages.at(-1)?.content).toBe("begin");

    const state = await client.threads.getState(thread.thread_id);
    expect(state.next).toEqual(["tool"]);

    chunks = await gatherIterator(
      client.runs.stream(thread.thread_id, assistant.assistant_id, {
        input: null,
        config: globalConfig,
      }),
    );
    expect(chunks.filter((i) => i.event === "error").length).toBe(0);
    messages = findLast(chunks, (i) => i.event === "values")?.data.messages;
    expect(messages.length).toBe(4);
    expect(messages[2]!.content).toBe("tool_call__begin");
    expect(messages.at(-1)?.content).toBe("end");

    const threadAfterContinue = await client.threads.get(thread.thread_id);
    expect(threadAfterContinue.status).toBe("idle");
  });

  it("human in the loop - modification", async () => {
    const assistant = await client.assistants.create({ graphId: "agent" });
    const thread = await client.threads.create();
    let messages: Msg[] = [];

    let chunks = await gatherIterator(
      client.runs.stream(thread.thread_id, assistant.assistant_id, {
        input,
        interruptBefore: ["tool"],
        config: globalConfig,
      }),
    );
    expect(chunks.filter((i) => i.event === "error").length).toBe(0);

    const lastMessage =
      findLast(chunks, (i) => i.event === "values" && "messages" in i.data)?.data.messages.at(-1) ??
      null;
    if (!lastMessage) throw new Error("No last message");
    lastMessage.content = "modified";

    await client.threads.updateState<AgentState>(thread.thread_id, {
      values: { messages: [lastMessage] },
    });
    await client.threads.update(thread.thread_id, { metadata: { modified: true } });

    const modifiedThread = await client.threads.get(thread.thread_id);
    expect(modifiedThread.status).toBe("interrupted");
    expect(modifiedThread.metadata?.modified).toBe(true);

    const stateAfterModify = await client.threads.getState<AgentState>(thread.thread_id);
    expect(stateAfterModify.values.messages.at(-1)?.content).toBe("modified");
    expect(stateAfterModify.next).toEqual(["tool"]);
    expect(stateAfterModify.tasks).toMatchObject([
      { id: expect.any(String), name: "tool", error: null, interrupts: [] },
    ]);

    chunks = await gatherIterator(
      client.runs.stream(thread.thread_id, assistant.assistant_id, {
        input: null,
        config: globalConfig,
      }),
    );
    const threadAfterContinue = await client.threads.get(thread.thread_id);
    expect(threadAfterContinue.status).toBe("idle");
    expect(chunks.filter((i) => i.event === "error").length).toBe(0);
    messages = findLast(chunks, (i) => i.event === "values")?.data.messages;
    expect(messages.length).toBe(4);
    expect(messages[2]!.content).toBe("tool_call__modified");
    expect(messages.at(-1)?.content).toBe("end");

    const history = await client.threads.getHistory<AgentState>(thread.thread_id);
    expect(history.length).toBe(6);
    expect(history[0]!.next.length).toBe(0);
    expect(history[0]!.values.messages.length).toBe(4);
    expect(history.at(-1)?.next).toEqual(["__start__"]);
  });

  it("interrupt before", async () => {
    const assistant = await client.assistants.create({ graphId: "agent" });
    let thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, assistant.assistant_id, {
      input,
      interruptBefore: ["agent"],
      config: globalConfig,
    });
    thread = await client.threads.get(thread.thread_id);
    expect(thread.status).toBe("interrupted");
  });

  it("non-existent graph id", async () => {
    const thread = await client.threads.create();
    await expect(client.runs.wait(thread.thread_id, "non-existent", { input })).rejects.toThrow(
      /No assistant found for/,
    );
    await expect(
      gatherIterator(client.runs.stream(thread.thread_id, "non-existent", { input })),
    ).rejects.toThrow(/No assistant found for/);
  });
});

describe("shared state", () => {
  beforeEach(freshServer);

  it("should share state between runs with the same thread ID", async () => {
    const assistant = await client.assistants.create({ graphId: "agent" });
    const thread = await client.threads.create();

    const input = {
      messages: [{ type: "human", content: "should_end", id: "initial-message" }],
    };
    const config = { configurable: { user_id: "start_user_id" } };

    const res1 = (await client.runs.wait(thread.thread_id, assistant.assistant_id, {
      input,
      config,
    })) as Record<string, any>;
    expect(res1.sharedStateValue).toBe(null);

    const res2 = (await client.runs.wait(thread.thread_id, assistant.assistant_id, {
      input,
      config,
    })) as Record<string, any>;
    expect(res2.sharedStateValue).toBe(config.configurable.user_id);
  });

  it("should not share state between runs with different thread IDs", async () => {
    const assistant = await client.assistants.create({ graphId: "agent" });
    const thread = await client.threads.create();

    const input = {
      messages: [{ type: "human", content: "foo", id: "initial-message" }],
    };

    const config1 = { configurable: { user_id: "start_user_id" } };
    const res1 = (await client.runs.wait(thread.thread_id, assistant.assistant_id, {
      input,
      config: config1,
    })) as Record<string, any>;

    const config2 = { configurable: { user_id: "new_user_id" } };
    const res2 = (await client.runs.wait(thread.thread_id, assistant.assistant_id, {
      input,
      config: config2,
    })) as Record<string, any>;

    expect(res1.sharedStateValue).toBe(config1.configurable.user_id);
    expect(res2.sharedStateValue).toBe(config2.configurable.user_id);
    expect(res1.sharedStateValue).not.toBe(res2.sharedStateValue);
  });

  it("should be able to set and return data from store in config", async () => {
    const assistant = await client.assistants.create({ graphId: "agent" });
    const thread = await client.threads.create();

    const input = {
      messages: [{ type: "human", content: "foo", id: "initial-message" }],
    };
    const config = { configurable: { user_id: "start_user_id" } };

    const res1 = (await client.runs.wait(thread.thread_id, assistant.assistant_id, {
      input,
      config,
    })) as Record<string, any>;
    expect(res1.sharedStateFromStoreConfig).toBeDefined();
    expect(res1.sharedStateFromStoreConfig.id).toBeDefined();
    expect(res1.sharedStateFromStoreConfig.id).toBe(config.configurable.user_id);
  });

  it("Should be able to use the store client to fetch values", async () => {
    const assistant = await client.assistants.create({ graphId: "agent" });
    const thread = await client.threads.create();

    const input = {
      messages: [{ type: "human", content: "foo", id: "initial-message" }],
    };
    const config = { configurable: { user_id: "start_user_id" } };

    // Where the graph's `agent` node saves the user's id.
    const namespace = ["sharedState", "data"];
    const key = "user_id";

    const res1 = (await client.runs.wait(thread.thread_id, assistant.assistant_id, {
      input,
      config,
    })) as Record<string, any>;
    expect(res1.sharedStateFromStoreConfig).toBeDefined();
    expect(res1.sharedStateFromStoreConfig.id).toBeDefined();
    expect(res1.sharedStateFromStoreConfig.id).toBe(config.configurable.user_id);

    const storeRes = await client.store.getItem(namespace, key);
    expect(storeRes).toBeDefined();
    expect(storeRes?.value).toBeDefined();
    expect(storeRes?.value).toEqual({ id: config.configurable.user_id });
  });
});

describe("StoreClient", () => {
  beforeEach(freshServer);

  it("Should be able to use the store client methods", async () => {
    const assistant = await client.assistants.create({ graphId: "agent" });
    const thread = await client.threads.create();

    const input = {
      messages: [{ type: "human", content: "___check_state_value", id: "initial-message" }],
    };
    const config = { configurable: { user_id: "start_user_id" } };

    // What the graph's `checkSharedState` node requires.
    const namespace = ["inputtedState", "data"];
    const key = "my_key";

    await client.store.putItem(namespace, key, { isTrue: true });

    // This input routes to a node that fails unless the value above is in the store.
    const result = await client.runs.wait(thread.thread_id, assistant.assistant_id, {
      input,
      config,
    });
    // Not in LangGraph's test, which would pass with a failed run too.
    expect(result).not.toHaveProperty("__error__");

    const storeRes = await client.store.getItem(namespace, key);
    expect(storeRes).toBeDefined();
    expect(storeRes?.value).toBeDefined();
    expect(storeRes?.value).toEqual({ isTrue: true });

    await client.store.deleteItem(namespace, key);
    const storeResAfterDelete = await client.store.getItem(namespace, key);
    expect(storeResAfterDelete).toBe(null);
  });

  it("Can put, search, list, get and delete", async () => {
    const namespace = ["allMethods", "data"];
    const key = randomUUID();
    const value = { foo: "bar" };

    const searchRes = await client.store.searchItems(namespace);
    expect(searchRes.items).toBeDefined();
    expect(searchRes.items.length).toBe(0);

    const listRes = await client.store.listNamespaces();
    expect(listRes.namespaces).toBeDefined();
    expect(listRes.namespaces.length).toBe(0);

    await client.store.putItem(namespace, key, value);

    const getRes = await client.store.getItem(namespace, key);
    expect(getRes).toBeDefined();
    expect(getRes?.value).toEqual(value);

    const searchResAfterPut = await client.store.searchItems(namespace);
    expect(searchResAfterPut.items).toBeDefined();
    expect(searchResAfterPut.items.length).toBe(1);
    expect(searchResAfterPut.items[0]!.key).toBe(key);
    expect(searchResAfterPut.items[0]!.value).toEqual(value);
    expect(searchResAfterPut.items[0]!.createdAt).toBeDefined();
    expect(searchResAfterPut.items[0]!.updatedAt).toBeDefined();

    const updatedValue = { foo: "baz" };
    await client.store.putItem(namespace, key, updatedValue);

    const getResAfterUpdate = await client.store.getItem(namespace, key);
    expect(getResAfterUpdate).toBeDefined();
    expect(getResAfterUpdate?.value).toEqual(updatedValue);

    const searchResAfterUpdate = await client.store.searchItems(namespace);
    expect(searchResAfterUpdate.items).toBeDefined();
    expect(searchResAfterUpdate.items.length).toBe(1);
    expect(searchResAfterUpdate.items[0]!.key).toBe(key);
    expect(searchResAfterUpdate.items[0]!.value).toEqual(updatedValue);
    expect(new Date(searchResAfterUpdate.items[0]!.updatedAt).getTime()).toBeGreaterThan(
      new Date(searchResAfterPut.items[0]!.updatedAt).getTime(),
    );

    const listResAfterPut = await client.store.listNamespaces();
    expect(listResAfterPut.namespaces).toBeDefined();
    expect(listResAfterPut.namespaces.length).toBe(1);
    expect(listResAfterPut.namespaces[0]).toEqual(namespace);

    await client.store.deleteItem(namespace, key);

    const getResAfterDelete = await client.store.getItem(namespace, key);
    expect(getResAfterDelete).toBeNull();

    const searchResAfterDelete = await client.store.searchItems(namespace);
    expect(searchResAfterDelete.items).toBeDefined();
    expect(searchResAfterDelete.items.length).toBe(0);
  });
});

const human = (content: string) => ({
  content,
  additional_kwargs: {},
  response_metadata: {},
  type: "human",
  id: "initial-message",
});
const sunny = (city: string) => ({
  content: `It's sunny in ${city}!`,
  additional_kwargs: {},
  response_metadata: {},
  type: "ai",
  id: expect.any(String),
  tool_calls: [],
  invalid_tool_calls: [],
});

describe("subgraphs", () => {
  it("get subgraphs", async () => {
    const assistant = await client.assistants.create({ graphId: "nested" });

    expect(Object.keys(await client.assistants.getSubgraphs(assistant.assistant_id))).toEqual([
      "gp_two",
    ]);

    const subgraphs = await client.assistants.getSubgraphs(assistant.assistant_id, {
      recurse: true,
    });

    expect(Object.keys(subgraphs)).toEqual(["gp_two", "gp_two|p_two"]);
    expect(subgraphs).toMatchObject({
      gp_two: {
        state: {
          type: "object",
          properties: {
            parent: { type: "string", enum: ["parent_one", "parent_two"] },
            messages: { type: "array" },
          },
        },
      },
      "gp_two|p_two": {
        state: {
          type: "object",
          properties: {
            child: { type: "string", enum: ["child_one", "child_two"] },
            messages: { type: "array" },
          },
        },
      },
    });
  });

  it("human in the loop - no modification", async () => {
    const assistant = await client.assistants.create({ graphId: "weather" });
    const thread = await client.threads.create();

    let lastMessageBeforeInterrupt: { content?: string } | null = null;
    const chunks = await gatherIterator(
      client.runs.stream(thread.thread_id, assistant.assistant_id, {
        input: { messages: [{ role: "human", content: "SF", id: "initial-message" }] },
        interruptBefore: ["tool"],
      }),
    );
    for (const chunk of chunks) {
      if (chunk.event === "values" && "messages" in chunk.data)
        lastMessageBeforeInterrupt = chunk.data.messages[chunk.data.messages.length - 1];
      if (chunk.event === "error") throw new Error(chunk.data.error);
    }

    expect(lastMessageBeforeInterrupt?.content).toBe("SF");
    expect(chunks).toEqual([
      { event: "metadata", data: { run_id: expect.any(String), attempt: 1 }, id: "0" },
      { event: "values", data: { messages: [human("SF")] }, id: "1" },
      { event: "values", data: { messages: [human("SF")], route: "weather" }, id: "2" },
      { data: { __interrupt__: [] }, event: "values", id: "3" },
    ]);

    const state = await client.threads.getState(thread.thread_id);
    expect(state.next).toEqual(["weather_graph"]);
    expect(state.tasks).toEqual([
      {
        id: expect.any(String),
        name: "weather_graph",
        path: ["__pregel_pull", "weather_graph"],
        error: null,
        interrupts: [],
        checkpoint: {
          checkpoint_ns: expect.stringMatching(/^weather_graph:/),
          thread_id: expect.any(String),
        },
        state: null,
        result: null,
      },
    ]);

    const stateRecursive = await client.threads.getState(thread.thread_id, undefined, {
      subgraphs: true,
    });
    expect(stateRecursive.next).toEqual(["weather_graph"]);
    expect(stateRecursive.tasks).toEqual([
      {
        id: expect.any(String),
        name: "weather_graph",
        path: ["__pregel_pull", "weather_graph"],
        error: null,
        interrupts: [],
        checkpoint: null,
        result: null,
        state: {
          values: { city: "San Francisco", messages: [human("SF")] },
          next: ["weather_node"],
          tasks: [
            {
              id: expect.any(String),
              name: "weather_node",
              path: ["__pregel_pull", "weather_node"],
              error: null,
              interrupts: [],
              checkpoint: null,
              state: null,
              result: null,
            },
          ],
          metadata: expect.any(Object),
          created_at: expect.any(String),
          checkpoint: expect.any(Object),
          parent_checkpoint: expect.any(Object),
        },
      },
    ]);

    const threadAfterInterrupt = await client.threads.get(thread.thread_id);
    expect(threadAfterInterrupt.status).toBe("interrupted");

    const chunksSubgraph = await gatherIterator(
      client.runs.stream(thread.thread_id, assistant.assistant_id, {
        input: null,
        streamMode: ["values", "updates"],
        streamSubgraphs: true,
      }),
    );
    expect(chunksSubgraph.filter((i) => i.event === "error")).toEqual([]);
    expect(chunksSubgraph.at(-1)?.event).toBe("values");
    const continueMessages = findLast(chunksSubgraph, (i) => i.event === "values")?.data.messages;
    expect(continueMessages.length).toBe(2);
    expect(continueMessages[0].content).toBe("SF");
    expect(continueMessages[1].content).toBe("It's sunny in San Francisco!");
    expect(chunksSubgraph).toEqual([
      { event: "metadata", data: { run_id: expect.any(String), attempt: 1 }, id: "0" },
      { event: "values", data: { messages: [human("SF")], route: "weather" }, id: "1" },
      {
        event: expect.stringMatching(/^values\|weather_graph:/),
        data: { messages: [human("SF")], city: "San Francisco" },
        id: "2",
      },
      {
        event: expect.stringMatching(/^updates\|weather_graph:/),
        data: { weather_node: { messages: [sunny("San Francisco")] } },
        id: "3",
      },
      {
        event: expect.stringMatching(/^values\|weather_graph:/),
        data: { messages: [human("SF"), sunny("San Francisco")], city: "San Francisco" },
        id: "4",
      },
      {
        event: "updates",
        data: { weather_graph: { messages: [human("SF"), sunny("San Francisco")] } },
        id: "5",
      },
      {
        event: "values",
        data: { messages: [human("SF"), sunny("San Francisco")], route: "weather" },
        id: "6",
      },
    ]);
    const threadAfterContinue = await client.threads.get(thread.thread_id);
    expect(threadAfterContinue.status).toBe("idle");
  });

  it("human in the loop - modification", async () => {
    const assistant = await client.assistants.create({ graphId: "weather" });
    const thread = await client.threads.create();
    const input = { messages: [{ role: "human", content: "SF", id: "initial-message" }] };

    let chunks = await gatherIterator(
      client.runs.stream(thread.thread_id, assistant.assistant_id, { input }),
    );
    expect(chunks.filter((i) => i.event === "error")).toEqual([]);

    const state = await client.threads.getState(thread.thread_id);
    expect(state.next).toEqual(["weather_graph"]);
    expect(state.tasks).toEqual([
      {
        id: expect.any(String),
        name: "weather_graph",
        path: ["__pregel_pull", "weather_graph"],
        error: null,
        interrupts: [],
        checkpoint: {
          checkpoint_ns: expect.stringMatching(/^weather_graph:/),
          thread_id: expect.any(String),
        },
        state: null,
        result: null,
      },
    ]);

    await client.threads.updateState(thread.thread_id, {
      values: { city: "LA" },
      checkpoint: state.tasks[0]!.checkpoint ?? undefined,
    });
    const innerState = await client.threads.getState<{ city: string }>(
      thread.thread_id,
      state.tasks[0]!.checkpoint ?? undefined,
    );
    expect(innerState.values.city).toBe("LA");
    expect(innerState.next).toEqual(["weather_node"]);
    expect(innerState.tasks).toEqual([
      {
        id: expect.any(String),
        name: "weather_node",
        path: ["__pregel_pull", "weather_node"],
        error: null,
        interrupts: [],
        checkpoint: null,
        state: null,
        result: null,
      },
    ]);

    chunks = await gatherIterator(
      client.runs.stream(thread.thread_id, assistant.assistant_id, { input: null }),
    );
    expect(chunks.filter((i) => i.event === "error")).toEqual([]);
    expect(chunks.at(-1)?.event).toBe("values");
    const continueMessages = findLast(chunks, (i) => i.event === "values")?.data.messages;
    expect(continueMessages.length).toBe(2);
    expect(continueMessages[0].content).toBe("SF");
    expect(continueMessages[1].content).toBe("It's sunny in LA!");

    const history = await client.threads.getHistory<{ messages: Msg[] }>(thread.thread_id);
    expect(history.length).toBe(4);
    expect(history[0]!.next.length).toBe(0);
    expect(history[0]!.values.messages.length).toBe(2);
    expect(history[history.length - 1]!.next).toEqual(["__start__"]);

    const innerHistory = await client.threads.getHistory<{ messages: Msg[]; city: string }>(
      thread.thread_id,
      { checkpoint: state.tasks[0]!.checkpoint ?? undefined },
    );
    expect(innerHistory.length).toBe(5);
    expect(innerHistory[0]!.next.length).toBe(0);
    expect(innerHistory[0]!.values.messages.length).toBe(2);
    expect(innerHistory[innerHistory.length - 1]!.next).toEqual(["__start__"]);
  });

  it("interrupt inside node", async () => {
    const assistant = await client.assistants.create({ graphId: "agent" });
    let thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, assistant.assistant_id, {
      input: {
        messages: [{ role: "human", content: "SF", id: "initial-message" }],
        interrupt: true,
      },
      config: globalConfig,
    });

    const state = await client.threads.getState(thread.thread_id);
    expect(state.next).toEqual(["agent"]);
    expect(state.tasks).toMatchObject([
      {
        id: expect.any(String),
        name: "agent",
        path: ["__pregel_pull", "agent"],
        error: null,
        interrupts: [
          {
            value: "i want to interrupt",
            when: "during",
            resumable: true,
            ns: [expect.stringMatching(/^agent:/)],
          },
        ],
        checkpoint: null,
        state: null,
        result: null,
      },
    ]);

    thread = await client.threads.get(thread.thread_id);
    expect(thread.status).toBe("interrupted");
    expect(thread.interrupts).toMatchObject({
      [state.tasks[0]!.id]: [
        {
          value: "i want to interrupt",
          when: "during",
          resumable: true,
          ns: [expect.stringMatching(/^agent:/)],
        },
      ],
    });

    const stream = await gatherIterator(
      client.runs.stream(thread.thread_id, assistant.assistant_id, {
        command: { resume: "i want to resume" },
      }),
    );
    expect(stream.at(-1)?.event).toBe("values");
    expect((stream.at(-1)!.data as AgentState).messages.length).toBe(4);
  });
});

describe("errors", () => {
  it("stream", async () => {
    const assistant = await client.assistants.create({ graphId: "error" });
    const thread = await client.threads.create();
    const stream = await gatherIterator(
      client.runs.stream(thread.thread_id, assistant.assistant_id, {
        input: { messages: [] },
        streamMode: ["debug", "events"],
      }),
    );
    expect(stream.at(-1)).toMatchObject({
      event: "error",
      data: { error: "CustomError", message: "Boo!" },
    });
  });

  it("create + join", async () => {
    const assistant = await client.assistants.create({ graphId: "error" });
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, assistant.assistant_id, {
      input: { messages: [] },
    });
    await client.runs.join(thread.thread_id, run.run_id);
    const runState = await client.runs.get(thread.thread_id, run.run_id);
    expect(runState.status).toEqual("error");
  });

  it("create + stream join", async () => {
    const assistant = await client.assistants.create({ graphId: "error" });
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, assistant.assistant_id, {
      input: { messages: [] },
    });
    const stream = await gatherIterator(client.runs.joinStream(thread.thread_id, run.run_id));
    expect(stream.at(-1)).toMatchObject({
      event: "error",
      data: { error: "CustomError", message: "Boo!" },
    });
    const runState = await client.runs.get(thread.thread_id, run.run_id);
    expect(runState.status).toEqual("error");
  });
});

describe("long running tasks", () => {
  it.concurrent.for([1000, 8000, 12000])(
    "long running task with %dms delay",
    { timeout: 15_000 },
    async (delay) => {
      const assistant = await client.assistants.create({ graphId: "delay" });
      const thread = await client.threads.create();
      const run = await client.runs.create(thread.thread_id, assistant.assistant_id, {
        input: { messages: [], delay },
        config: globalConfig,
      });
      await client.runs.join(thread.thread_id, run.run_id);
      const runState = await client.runs.get(thread.thread_id, run.run_id);
      expect(runState.status).toEqual("success");
      const runResult = await client.threads.getState<{ messages: Msg[]; delay: number }>(
        thread.thread_id,
      );
      expect(runResult.values.messages).toMatchObject([{ content: `finished after ${delay}ms` }]);
    },
  );
});

describe("command update state", () => {
  it("updates state via commands", async () => {
    const assistant = await client.assistants.create({ graphId: "agent" });
    const thread = await client.threads.create();
    const input = { messages: [{ role: "human", content: "foo" }] };
    await client.runs.wait(thread.thread_id, assistant.assistant_id, {
      input,
      config: globalConfig,
    });
    const stream = await gatherIterator(
      client.runs.stream(thread.thread_id, assistant.assistant_id, {
        command: { update: { keyOne: "value3", keyTwo: "value4" } },
        config: globalConfig,
      }),
    );
    expect(stream.filter((chunk) => chunk.event === "error")).toEqual([]);
    const state = await client.threads.getState<{ keyOne: string; keyTwo: string }>(
      thread.thread_id,
    );
    expect(state.values).toMatchObject({ keyOne: "value3", keyTwo: "value4" });
  });

  // Skipped in LangGraph's own suite (waiting on a LangGraph.js change); it passes here.
  it("list-based updates", async () => {
    const assistant = await client.assistants.create({ graphId: "agent" });
    const thread = await client.threads.create();
    const input = { messages: [{ role: "human", content: "foo" }] };

    await client.runs.wait(thread.thread_id, assistant.assistant_id, {
      input,
      config: globalConfig,
    });
    const stream = await gatherIterator(
      client.runs.stream(thread.thread_id, assistant.assistant_id, {
        command: {
          update: [
            ["keyOne", "value1"],
            ["keyTwo", "value2"],
          ],
        },
        config: globalConfig,
      }),
    );
    expect(stream.filter((chunk) => chunk.event === "error")).toEqual([]);

    const state = await client.threads.getState<{ keyOne: string; keyTwo: string }>(
      thread.thread_id,
    );
    expect(state.values).toMatchObject({ keyOne: "value1", keyTwo: "value2" });
  });
});

it("stream debug checkpoint", async () => {
  const assistant = await client.assistants.create({ graphId: "weather" });
  const thread = await client.threads.create();
  const input = { messages: [{ role: "human", content: "What's the weather in SF?" }] };
  const runStream = client.runs.stream(thread.thread_id, assistant.assistant_id, {
    input,
    streamMode: "debug",
  });
  const stream: any[] = [];
  for await (const chunk of runStream) {
    if (chunk.event === "debug" && (chunk.data as any).type === "checkpoint")
      stream.push((chunk.data as any).payload);
  }
  const history = (
    await client.threads.getHistory(thread.thread_id, { limit: stream.length })
  ).reverse();
  expect(
    stream.map((i: any) => ({
      step: i.metadata?.step,
      checkpoint: i.checkpoint,
      parent_checkpoint: i.parent_checkpoint,
    })),
  ).toEqual(
    history.map((i) => ({
      step: i.metadata?.step,
      checkpoint: i.checkpoint,
      parent_checkpoint: i.parent_checkpoint,
    })),
  );
});

it("continue after interrupt must have checkpoint present", async () => {
  const assistant = await client.assistants.create({ graphId: "weather" });
  const thread = await client.threads.create();
  const input = { messages: [{ role: "human", content: "What's weather in SF?" }] };

  let stream = await gatherIterator(
    client.runs.stream(thread.thread_id, assistant.assistant_id, {
      input,
      streamMode: "debug",
      interruptBefore: ["router_node"],
    }),
  );
  const initialStream = stream
    .filter((i) => i.event === "debug" && (i.data as any)?.type === "checkpoint")
    .map((i) => (i.data as any)?.payload);

  const history = (await client.threads.getHistory(thread.thread_id)).reverse();
  const checkpoint = history[history.length - 1]!.checkpoint;

  stream = await gatherIterator(
    client.runs.stream(thread.thread_id, assistant.assistant_id, {
      streamMode: "debug",
      checkpoint,
    }),
  );
  const continueHistory = (await client.threads.getHistory(thread.thread_id)).reverse();
  const continueStream = stream
    .filter((i) => i.event === "debug" && (i.data as any).type === "checkpoint")
    .map((i) => (i.data as any).payload);

  expect(
    [...initialStream, ...continueStream.slice(1)].map((i: any) => ({
      step: i.metadata?.step,
      checkpoint: i.checkpoint,
      parent_checkpoint: i.parent_checkpoint,
    })),
  ).toEqual(
    continueHistory.map((i) => ({
      step: i.metadata?.step,
      checkpoint: i.checkpoint,
      parent_checkpoint: i.parent_checkpoint,
    })),
  );
});

describe("multitasking", () => {
  const pollRun = async (threadId: string, runId: string, maxIter = 600) => {
    let lastStatus: string | null = null;
    let iter = 0;
    while (lastStatus == null || lastStatus === "pending" || lastStatus === "running") {
      const run = await client.runs.get(threadId, runId);
      lastStatus = run.status;
      if (iter >= maxIter) throw new Error("Max iterations reached");
      if (iter > 0) await new Promise((resolve) => setTimeout(resolve, 100));
      iter += 1;
    }
    return lastStatus;
  };
  type State = { messages: { content: string }[] };

  it("multitasking reject", { timeout: 8_000 }, async () => {
    const assistant = await client.assistants.create({ graphId: "agent" });
    const thread = await client.threads.create();
    const input = {
      messages: [{ role: "human", content: "foo", id: "initial-message" }],
      sleep: 1,
    };
    const run = await client.runs.create(thread.thread_id, assistant.assistant_id, {
      input,
      config: globalConfig,
    });
    await expect(() =>
      client.runs.create(thread.thread_id, assistant.assistant_id, {
        input,
        multitaskStrategy: "reject",
        config: globalConfig,
      }),
    ).rejects.toThrow();
    expect(await pollRun(thread.thread_id, run.run_id)).toBe("success");
  });

  it("multitasking interrupt", { timeout: 8_000 }, async () => {
    const assistant = await client.assistants.create({ graphId: "agent" });
    const thread = await client.threads.create();
    const run1 = await client.runs.create(thread.thread_id, assistant.assistant_id, {
      input: { messages: [{ role: "human", content: "foo", id: "initial-message-1" }], sleep: 2 },
      config: globalConfig,
    });
    const run2 = await client.runs.create(thread.thread_id, assistant.assistant_id, {
      input: { messages: [{ role: "human", content: "bar", id: "initial-message-2" }], sleep: 0 },
      multitaskStrategy: "interrupt",
      config: globalConfig,
    });
    expect(await pollRun(thread.thread_id, run1.run_id)).toBe("interrupted");
    expect(await pollRun(thread.thread_id, run2.run_id)).toBe("success");

    const state = await client.threads.getState<State>(thread.thread_id);
    if (state.values.messages.length === 4) {
      expect(state.values.messages[0]!.content).toBe("bar");
    } else {
      expect(state.values.messages.length).toBeGreaterThanOrEqual(5);
      expect(state.values.messages.length).toBeLessThanOrEqual(8);
      expect(state.values.messages.at(0)?.content).toBe("foo");
    }
  });

  it("multitasking rollback", {
    timeout: 8_000,
  }, async () => {
    const assistant = await client.assistants.create({ graphId: "agent" });
    const thread = await client.threads.create();
    const run1 = await client.runs.create(thread.thread_id, assistant.assistant_id, {
      input: { messages: [{ role: "human", content: "foo", id: "initial-message-1" }], sleep: 4 },
      config: globalConfig,
    });
    const run2 = await client.runs.create(thread.thread_id, assistant.assistant_id, {
      input: { messages: [{ role: "human", content: "bar", id: "initial-message-2" }] },
      multitaskStrategy: "rollback",
      config: globalConfig,
    });
    await expect(() => pollRun(thread.thread_id, run1.run_id)).rejects.toThrow();
    expect(await pollRun(thread.thread_id, run2.run_id)).toBe("success");

    const state = await client.threads.getState<State>(thread.thread_id);
    expect(state.values.messages.length).toBe(4);
    expect(state.values.messages.at(0)?.content).toBe("bar");
  });

  it("multitasking enqueue", { timeout: 8_000 }, async () => {
    const assistant = await client.assistants.create({ graphId: "agent" });
    const thread = await client.threads.create();
    const run1 = await client.runs.create(thread.thread_id, assistant.assistant_id, {
      input: { messages: [{ role: "human", content: "foo", id: "initial-message-1" }], sleep: 2 },
      config: globalConfig,
    });
    const run2 = await client.runs.create(thread.thread_id, assistant.assistant_id, {
      input: { messages: [{ role: "human", content: "bar", id: "initial-message-2" }], sleep: 0 },
      multitaskStrategy: "enqueue",
      config: globalConfig,
    });
    expect(await pollRun(thread.thread_id, run1.run_id)).toBe("success");
    expect(await pollRun(thread.thread_id, run2.run_id)).toBe("success");

    const state = await client.threads.getState<State>(thread.thread_id);
    expect(state.values.messages.length).toBe(8);
    expect(state.values.messages.at(0)?.content).toBe("foo");
    expect(state.values.messages.at(-4)?.content).toBe("bar");
  });
});

describe("RemoteGraph", () => {
  it("stream values", async () => {
    const graph = new RemoteGraph({ graphId: "agent", client, config: globalConfig });
    const stream = await graph.stream(
      { messages: [{ type: "human", content: "foo", id: "initial-message" }] },
      { streamMode: "values", ...globalConfig },
    );
    const chunks = await gatherIterator(stream);
    expect(chunks).toMatchObject([
      { messages: [{ content: "foo" }] },
      { messages: [{ content: "foo" }, { content: "begin" }] },
      { messages: [{ content: "foo" }, { content: "begin" }, { content: "tool_call__begin" }] },
      {
        messages: [
          { content: "foo" },
          { content: "begin" },
          { content: "tool_call__begin" },
          { content: "end" },
        ],
      },
    ]);
  });
});

it("batch update state", async () => {
  const assistant = await client.assistants.create({ graphId: "agent" });
  const thread = await client.threads.create();
  const input = { messages: [{ role: "human", content: "foo" }] };
  await gatherIterator(
    client.runs.stream(thread.thread_id, assistant.assistant_id, { input, config: globalConfig }),
  );

  const history = await client.threads.getHistory(thread.thread_id);
  const supersteps = history
    .slice()
    .reverse()
    .flatMap((i: any) => {
      if (i.metadata?.source === "input") {
        const values = i.metadata.writes?.__start__ ?? i.metadata.writes;
        return [
          { updates: [{ asNode: "__input__", values }] },
          { updates: [{ asNode: "__start__", values }] },
        ];
      }
      return {
        updates: Object.entries(i.metadata?.writes ?? {}).map(([asNode, values]) => ({
          asNode,
          values,
        })),
      };
    })
    .filter((i: any) => i.updates.length > 0);

  const clone = await client.threads.create({ graphId: "agent", supersteps });
  const newHistory = await client.threads.getHistory(clone.thread_id);
  expect(newHistory.map((i) => i.next)).toMatchObject(history.map((i) => i.next));
  expect(newHistory.map((i) => i.values)).toMatchObject(
    history.map((i: any) => ({
      ...i.values,
      messages: i.values.messages.map((msg: any) => ({ ...msg, id: expect.any(String) })),
    })),
  );
});

it("dynamic graph", async () => {
  const defaultAssistant = await client.assistants.create({
    graphId: "dynamic",
  });

  let updates = await gatherIterator(
    client.runs.stream(null, defaultAssistant.assistant_id, {
      input: { messages: ["input"] },
      streamMode: ["updates"],
    }),
  );

  expect
    .soft(updates.filter((i) => i.event === "updates").flatMap((i) => Object.keys(i.data)))
    .toEqual(expect.arrayContaining(["default"]));

  updates = await gatherIterator(
    client.runs.stream(null, defaultAssistant.assistant_id, {
      input: { messages: ["input"] },
      config: { configurable: { nodeName: "runtime" } },
      streamMode: ["updates"],
    }),
  );

  expect
    .soft(updates.filter((i) => i.event === "updates").flatMap((i) => Object.keys(i.data)))
    .toEqual(expect.arrayContaining(["runtime"]));

  const configAssistant = await client.assistants.create({
    graphId: "dynamic",
    config: { configurable: { nodeName: "assistant" } },
  });

  let thread = await client.threads.create({ graphId: "dynamic" });
  updates = await gatherIterator(
    client.runs.stream(thread.thread_id, configAssistant.assistant_id, {
      input: { messages: ["input"], configurable: { nodeName: "assistant" } },
      streamMode: ["updates"],
    }),
  );

  expect
    .soft(updates.filter((i) => i.event === "updates").flatMap((i) => Object.keys(i.data)))
    .toEqual(expect.arrayContaining(["assistant"]));

  thread = await client.threads.get(thread.thread_id);

  // check if we are properly recreating the graph with the
  // stored configuration inside a thread
  await client.threads.updateState(thread.thread_id, {
    values: { messages: "update" },
    asNode: "assistant",
  });

  const state = await client.threads.getState(thread.thread_id);
  expect(state.values.messages).toEqual(["input", "assistant", "update"]);
});
it("generative ui", async () => {
  const ui = await client["~ui"].getComponent("agent", "weather-component");
  expect(ui).toContain(
    `<script src="${running!.url}/ui/agent/entrypoint.js" onload='__LGUI_agent.render("weather-component", "{{shadowRootId}}")'></script>`,
  );

  const match = /src="(?<src>[^"]+)"/.exec(ui);
  const jsFile = match?.groups?.src;
  if (!jsFile) throw new Error("No JS file found");

  const js = await fetch(jsFile).then((a) => a.text());
  expect(js).contains(`globalThis[Symbol.for("LGUI_REQUIRE")]`);

  await expect(() => client["~ui"].getComponent("non-existent", "none")).rejects.toThrow();
});
/** A fetch that throws on an error status, as LangGraph's custom-route tests use it. */
const fetcher = async (...args: Parameters<typeof fetch>) => {
  const res = await fetch(...args);
  if (!res.ok) throw new Error(`${res.status} ${res.statusText}`);
  return { json: await res.json(), headers: res.headers };
};

it("custom routes", async () => {
  let res = await fetcher(new URL("/custom/my-route?aCoolParam=13", running!.url), {
    headers: { "x-custom-input": "hey" },
  });
  expect(res.json).toEqual({ foo: "bar" });
  expect(res.headers.get("x-custom-output")).toEqual("hey");
  expect(res.headers.get("x-js-middleware")).toEqual("true");

  res = await fetcher(new URL("/runs/afakeroute", running!.url));
  expect(res.json).toEqual({ foo: "afakeroute" });

  await expect(() => fetcher(new URL("/does/not/exist", running!.url))).rejects.toThrow("404");

  await expect(() => fetcher(new URL("/custom/error", running!.url))).rejects.toThrow("400");

  const stream = await fetch(new URL("/custom/streaming", running!.url));
  const reader = stream.body?.getReader();
  if (!reader) throw new Error("No reader");

  const chunks: string[] = [];
  while (true) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(new TextDecoder().decode(value));
  }

  expect(chunks.length).toBeGreaterThanOrEqual(4); // Must actually stream
  expect(chunks.join("")).toEqual("Count: 0\nCount: 1\nCount: 2\nCount: 3\n");

  // LangGraph's run webhook, posted to a path of this server: see "custom routes - webhook".

  // check if custom middleware is applied even for the API's routes
  res = await fetcher(new URL("/info", running!.url));
  expect(res.headers.get("x-js-middleware")).toEqual("true");

  // ... and if we can intercept a request targeted for the API
  res = await fetcher(new URL("/info?interrupt", running!.url));
  expect(res.json).toEqual({ status: "interrupted" });
});

it("custom routes - webhook", async () => {
  const thread = await client.threads.create();
  await client.runs.wait(thread.thread_id, "agent_simple", {
    input: { messages: [{ role: "human", content: "foo" }] },
    webhook: "/custom/webhook",
  });

  await expect
    .poll(() => fetcher(new URL("/custom/webhook-payload", running!.url)), {
      interval: 500,
      timeout: 3000,
    })
    .toMatchObject({ json: { status: "success" } });
});

it("custom routes - mutate request body", async () => {
  const client = new Client<any>({
    apiUrl: running!.url,
    defaultHeaders: {
      "x-configurable-header": "extra-client",
    },
  });

  const thread = await client.threads.create();
  const res = await client.runs.wait(thread.thread_id, "agent_simple", {
    input: { messages: [{ role: "human", content: "input" }] },
  });

  expect(res).toEqual({
    messages: expect.arrayContaining([expect.objectContaining({ content: "end: extra-client" })]),
  });
});

it("custom routes - langgraph", async () => {
  const res = await fetcher(new URL("/custom/client", running!.url));
  expect(res.json).toEqual({
    result: {
      messages: expect.arrayContaining([expect.objectContaining({ content: "input" })]),
    },
  });
});

it("resumable streams", { timeout: 10_000 }, async () => {
  const assistant = await client.assistants.create({ graphId: "agent" });
  const thread = await client.threads.create();
  type RunMetadata = { run_id: string; thread_id?: string };
  let onRunCreated: ((params: RunMetadata) => void) | undefined;
  const waitRun = new Promise<RunMetadata>((r) => {
    onRunCreated = r;
  });
  const stream = client.runs.stream(thread.thread_id, assistant.assistant_id, {
    input: { messages: [{ role: "human", content: "input" }], sleep: { steps: 3, ms: 1000 } },
    streamResumable: true,
    streamMode: ["values", "custom"],
    config: globalConfig,
    onRunCreated,
  });
  const [join, source] = await Promise.all([
    (async () => {
      const [{ thread_id, run_id }] = await Promise.all([
        waitRun,
        new Promise((resolve) => setTimeout(resolve, 1500)),
      ]);
      return gatherIterator(
        client.runs.joinStream(thread_id ?? thread.thread_id, run_id, { lastEventId: "-1" }),
      );
    })(),
    gatherIterator(stream),
  ]);
  expect(join).toEqual(source);
});
