import { Client, ProtocolError, ProtocolSseTransportAdapter } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAuthFileServer, tokenOf } from "./fixtures/auth-file-server.js";
import { reader, summary, type WireEvent } from "./fixtures/protocol-events.js";
import { serverOnStore, serverStores } from "./fixtures/server-stores.js";

// The SDK's `threads.stream` (its v2 protocol, over its default HTTP + SSE transport),
// unchanged, against our server on PGlite and on PostgreSQL.
describe.each(serverStores)(
  "the SDK's threads.stream on %s",
  { timeout: 60_000 },
  (_name, enabled, open) => {
    const on = serverOnStore(enabled, open);

    it.skipIf(!enabled)(
      "starts a run, reads it to its interrupt, answers it and reads the run to its end; a second stream replays the same numbered events",
      async () => {
        const thread = on.client.threads.stream({ assistantId: "question" });
        try {
          const { run_id } = await thread.run.start({ input: { question: "Why?" } });
          expect(run_id).toEqual(expect.any(String));
          const readUntil = reader(
            await thread.subscribe(["lifecycle", "input", "values", "updates"]),
          );
          const first = await readUntil("interrupted");
          expect(summary(first)).toEqual([
            "lifecycle:running",
            "values",
            "input.requested",
            "lifecycle:interrupted",
          ]);
          const asked = first.find((e) => e.method === "input.requested")!;
          expect(asked.params.data.payload).toEqual({ question: "Why?" });
          expect(thread.interrupted).toBe(true);
          expect(thread.interrupts.map((i) => i.interruptId)).toEqual([
            asked.params.data.interrupt_id,
          ]);

          await thread.input.respond({
            namespace: [],
            interrupt_id: asked.params.data.interrupt_id,
            response: "Because.",
          });
          const second = await readUntil("completed");
          expect(summary(second)).toEqual([
            "lifecycle:running",
            "values",
            "updates:ask",
            "values",
            "lifecycle:completed",
          ]);
          expect(second.at(-2)!.params.data).toEqual({ question: "Why?", answer: "Because." });
          // Numbered in the thread's log order (the channels not asked for fill the gaps).
          const seqs = [...first, ...second].map((e) => e.seq!);
          expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
          expect(new Set(seqs).size).toBe(seqs.length);
          expect(await thread.state.get({ namespace: [] })).toMatchObject({
            values: { question: "Why?", answer: "Because." },
            checkpoint: { id: expect.any(String) },
          });

          // Another client on the same thread sees the same events under the same ids (its
          // ThreadStream pauses after a run's end: read up to the first).
          const again = on.client.threads.stream(thread.threadId, { assistantId: "question" });
          try {
            const replay = reader(
              await again.subscribe(["lifecycle", "input", "values", "updates"]),
            );
            expect((await replay("interrupted")).map((e) => [e.event_id, e.method])).toEqual(
              first.map((e) => [e.event_id, e.method]),
            );
            expect(again.interrupts.map((i) => i.interruptId)).toEqual([
              asked.params.data.interrupt_id,
            ]);
          } finally {
            await again.close();
          }

          // The transport's own streams: all of the thread's events, or those after `since`.
          const transport = new ProtocolSseTransportAdapter({
            apiUrl: on.running.url,
            threadId: thread.threadId,
            maxReconnectAttempts: 0,
          });
          const readToEnd = async (filter: { channels: string[]; since?: number }) => {
            const stream = transport.openEventStream(filter as never);
            await stream.ready;
            const got: WireEvent[] = [];
            for await (const e of stream.events as AsyncIterable<WireEvent>) {
              got.push(e);
              if (e.method === "lifecycle" && e.params.data.event === "completed") break;
            }
            stream.close();
            return got;
          };
          try {
            const all = await readToEnd({ channels: ["lifecycle", "input", "values", "updates"] });
            // The same events, numbered alike (each `timestamp` says when it was sent).
            const untimed = (events: WireEvent[]) =>
              events.map(({ params: { timestamp: _, ...params }, ...e }: any) => ({
                ...e,
                params,
              }));
            expect(untimed(all)).toEqual(untimed([...first, ...second]));
            // Every channel: the thread's events numbered from 1 with no gap, across its runs.
            const everything = await readToEnd({
              channels: [
                "lifecycle",
                "input",
                "values",
                "updates",
                "messages",
                "tools",
                "tasks",
                "checkpoints",
                "custom",
              ],
            });
            expect(everything.map((e) => e.seq)).toEqual(everything.map((_, i) => i + 1));
            expect(everything.filter((e) => e.method === "lifecycle")).toHaveLength(4);
            const since = first.at(-1)!.seq!;
            const after = await readToEnd({ channels: ["lifecycle"], since });
            expect(after.map((e) => [e.seq, e.params.data.event])).toEqual([
              [second[0]!.seq, "running"],
              [second.at(-1)!.seq, "completed"],
            ]);
          } finally {
            await transport.close();
          }
        } finally {
          await thread.close();
        }
      },
    );

    it.skipIf(!enabled)("forks a run from a checkpoint of the thread (state.fork)", async () => {
      const thread = on.client.threads.stream({ assistantId: "stepper" });
      try {
        const { run_id } = await thread.run.start({ input: { n: 1 } });
        expect(await on.client.runs.join(thread.threadId, run_id!)).toEqual({ n: 2 });
        const history = await on.client.threads.getHistory(thread.threadId);
        // The checkpoint before `count` ran: the fork counts again from there.
        const beforeCount = history.find((s) => s.next.includes("count"))!;
        const fork = await thread.state.fork({
          checkpoint_id: beforeCount.checkpoint.checkpoint_id!,
        });
        expect(fork).toEqual({ run_id: expect.any(String), thread_id: thread.threadId });
        expect(await on.client.runs.join(thread.threadId, fork.run_id)).toEqual({ n: 2 });
        expect((await thread.state.get({ namespace: [] })).values).toEqual({ n: 2 });
      } finally {
        await thread.close();
      }
    });

    it.skipIf(!enabled)(
      "refuses what it does not carry out with the protocol's errors, and a bad stream filter with a 400",
      async () => {
        const thread = on.client.threads.stream({ assistantId: "stepper" });
        try {
          const { run_id } = await thread.run.start({ input: { n: 1 } });
          await on.client.runs.join(thread.threadId, run_id!);
          const refusal = await thread.input.inject({ namespace: [] } as never).catch((e) => e);
          expect(refusal).toBeInstanceOf(ProtocolError);
          expect(refusal).toMatchObject({ code: "not_supported" });
          expect(refusal.message).toMatch(/run\.start/);
          const wrong = await thread.input
            .respond({ namespace: [], interrupt_id: "nope", response: 1 })
            .catch((e) => e);
          expect(wrong).toBeInstanceOf(ProtocolError);
          // Paused at a breakpoint, not on an interrupt: nothing to respond to.
          expect(wrong).toMatchObject({ code: "no_such_interrupt" });
          expect(wrong.message).toMatch(/does not wait on interrupt nope; it waits on none/);
        } finally {
          await thread.close();
        }
        const bad = await fetch(`${on.running.url}/threads/${thread.threadId}/stream/events`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ channels: [], since: -1 }),
        });
        expect(bad.status).toBe(400);
        expect(await bad.text()).toMatch(/channels/);
        const unknown = await fetch(`${on.running.url}/threads/${thread.threadId}/commands`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ id: 7, method: "run.rewind", params: {} }),
        });
        expect(await unknown.json()).toMatchObject({
          type: "error",
          id: 7,
          error: "unknown_command",
          message: expect.stringMatching(/run\.start/),
        });
        // The same path's GET is the protocol's WebSocket (thread-stream-websocket.test.ts).
        const socket = await fetch(`${on.running.url}/threads/${thread.threadId}/stream/events`);
        expect(socket.status).toBe(426);
      },
    );
  },
);

// The auth file's handlers guard it as the rest of the API: a stream and state.get read the
// thread, run.start and input.respond run on it (LangGraph's test users and handlers).
describe("the SDK's threads.stream under an auth file", { timeout: 60_000 }, () => {
  let running: { url: string; stop(): Promise<void> };
  beforeAll(async () => {
    running = await startAuthFileServer();
  }, 60_000);
  afterAll(() => running.stop());

  const clientOf = async (sub: string, scopes: string[]) => {
    const token = await tokenOf(sub, scopes);
    return new Client({
      apiUrl: running.url,
      defaultHeaders: { Authorization: `Bearer ${token}` },
    });
  };

  it("lets the owner run and read the thread, and hides it from another user", async () => {
    const owner = await clientOf("johndoe", ["me"]);
    const thread = owner.threads.stream({ assistantId: "agent_simple" });
    const other = (await clientOf("alice", ["me"])).threads.stream(thread.threadId, {
      assistantId: "agent_simple",
    });
    try {
      const { run_id } = await thread.run.start({
        input: { messages: [{ role: "human", content: "hi" }] },
      });
      await owner.runs.join(thread.threadId, run_id!);
      expect((await owner.threads.get(thread.threadId)).metadata).toMatchObject({
        owner: "johndoe",
      });
      const state = await thread.state.get({ namespace: [] });
      expect((state as { values: { messages: unknown[] } }).values.messages).toHaveLength(2);

      await expect(other.state.get({ namespace: [] })).rejects.toMatchObject({ status: 404 });
      await expect(other.run.start({ input: { messages: [] } })).rejects.toMatchObject({
        status: 404,
      });
      await expect(other.subscribe(["values"])).rejects.toMatchObject({ status: 404 });
    } finally {
      await thread.close();
      await other.close();
    }
  });
});
