import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { createWebSocketInspector, type StatelyInspectionEvent } from "@statelyai/inspect";
import { describe, expect, it } from "vitest";
import { type WebSocket, WebSocketServer } from "ws";
import { MemoryCheckpointer } from "../../src/checkpoint/index.js";
import { Command, END, Graph, interrupt, START } from "../../src/index.js";

const approval = new Graph({ name: "InspectedApproval" })
  .addNode("prepare", () => ({ amount: 500 }))
  .addNode(
    "approve",
    () => new Command({ goto: interrupt<boolean>("Transfer $500?") ? "transfer" : END }),
    { ends: ["transfer", END] },
  )
  .addNode("transfer", () => ({ done: true }))
  .addEdge(START, "prepare")
  .addEdge("prepare", "approve")
  .addEdge("transfer", END)
  .compile({ checkpointer: new MemoryCheckpointer() });

/** A local stand-in for the Stately inspector's WebSocket end: it collects what arrives. */
async function inspectorServer() {
  const server = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  await once(server, "listening");
  const received: StatelyInspectionEvent[] = [];
  const waiters: Array<() => void> = [];
  const sockets: WebSocket[] = [];
  server.on("connection", (socket) => {
    sockets.push(socket);
    socket.on("message", (data) => {
      received.push(JSON.parse(String(data)));
      for (const w of waiters.splice(0)) w();
    });
  });
  return {
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    connected: () => once(server, "connection"),
    /** Resolves once an event that matches has arrived. */
    async until(match: (e: StatelyInspectionEvent) => boolean) {
      while (!received.some(match)) await new Promise<void>((r) => waiters.push(r));
    },
    async close() {
      for (const s of sockets) s.terminate();
      server.close();
      await once(server, "close");
    },
  };
}

describe("invoke(…, { inspect }) with @statelyai/inspect", () => {
  it("streams the run's actors, events and snapshots to a WebSocket inspector", async () => {
    const server = await inspectorServer();
    const connected = server.connected();
    const inspector = createWebSocketInspector({ url: server.url });
    try {
      await connected;
      const config = { configurable: { thread_id: "inspected-1" } };
      const paused = await approval.invoke({}, { config, inspect: inspector.inspect });
      expect(paused.status).toBe("interrupted");
      await approval.resume(true, { config, inspect: inspector.inspect });

      const isDone = (e: StatelyInspectionEvent) =>
        e.type === "@xstate.snapshot" && (e.snapshot as { value?: unknown }).value === "done";
      await server.until(isDone);

      const actors = server.received.filter((e) => e.type === "@xstate.actor");
      const graphActors = actors.filter((e) => e.name === "InspectedApproval");
      // One actor per call (invoke, then resume), each with the machine's definition.
      expect(graphActors).toHaveLength(2);
      expect(JSON.parse(graphActors[0]!.definition!).id).toBe("InspectedApproval");
      // The task runner is the graph actor's child.
      expect(actors.some((e) => e.parentId === graphActors[0]!.sessionId)).toBe(true);

      const events = server.received
        .filter((e) => e.type === "@xstate.event")
        .map((e) => e.event as { type: string; node?: string });
      expect(events.map((e) => e.type)).toEqual(
        expect.arrayContaining(["INPUT", "RUN", "TASKS.DONE", "RESUME"]),
      );
      // Each step asks the task runner to run its node: the run's real steps, as they happened.
      expect(events.filter((e) => e.type === "RUN").map((e) => e.node)).toEqual([
        START,
        "prepare",
        "approve",
        "approve",
        "transfer",
      ]);
      const graphIds = new Set(graphActors.map((e) => e.sessionId));
      const snapshots = server.received.flatMap((e) =>
        e.type === "@xstate.snapshot" && graphIds.has(e.sessionId) ? [e.snapshot] : [],
      );
      const values = snapshots.map((s) => (s as unknown as { value?: unknown }).value);
      // The pause shows as the node's own lifecycle state, then the run loop ends in `done`.
      expect(values).toContainEqual({ workflow: { approve: "interrupted" } });
      expect(values.at(-1)).toBe("done");
      expect(
        (snapshots.at(-1) as unknown as { context: { values: unknown } }).context.values,
      ).toEqual({
        amount: 500,
        done: true,
      });
    } finally {
      inspector.stop();
      await server.close();
    }
  });
});
