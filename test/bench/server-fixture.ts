/**
 * The server the S9–S11 rows measure: `createServer` from the package (its build under
 * `npm run bench`), on a random local port, with a one-step question graph (an
 * `interrupt()`, answered by a resume) and a scripted agent that streams a reply, both on a
 * `MemoryCheckpointer`, so the rows measure HTTP, SSE and the run registry, not a database.
 */
import { Client } from "@langchain/langgraph-sdk";
import { END, Graph, interrupt, START } from "stateweaver";
import { createAgent } from "stateweaver/agent";
import { MemoryCheckpointer } from "stateweaver/checkpoint";
import { FakeChatModel } from "stateweaver/models";
import { createServer } from "stateweaver/server";

export const REPLY =
  "Checked the logs: the disk is 91% full, mostly old rotated logs under /var/log/app.";

export async function startBenchServer() {
  const question = new Graph<{ q?: string; a?: string }>({ name: "question" })
    .addNode("ask", (s) => ({ a: String(interrupt({ q: s.q })) }))
    .addEdge(START, "ask")
    .addEdge("ask", END)
    .compile();
  const chat = createAgent({
    name: "chat",
    model: new FakeChatModel({ responses: Array.from({ length: 100_000 }, () => REPLY) }),
  });
  const server = createServer({
    graphs: { question, chat },
    checkpointer: new MemoryCheckpointer(),
  });
  const { url } = await server.listen({ port: 0 });
  // No retries: a failure must show, not be hidden behind a retry's time.
  const client = new Client({
    apiUrl: url,
    callerOptions: { maxRetries: 0, maxConcurrency: 1000 },
  });
  return { server, url, client, question: server.context.hosted.get("question") };
}

export function percentile(xs: readonly number[], p: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}
