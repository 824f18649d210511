/**
 * S11: 200 concurrent SSE clients. Each opens `client.runs.stream` on its own new thread at
 * the same moment (values mode, a one-step graph that pauses at its `interrupt()`), and
 * reads to the end; all 200 must see the pause. Three rounds, each one burst on ours then
 * one on LangGraph's dev server; `ours_us` and `peer_us` are the median round's wall time
 * divided by 200. Our figure is also held to the 10 ms per client budget (2 s for all).
 * Then 200 clients on our `GET /inbox/events` wait for one change: how long until the last
 * one hears it is in `extra` (LangGraph's server has no such feed).
 */
import { randomUUID } from "node:crypto";
import type { Client } from "@langchain/langgraph-sdk";
import { langGraphPeer, PEER_NAME } from "../langgraph-server-fixture.js";
import { check, result, round, type Scenario } from "../scenario.js";
import { percentile, startBenchServer } from "../server-fixture.js";

const CLIENTS = 200;
const ROUNDS = 3;
const BUDGET_US = 10_000;

/** `count` clients at once, each streaming a run on its own new thread: wall and per-client µs. */
async function burst(client: Client, count: number, side: string) {
  const one = async () => {
    const t = performance.now();
    let paused = false;
    for await (const part of client.runs.stream(randomUUID(), "question", {
      input: { q: "ticket" },
      streamMode: "values",
      ifNotExists: "create",
    })) {
      if (part.event === "values" && "__interrupt__" in (part.data as object)) paused = true;
    }
    check(paused, `S11 every client saw the pause (${side})`, paused);
    return (performance.now() - t) * 1000;
  };
  const t = performance.now();
  const each = await Promise.all(Array.from({ length: count }, one));
  return { wall: (performance.now() - t) * 1000, each };
}

export const s11: Scenario = {
  id: "S11",
  title: "200 concurrent SSE clients (SDK runs.stream, one thread each)",
  async run() {
    const { server, url, client, question } = await startBenchServer();
    const peer = await langGraphPeer();
    try {
      await burst(client, 10, "ours"); // warm-up
      if ("server" in peer) await burst(peer.server.client, 10, "LangGraph");
      const ours: Awaited<ReturnType<typeof burst>>[] = [];
      const theirs: Awaited<ReturnType<typeof burst>>[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        ours.push(await burst(client, CLIENTS, "ours"));
        if ("server" in peer) theirs.push(await burst(peer.server.client, CLIENTS, "LangGraph"));
      }
      const middle = (rounds: typeof ours) =>
        [...rounds].sort((a, b) => a.wall - b.wall)[(rounds.length - 1) >> 1]!;
      const mine = middle(ours);
      const wall = mine.wall;
      const peerWall = "server" in peer ? middle(theirs).wall : BUDGET_US * CLIENTS;

      // The inbox feed: 200 listeners, one change.
      const controllers = Array.from({ length: CLIENTS }, () => new AbortController());
      const readers = await Promise.all(
        controllers.map(async (c) => {
          const res = await fetch(`${url}/inbox/events`, { signal: c.signal });
          return res.body!.pipeThrough(new TextDecoderStream()).getReader();
        }),
      );
      const t2 = performance.now();
      const heard = readers.map(async (r) => {
        let text = "";
        while (!text.includes("event: inbox")) text += (await r.read()).value ?? "";
        return (performance.now() - t2) * 1000;
      });
      await question.invoke({ q: "feed" }, { config: { configurable: { thread_id: "s11-feed" } } });
      server.context.events.publish("s11-feed", "paused");
      const lastHeard = Math.max(...(await Promise.all(heard)));
      for (const c of controllers) c.abort();

      return result({
        scenario: "S11",
        title: this.title,
        ours_us: wall / CLIENTS,
        peer_us: peerWall / CLIENTS,
        target: 1,
        peer: "server" in peer ? PEER_NAME : `the 10 ms per client budget (${peer.unavailable})`,
        met: wall / CLIENTS <= BUDGET_US && wall <= peerWall,
        extra: {
          wall_ms: round(wall / 1000),
          client_p95_ms: round(percentile(mine.each, 95) / 1000),
          ...("server" in peer
            ? {
                peer_wall_ms: round(peerWall / 1000),
                peer_client_p95_ms: round(percentile(middle(theirs).each, 95) / 1000),
              }
            : {}),
          rounds_wall_ms: ours.map((o) => round(o.wall / 1000)).join(" "),
          inbox_feed_last_of_200_ms: round(lastHeard / 1000),
        },
      });
    } finally {
      await server.close();
    }
  },
};
