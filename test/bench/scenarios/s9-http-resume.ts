/**
 * S9: the HTTP round trip of a review answer. A thread paused at a one-step graph's
 * `interrupt()` is resumed with `client.runs.wait(thread, "question", { command: { resume } })`
 * through the official SDK client; the call returns when the thread has finished. Timed
 * call by call: `ours_us` is the p50, p95 is a check; `peer_us` is the 10 ms budget (so the
 * ratio is the share used). The in-process `graph.resume` of the same thread is in `extra`,
 * to show what HTTP adds. LangGraph's own server (`@langchain/langgraph-api`) is not
 * installed, so no side-by-side row (see docs/server.md).
 */
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
    try {
      const n = quick ? 50 : 400;
      const pause = async (id: string) => {
        const r = await question.invoke(
          { q: "ok?" },
          { config: { configurable: { thread_id: id } } },
        );
        check(r.status === "interrupted", "S9 paused", r.status);
      };
      for (let i = 0; i < n + 20; i++) await pause(`s9-${i}`);
      const http: number[] = [];
      for (let i = 0; i < n + 20; i++) {
        const t = performance.now();
        const out = (await client.runs.wait(`s9-${i}`, "question", {
          command: { resume: "yes" },
        })) as { a?: string };
        const us = (performance.now() - t) * 1000;
        check(out.a === "yes", "S9 finished with the answer", out);
        if (i >= 20) http.push(us); // the first 20 warm up
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
      return result({
        scenario: "S9",
        title: this.title,
        ours_us: p50,
        peer_us: BUDGET_US,
        target: 1,
        peer: "the 10 ms budget (no LangGraph server installed)",
        met: p50 <= BUDGET_US && p95 <= P95_US,
        extra: { p95_us: round(p95), in_process_resume_p50_us: round(median(direct)), calls: n },
        checks: [
          {
            what: "p95 of the HTTP resume",
            value: round(p95),
            target: P95_US,
            met: p95 <= P95_US,
            detail: `${n} calls, p50 ${round(p50)} µs`,
          },
        ],
      });
    } finally {
      await server.close();
    }
  },
};
