// threads.updateState without asNode, through the official SDK client on PGlite and
// PostgreSQL: written as the node that ran last (LangGraph's inference), and a 400 naming
// the nodes when two ran last together.
import { Client } from "@langchain/langgraph-sdk";
import { describe, expect, it } from "vitest";
import { END, Graph, START } from "../../src/index.js";
import { startServer } from "./fixtures/server.js";
import { serverStores } from "./fixtures/server-stores.js";

const append = (a: string[] = [], b: string | string[] = []) => [...a, ...[b].flat()];

/** `draft` then `check` (`line`), or both at once (`fan`). */
const twoSteps = (parallel: boolean) => {
  const g = new Graph({ name: parallel ? "fan" : "line" })
    .addReducer("log", append)
    .addNode("draft", () => ({ log: "draft" }))
    .addNode("check", () => ({ log: "check" }))
    .addEdge(START, "draft")
    .addEdge("check", END);
  if (parallel) g.addEdge(START, "check").addEdge("draft", END);
  else g.addEdge("draft", "check");
  return g.compile();
};

describe.each(serverStores)("threads.updateState without asNode (%s)", (_name, enabled, open) => {
  it.skipIf(!enabled)(
    "is written as the node that ran last, or refused with a 400 when two did together",
    async () => {
      const store = await open();
      const server = await startServer({
        graphs: { line: twoSteps(false), fan: twoSteps(true) },
        checkpointer: store.checkpointer,
        ...(store.queue && { queue: store.queue }),
      });
      try {
        const client = new Client<any>({ apiUrl: server.url });
        const line = await client.threads.create({ graphId: "line" });
        await client.runs.wait(line.thread_id, "line", { input: { log: [] } });
        const before = await client.threads.getState(line.thread_id);
        await client.threads.updateState(line.thread_id, { values: { log: "by hand" } });
        const after = await client.threads.getState(line.thread_id);
        expect(after.metadata).toMatchObject({
          source: "update",
          step: (before.metadata!.step as number) + 1,
          writes: { check: { log: "by hand" } },
        });
        expect(after.values).toEqual({ log: ["draft", "check", "by hand"] });

        const fan = await client.threads.create({ graphId: "fan" });
        await client.runs.wait(fan.thread_id, "fan", { input: { log: [] } });
        const kept = await client.threads.getState(fan.thread_id);
        await expect(
          client.threads.updateState(fan.thread_id, { values: { log: "which?" } }),
        ).rejects.toThrow(/400.*Ambiguous update: nodes "draft" and "check" ran last/s);
        expect((await client.threads.getState(fan.thread_id)).checkpoint).toEqual(kept.checkpoint);
      } finally {
        await server.stop();
        await store.dispose();
      }
    },
    60_000,
  );
});
