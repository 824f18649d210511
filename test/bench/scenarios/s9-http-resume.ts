/**
 * S9: the HTTP round trip of a review answer. A thread paused at a one-step graph's
 * `interrupt()` is resumed with `client.runs.wait(thread, "question", { command: { resume } })`
 * through the official SDK client; the call returns when the thread has finished. The same
 * calls go to ours and to LangGraph's dev server (`@langchain/langgraph-api`), one each in
 * turn, timed call by call: `ours_us` and `peer_us` are the p50s; our p95 and our p50 are
 * also held to the 25 ms / 10 ms budgets. The in-process `graph.resume` of the same thread
 * is in `extra`, to show what HTTP adds. If LangGraph's server cannot start, `peer_us` is
 * the 10 ms budget and the reason is printed.
 */
import { randomUUID } from "node:crypto";
import { langGraphPeer, PEER_NAME } from "../langgraph-server-fixture.js";
import { median } from "../measure.js";
import { check, result, round, type Scenario } from "../scenario.js";
import { percentile, startBenchServer } from "../server-fixture.js";

const BUDGET_US = 10_000;
const P95_US = 25_000;

export const s9: Scenario = {
  id: "S9",
  title: "HTTP resume that finishes a one-step thread (SDK runs.wait)",
  async run({ quick }) {
    const { server, client, question } = await startBenchServer();
    const peer = await langGraphPeer();
    try {
      const n = quick ? 50 : 400;
      const total = n + 20; // the first 20 of each side warm up
      const pause = async (id: string) => {
        const r = await question.invoke(
          { q: "ok?" },
          { config: { configurable: { thread_id: id } } },
        );
        check(r.status === "interrupted", "S9 paused", r.status);
      };
      for (let i = 0; i < total; i++) await pause(`s9-${i}`);
      const theirs: string[] = [];
      if ("server" in peer) {
        for (let i = 0; i < total; i++) {
          const id = randomUUID();
          const r = (await peer.server.client.runs.wait(id, "question", {
            input: { q: "ok?" },
            ifNotExists: "create",
          })) as { __interrupt__?: unknown[] };
          check(r.__interrupt__?.length === 1, "S9 paused on LangGraph's server", r);
          theirs.push(id);
        }
      }
      const http: number[] = [];
      const peerHttp: number[] = [];
      for (let i = 0; i < total; i++) {
        let t = performance.now();
        const out = (await client.runs.wait(`s9-${i}`, "question", {
          command: { resume: "yes" },
        })) as { a?: string };
        const us = (performance.now() - t) * 1000;
        check(out.a === "yes", "S9 finished with the answer", out);
        if (i >= 20) http.push(us);
        if (!("server" in peer)) continue;
        t = performance.now();
        const theirOut = (await peer.server.client.runs.wait(theirs[i]!, "question", {
          command: { resume: "yes" },
        })) as { a?: string };
        const theirUs = (performance.now() - t) * 1000;
        check(theirOut.a === "yes", "S9 finished with the answer on LangGraph's server", theirOut);
        if (i >= 20) peerHttp.push(theirUs);
      }
      const direct: number[] = [];
      for (let i = 0; i < n; i++) await pause(`s9-direct-${i}`);
      for (let i = 0; i < n; i++) {
        const t = performance.now();
        await question.resume("yes", { config: { configurable: { thread_id: `s9-direct-${i}` } } });
        direct.push((performance.now() - t) * 1000);
      }
      const p50 = median(http);
      const p95 = percentile(http, 95);
      const withinBudget = p50 <= BUDGET_US && p95 <= P95_US;
      const peerP50 = "server" in peer ? median(peerHttp) : BUDGET_US;
      return result({
        scenario: "S9",
        title: this.title,
        ours_us: p50,
        peer_us: peerP50,
        target: 1,
        peer: "server" in peer ? PEER_NAME : `the 10 ms budget (${peer.unavailable})`,
        met: withinBudget && p50 <= peerP50,
        extra: {
          p95_us: round(p95),
          ...("server" in peer ? { peer_p95_us: round(percentile(peerHttp, 95)) } : {}),
          in_process_resume_p50_us: round(median(direct)),
          calls: n,
        },
        checks: [
          {
            what: "p95 of the HTTP resume",
            value: round(p95),
            target: P95_US,
            met: p95 <= P95_US,
            detail: `${n} calls, p50 ${round(p50)} µs (budget ${BUDGET_US} µs)`,
          },
        ],
      });
    } finally {
      await server.close();
    }
  },
};
