import { ProtocolError, ProtocolSseTransportAdapter } from "@langchain/langgraph-sdk";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createAgent, messagesGraph } from "../../src/agent/index.js";
import { Graph, interrupt, START } from "../../src/index.js";
import { FakeChatModel, type FakeResponse, type Message, tool } from "../../src/models/index.js";
import { testGraphs } from "./fixtures/server.js";
import { serverOnStore, serverStores } from "./fixtures/server-stores.js";

interface WireEvent {
  method: string;
  seq: number;
  params: { namespace: string[]; node?: string; data: any };
}

const ALL_CHANNELS = [
  "lifecycle",
  "input",
  "values",
  "updates",
  "messages",
  "tools",
  "tasks",
  "checkpoints",
  "custom",
];

// The weather agent's scripted model: it looks up the city asked about (Paris unless the
// question names Atlantis); given the tool's answer, it replies with it.
const weatherReply: FakeResponse = (messages: readonly Message[]) => {
  const last = messages.at(-1)!;
  if (last.role === "tool") return `It is ${last.content} in Paris.`;
  const city = last.content.includes("Atlantis") ? "Atlantis" : "Paris";
  return { toolCalls: [{ name: "lookup", args: { city } }] };
};

function weatherAgent() {
  const lookup = tool({
    name: "lookup",
    description: "The weather in a city.",
    schema: z.object({ city: z.string() }),
    run: async ({ city }) => {
      if (city === "Atlantis") throw new Error("No weather station in Atlantis.");
      return "sunny";
    },
  });
  return createAgent({
    name: "weather",
    model: new FakeChatModel({ responses: Array.from({ length: 100 }, () => weatherReply) }),
    tools: [lookup],
  });
}

// A graph whose `child` node is a subgraph with a model that streams its reply.
function nestedGraph() {
  const model = new FakeChatModel({
    responses: Array.from({ length: 100 }, () => "Hello from the child."),
  });
  const child = messagesGraph({ name: "child" })
    .addNode("reply", async (s) => ({ messages: [await model.invoke(s.messages)] }))
    .addEdge(START, "reply")
    .compile();
  return messagesGraph({ name: "nested" })
    .addNode("child", child)
    .addEdge(START, "child")
    .compile();
}

// A graph whose `review` node is a subgraph that asks a person before it answers.
function approvalGraph() {
  const child = new Graph({ name: "review" })
    .addNode("ask", () => ({ answer: interrupt({ question: "Approve?" }) }))
    .addEdge(START, "ask")
    .compile();
  return new Graph({ name: "approval" })
    .addNode("review", child)
    .addEdge(START, "review")
    .compile();
}

const rootEnded = (e: WireEvent) =>
  e.method === "lifecycle" &&
  e.params.namespace.length === 0 &&
  e.params.data.event === "completed";

/**
 * The transport's own stream of the thread's events on `channels` (and `lifecycle`, to see
 * the end by), read until `until`; the lifecycle events only if asked for.
 */
async function readRun(
  url: string,
  threadId: string,
  filter: { channels: string[]; namespaces?: string[][]; depth?: number; since?: number },
  until: (e: WireEvent) => boolean = rootEnded,
): Promise<WireEvent[]> {
  const transport = new ProtocolSseTransportAdapter({
    apiUrl: url,
    threadId,
    maxReconnectAttempts: 0,
  });
  try {
    const channels = [...filter.channels, "lifecycle"];
    const stream = transport.openEventStream({ ...filter, channels } as never);
    await stream.ready;
    const got: WireEvent[] = [];
    for await (const e of stream.events as AsyncIterable<WireEvent>) {
      if (filter.channels.includes("lifecycle") || e.method !== "lifecycle") got.push(e);
      if (until(e)) break;
    }
    stream.close();
    return got;
  } finally {
    await transport.close();
  }
}

const show = (e: WireEvent) => {
  const ns = e.params.namespace.map((s) => s.split(":")[0]).join("/");
  const where = ns ? `@${ns}` : "";
  const d = e.params.data;
  switch (e.method) {
    case "lifecycle":
      return `lifecycle:${d.event}${where}`;
    case "updates":
      return `updates:${e.params.node}${where}`;
    case "messages":
      return `messages:${d.event}${where}`;
    case "tools":
      return `tools:${d.event}${where}`;
    default:
      return `${e.method}${where}`;
  }
};

describe.each(serverStores)(
  "the SDK's threads.stream channels on %s",
  { timeout: 60_000 },
  (_name, enabled, open) => {
    const on = serverOnStore(enabled, open, {
      graphs: {
        ...testGraphs(),
        weather: weatherAgent(),
        nested: nestedGraph(),
        approval: approvalGraph(),
      },
    });

    it.skipIf(!enabled)(
      "streams an agent's model tokens on messages and its tool call on tools, in LangGraph's order, and the SDK's projections assemble them",
      async () => {
        const thread = on.client.threads.stream({ assistantId: "weather" });
        try {
          // The SDK's own projections, opened before the run (they keep what they assemble).
          const { messages, toolCalls } = thread;
          await thread.run.start({ input: { messages: [{ role: "user", content: "Weather?" }] } });
          const events = await readRun(on.running.url, thread.threadId, {
            channels: ["messages", "tools", "updates"],
          });
          const deltas = (n: number) =>
            Array.from({ length: n }, () => "messages:content-block-delta");
          expect(events.map(show)).toEqual([
            // The model's tool call streams as a tool-call block, finished when its task ends.
            "messages:message-start",
            "messages:content-block-start",
            "messages:content-block-delta",
            "messages:content-block-finish",
            "messages:message-finish",
            "updates:model",
            "tools:tool-started",
            "tools:tool-finished",
            "updates:tools",
            // The reply streams word by word ("It is sunny in Paris.").
            "messages:message-start",
            "messages:content-block-start",
            ...deltas(5),
            "messages:content-block-finish",
            "messages:message-finish",
            "updates:model",
          ]);
          const data = events.map((e) => e.params.data);
          const firstId = data[0].id;
          expect(data[0]).toEqual({ event: "message-start", role: "ai", id: expect.any(String) });
          expect(events[0]!.params.node).toBe("model");
          expect(data[1]).toEqual({
            event: "content-block-start",
            index: 0,
            content: { type: "tool_call_chunk", id: "call_1", name: "lookup", args: "" },
          });
          expect(data[2]).toEqual({
            event: "content-block-delta",
            index: 0,
            delta: { type: "tool-call-delta", args: '{"city":"Paris"}' },
          });
          expect(data[3]).toEqual({
            event: "content-block-finish",
            index: 0,
            content: { type: "tool_call", id: "call_1", name: "lookup", args: { city: "Paris" } },
          });
          expect(data[6]).toEqual({
            event: "tool-started",
            tool_call_id: "call_1",
            tool_name: "lookup",
            input: { city: "Paris" },
          });
          expect(data[7]).toMatchObject({
            event: "tool-finished",
            tool_call_id: "call_1",
            output: { type: "tool", content: "sunny", tool_call_id: "call_1" },
          });
          expect(data[9]).toEqual({ event: "message-start", role: "ai", id: expect.any(String) });
          expect(data[9].id).not.toBe(firstId);
          expect(
            data
              .slice(11, 16)
              .map((d) => d.delta.text)
              .join(""),
          ).toBe("It is sunny in Paris.");
          expect(data[16]).toEqual({
            event: "content-block-finish",
            index: 0,
            content: { type: "text", text: "It is sunny in Paris." },
          });
          // The updates carry the same messages, under the ids the events named.
          const replies = [events[5]!, events.at(-1)!].map((e) => e.params.data.messages.at(-1).id);
          expect(replies).toEqual([firstId, data[9].id]);

          // The SDK's projections over the same events.
          const texts: string[] = [];
          const calls: unknown[] = [];
          for await (const message of messages) {
            texts.push(await message.text);
            calls.push(await message.toolCalls);
            if (texts.length === 2) break;
          }
          expect(texts).toEqual(["", "It is sunny in Paris."]);
          expect(calls[0]).toEqual([
            { type: "tool_call", id: "call_1", name: "lookup", args: { city: "Paris" } },
          ]);
          for await (const call of toolCalls) {
            expect(call).toMatchObject({
              name: "lookup",
              callId: "call_1",
              input: { city: "Paris" },
            });
            expect(await call.output).toBe("sunny");
            break;
          }
        } finally {
          await thread.close();
        }
      },
    );

    it.skipIf(!enabled)(
      "streams a subgraph's events under its namespace between its lifecycle started and completed, filters them by namespace and depth, and answers agent.getTree",
      async () => {
        const thread = on.client.threads.stream({ assistantId: "nested" });
        try {
          const { subgraphs } = thread;
          await thread.run.start({ input: { messages: [{ role: "user", content: "Hi" }] } });
          const all = await readRun(on.running.url, thread.threadId, { channels: ALL_CHANNELS });
          const deltas = Array.from({ length: 4 }, () => "messages:content-block-delta@child");
          expect(all.map(show)).toEqual([
            "lifecycle:running",
            "checkpoints",
            "checkpoints",
            "values",
            "tasks",
            "lifecycle:started@child",
            "checkpoints@child",
            "checkpoints@child",
            "values@child",
            "tasks@child",
            "messages:message-start@child",
            "messages:content-block-start@child",
            ...deltas,
            "messages:content-block-finish@child",
            "messages:message-finish@child",
            "tasks@child",
            "updates:reply@child",
            "checkpoints@child",
            "values@child",
            "tasks",
            "lifecycle:completed@child",
            "updates:child",
            "checkpoints",
            "values",
            "lifecycle:completed",
          ]);
          // Numbered from 1 with no gap: every channel was asked for.
          expect(all.map((e) => e.seq)).toEqual(all.map((_, i) => i + 1));
          const childNs = all.find((e) => e.params.namespace.length > 0)!.params.namespace;
          // One colon, as LangGraph's `child:<uuid>`: the SDK names the subgraph up to it.
          expect(childNs).toEqual([expect.stringMatching(/^child:[^:]+$/)]);
          const started = all.find((e) => show(e) === "lifecycle:started@child")!;
          expect(started.params.data).toEqual({ event: "started", graph_name: "child" });
          const checkpoint = all.find((e) => e.method === "checkpoints")!;
          expect(checkpoint.params.data).toEqual({
            id: expect.any(String),
            step: expect.any(Number),
            source: expect.stringMatching(/^(input|loop)$/),
          });
          const task = all.find((e) => e.method === "tasks")!;
          expect(task.params.data).toMatchObject({ id: expect.any(String), name: "child" });

          // A segment without its task id names the subgraph; depth 0 keeps to the namespace.
          const child = await readRun(
            on.running.url,
            thread.threadId,
            {
              channels: ["updates", "messages"],
              namespaces: [["child"]],
            },
            (e) => e.method === "lifecycle" && e.params.data.event === "completed",
          );
          expect(child.length).toBeGreaterThan(0);
          expect(child.every((e) => e.params.namespace[0] === childNs[0])).toBe(true);
          const root = await readRun(on.running.url, thread.threadId, {
            channels: ["updates", "lifecycle"],
            namespaces: [[]],
            depth: 0,
          });
          expect(root.map(show)).toEqual([
            "lifecycle:running",
            "updates:child",
            "lifecycle:completed",
          ]);

          // The SDK's subgraph discovery, and its projection of the subgraph's messages.
          for await (const sub of subgraphs) {
            expect(sub).toMatchObject({ namespace: childNs, name: "child", graphName: "child" });
            for await (const message of sub.messages) {
              expect(await message.text).toBe("Hello from the child.");
              expect(message.node).toBe("reply");
              break;
            }
            break;
          }

          expect(await thread.agent.getTree()).toEqual({
            tree: {
              namespace: [],
              status: "completed",
              graph_name: "nested",
              children: [{ namespace: childNs, status: "completed", graph_name: "child" }],
            },
          });
        } finally {
          await thread.close();
        }
      },
    );

    it.skipIf(!enabled)(
      "asks for input from inside a subgraph under its namespace, ends the subgraph and the run interrupted, and streams the resumed subgraph as a new start",
      async () => {
        const thread = on.client.threads.stream({ assistantId: "approval" });
        try {
          await thread.run.start({ input: {} });
          const interrupted = (e: WireEvent) =>
            e.method === "lifecycle" &&
            e.params.namespace.length === 0 &&
            e.params.data.event === "interrupted";
          const channels = ["lifecycle", "input", "updates"];
          const first = await readRun(on.running.url, thread.threadId, { channels }, interrupted);
          expect(first.map(show)).toEqual([
            "lifecycle:running",
            "lifecycle:started@review",
            "input.requested@review",
            "lifecycle:interrupted@review",
            "lifecycle:interrupted",
          ]);
          const asked = first[2]!;
          expect(asked.params.namespace).toEqual([expect.stringMatching(/^review:/)]);
          expect(asked.params.data).toEqual({
            interrupt_id: expect.any(String),
            payload: { question: "Approve?" },
          });
          expect(await thread.agent.getTree()).toEqual({
            tree: {
              namespace: [],
              status: "interrupted",
              graph_name: "approval",
              children: [
                { namespace: asked.params.namespace, status: "interrupted", graph_name: "review" },
              ],
            },
          });

          // state.get and state.listCheckpoints read the subgraph's run by its namespace.
          const { values, checkpoint } = await thread.state.get({
            namespace: asked.params.namespace,
          });
          expect(values).toEqual({});
          expect(checkpoint).toEqual({ id: expect.any(String), ns: asked.params.namespace[0] });
          const { checkpoints: sub } = await thread.state.listCheckpoints({
            namespace: asked.params.namespace,
          });
          expect(sub[0]).toMatchObject({ id: checkpoint!.id, step: expect.any(Number) });
          expect(new Date(sub[0]!.timestamp).toISOString()).toBe(sub[0]!.timestamp);
          const { checkpoints: root } = await thread.state.listCheckpoints({
            namespace: [],
            limit: 2,
          });
          expect(root).toHaveLength(2);
          expect(root[1]).toMatchObject({ step: root[0]!.step - 1 });
          const older = await thread.state.listCheckpoints({ before: root[0]!.id, limit: 1 });
          expect(older.checkpoints.map((c) => c.id)).toEqual([root[1]!.id]);
          await expect(
            thread.state.get({ namespace: ["elsewhere:1:elsewhere:0"] }),
          ).rejects.toThrow(/no subgraph run at namespace/);

          await thread.input.respond({
            namespace: asked.params.namespace,
            interrupt_id: asked.params.data.interrupt_id,
            response: "yes",
          });
          const second = await readRun(on.running.url, thread.threadId, {
            channels,
            since: first.at(-1)!.seq,
          });
          expect(second.map(show)).toEqual([
            "lifecycle:running",
            "lifecycle:started@review",
            "updates:ask@review",
            "lifecycle:completed@review",
            "updates:review",
            "lifecycle:completed",
          ]);
          expect(second[2]!.params.data).toEqual({ answer: "yes" });
        } finally {
          await thread.close();
        }
      },
    );

    it.skipIf(!enabled)("tells a tool call that failed as tool-error", async () => {
      const thread = on.client.threads.stream({ assistantId: "weather" });
      try {
        await thread.run.start({ input: { messages: [{ role: "user", content: "Atlantis?" }] } });
        const ended = (e: WireEvent) =>
          e.method === "lifecycle" &&
          e.params.namespace.length === 0 &&
          e.params.data.event !== "running";
        const events = await readRun(
          on.running.url,
          thread.threadId,
          { channels: ["tools"] },
          ended,
        );
        expect(events.map((e) => e.params.data)).toEqual([
          {
            event: "tool-started",
            tool_call_id: expect.any(String),
            tool_name: "lookup",
            input: { city: "Atlantis" },
          },
          {
            event: "tool-error",
            tool_call_id: events[0]!.params.data.tool_call_id,
            message: expect.stringContaining("No weather station in Atlantis."),
          },
        ]);
      } finally {
        await thread.close();
      }
    });

    it.skipIf(!enabled)(
      "answers agent.getTree on a thread with no run yet with no_such_run",
      async () => {
        const { thread_id } = await on.client.threads.create();
        const thread = on.client.threads.stream(thread_id, { assistantId: "nested" });
        try {
          const refusal = await thread.agent.getTree().catch((e) => e);
          expect(refusal).toBeInstanceOf(ProtocolError);
          expect(refusal).toMatchObject({ code: "no_such_run" });
          expect(refusal.message).toMatch(/run\.start/);
        } finally {
          await thread.close();
        }
      },
    );
  },
);
