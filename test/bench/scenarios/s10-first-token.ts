/**
 * S10: time to the first streamed token. `client.runs.stream(thread, "chat", { streamMode:
 * "messages-tuple" })` on a scripted agent; timed from the call to the first `messages`
 * event (the model's first word). `ours_us` is the p50; `peer_us` the 50 ms budget.
 */
import { median } from "../measure.js";
import { check, result, round, type Scenario } from "../scenario.js";
import { percentile, REPLY, startBenchServer } from "../server-fixture.js";

const BUDGET_US = 50_000;

export const s10: Scenario = {
  id: "S10",
  title: "Time to first streamed token (SDK runs.stream, messages-tuple)",
  async run({ quick }) {
    const { server, client } = await startBenchServer();
    try {
      const n = quick ? 30 : 200;
      const firsts: number[] = [];
      for (let i = 0; i < n + 10; i++) {
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
        check(text === REPLY, "S10 streamed the whole reply", text);
        if (i >= 10) firsts.push(first);
      }
      const p50 = median(firsts);
      return result({
        scenario: "S10",
        title: this.title,
        ours_us: p50,
        peer_us: BUDGET_US,
        target: 1,
        peer: "the 50 ms budget (no LangGraph server installed)",
        extra: { p95_us: round(percentile(firsts, 95)), runs: n },
      });
    } finally {
      await server.close();
    }
  },
};
