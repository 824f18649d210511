/**
 * S11: 200 concurrent SSE clients. Each opens `client.runs.stream` on its own thread at
 * the same moment (values mode, a one-step graph that pauses at its `interrupt()`), and
 * reads to the end; all 200 must see the pause. `ours_us` is the wall time for all 200
 * divided by 200; `peer_us` the 10 ms budget per client (2 s for all). Then 200 clients
 * on `GET /inbox/events` wait for one change: how long until the last one hears it is
 * in `extra`.
 */
import { check, result, round, type Scenario } from "../scenario.js";
import { percentile, startBenchServer } from "../server-fixture.js";

const CLIENTS = 200;
const BUDGET_US = 10_000;

export const s11: Scenario = {
  id: "S11",
  title: "200 concurrent SSE clients (SDK runs.stream, one thread each)",
  async run() {
    const { server, url, client, question } = await startBenchServer();
    try {
      const one = async (i: number) => {
        const t = performance.now();
        let paused = false;
        for await (const part of client.runs.stream(`s11-${i}`, "question", {
          input: { q: `ticket ${i}` },
          streamMode: "values",
          ifNotExists: "create",
        })) {
          if (part.event === "values" && "__interrupt__" in (part.data as object)) paused = true;
        }
        check(paused, "S11 every client saw the pause", i);
        return (performance.now() - t) * 1000;
      };
      await Promise.all(Array.from({ length: 10 }, (_, i) => one(1000 + i))); // warm-up
      const t = performance.now();
      const each = await Promise.all(Array.from({ length: CLIENTS }, (_, i) => one(i)));
      const wall = (performance.now() - t) * 1000;

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
        peer_us: BUDGET_US,
        target: 1,
        peer: "the 10 ms per client budget (no LangGraph server installed)",
        extra: {
          wall_ms: round(wall / 1000),
          client_p95_ms: round(percentile(each, 95) / 1000),
          inbox_feed_last_of_200_ms: round(lastHeard / 1000),
        },
      });
    } finally {
      await server.close();
    }
  },
};
