/**
 * S10: time to the first streamed token. `client.runs.stream(thread, "chat", { streamMode:
 * "messages-tuple" })` on a scripted one-call agent; timed from the call to the first
 * `messages` event (the model's first chunk), on ours and on LangGraph's dev server in
 * turn. `ours_us` and `peer_us` are the p50s; our p50 is also held to the 50 ms budget.
 * Our scripted model streams words, LangGraph's `FakeListChatModel` characters: the first
 * chunk comes as early either way.
 */
import type { Client } from "@langchain/langgraph-sdk";
import { langGraphPeer, PEER_NAME } from "../langgraph-server-fixture.js";
import { median } from "../measure.js";
import { check, result, round, type Scenario } from "../scenario.js";
import { percentile, REPLY, startBenchServer } from "../server-fixture.js";

const BUDGET_US = 50_000;

/** One run on a new thread: µs to the first token; checks the whole reply arrived. */
async function firstToken(client: Client, side: string): Promise<number> {
  const thread = await client.threads.create();
  const t = performance.now();
  let first = 0;
  let text = "";
  for await (const part of client.runs.stream(thread.thread_id, "chat", {
    input: { messages: [{ type: "human", content: "why is the disk full?" }] },
    streamMode: "messages-tuple",
  })) {
    if (part.event !== "messages") continue;
    if (first === 0) first = (performance.now() - t) * 1000;
    text += (part.data as unknown as [{ content: string }])[0].content;
  }
  check(text === REPLY, `S10 streamed the whole reply (${side})`, text);
  return first;
}

export const s10: Scenario = {
  id: "S10",
  title: "Time to first streamed token (SDK runs.stream, messages-tuple)",
  async run({ quick }) {
    const { server, client } = await startBenchServer();
    const peer = await langGraphPeer();
    try {
      const n = quick ? 30 : 200;
      const firsts: number[] = [];
      const peerFirsts: number[] = [];
      for (let i = 0; i < n + 10; i++) {
        const ours = await firstToken(client, "ours");
        const theirs = "server" in peer ? await firstToken(peer.server.client, "LangGraph") : 0;
        if (i < 10) continue; // warm-up
        firsts.push(ours);
        if ("server" in peer) peerFirsts.push(theirs);
      }
      const p50 = median(firsts);
      const peerP50 = "server" in peer ? median(peerFirsts) : BUDGET_US;
      return result({
        scenario: "S10",
        title: this.title,
        ours_us: p50,
        peer_us: peerP50,
        target: 1,
        peer: "server" in peer ? PEER_NAME : `the 50 ms budget (${peer.unavailable})`,
        met: p50 <= BUDGET_US && p50 <= peerP50,
        extra: {
          p95_us: round(percentile(firsts, 95)),
          ...("server" in peer ? { peer_p95_us: round(percentile(peerFirsts, 95)) } : {}),
          budget_us: BUDGET_US,
          runs: n,
        },
      });
    } finally {
      await server.close();
    }
  },
};
