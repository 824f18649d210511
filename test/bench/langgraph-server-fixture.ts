/**
 * LangGraph's own in-memory dev server (`@langchain/langgraph-api`, what `langgraphjs dev`
 * runs), started in this process beside ours so S9–S11 can put the same workloads through
 * the same SDK client to both. It loads `graphs/langgraph-server.ts` by path, keeps its
 * state in memory (flushed to a scratch folder), and runs background runs on 10 queue
 * workers, the CLI's default `--n-jobs-per-worker`.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@langchain/langgraph-sdk";

const graphs = fileURLToPath(new URL("./graphs/langgraph-server.ts", import.meta.url));

/** The package's version, printed beside the rows. */
export const LANGGRAPH_API_VERSION: string = (
  await import("@langchain/langgraph-api/package.json", { with: { type: "json" } })
).default.version;

export interface PeerServer {
  url: string;
  client: Client;
}

let started: Promise<PeerServer & { close(): Promise<void> }> | null = null;

/**
 * Start it once per bench process: its registry, checkpointer and queue are module-level
 * singletons, so a second `startServer` in the same process would share them anyway.
 */
export function startLangGraphServer(): Promise<PeerServer> {
  return start();
}

function start() {
  started ??= (async () => {
    // Its winston logger logs every request at "debug" unless told otherwise, and reads
    // LOG_LEVEL when its module loads.
    process.env.LOG_LEVEL ??= "error";
    const cwd = await mkdtemp(join(tmpdir(), "langgraph-api-"));
    const { startServer } = await import("@langchain/langgraph-api/server");
    const { host, cleanup } = await startServer({
      port: 0,
      nWorkers: 10,
      host: "127.0.0.1",
      cwd,
      graphs: { question: `${graphs}:question`, chat: `${graphs}:chat` },
    });
    const url = `http://${host}`;
    const client = new Client({
      apiUrl: url,
      callerOptions: { maxRetries: 0, maxConcurrency: 1000 },
    });
    return {
      url,
      client,
      async close() {
        await cleanup();
        await rm(cwd, { recursive: true, force: true });
      },
    };
  })();
  return started;
}

/** Stop it, if a scenario started it (run.ts calls this once all rows are done). */
export async function closeLangGraphServer(): Promise<void> {
  if (started) await (await started).close();
  started = null;
}

/** LangGraph's server, or why it could not start here (the rows then compare with budgets). */
export type Peer = { server: PeerServer } | { unavailable: string };

/** {@link startLangGraphServer}, with a failure turned into the reason the rows print. */
export async function langGraphPeer(): Promise<Peer> {
  try {
    return { server: await startLangGraphServer() };
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return {
      unavailable: `@langchain/langgraph-api ${LANGGRAPH_API_VERSION} did not start: ${why}`,
    };
  }
}

/** How the rows name LangGraph's server. */
export const PEER_NAME = `LangGraph's dev server (@langchain/langgraph-api ${LANGGRAPH_API_VERSION}, in memory, 10 workers)`;
