/**
 * A real stateweaver server for the browser tests: createServer on a PGlite data
 * directory, the review graphs, and the inbox built by build-inbox.ts, on a local port.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PGliteCheckpointer } from "stateweaver/checkpoint";
import { createServer } from "stateweaver/server";
import { E2E_INBOX } from "./build-inbox.js";
import { opsAgent, questionGraph } from "./fixtures/review-graphs.js";

export interface RunningInbox {
  url: string;
  port: number;
  dataDir: string;
  /** Stops the server and closes the data directory (the files stay). */
  stop(): Promise<void>;
}

export async function tempDataDir(): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), "sw-e2e-"));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

type ServerGraphs = Parameters<typeof createServer>[0]["graphs"];

/**
 * Starts a server on `dataDir`; `port` 0 picks a free one (pass the old one to restart).
 * `graphs` replaces the review graphs (ops, intake) for a test that needs others.
 */
export async function startInbox(
  dataDir: string,
  options: { port?: number; token?: string; graphs?: ServerGraphs } = {},
): Promise<RunningInbox> {
  const checkpointer = new PGliteCheckpointer(dataDir);
  const server = createServer({
    graphs: options.graphs ?? { ops: opsAgent(), intake: questionGraph() },
    checkpointer,
    inboxDir: E2E_INBOX,
    ...(options.token !== undefined && { token: options.token }),
  });
  const { url, port } = await server.listen({ port: options.port ?? 0, host: "127.0.0.1" });
  return {
    url,
    port,
    dataDir,
    async stop() {
      await server.close();
      await checkpointer.close();
    },
  };
}

/** A cookie jar of one: the CSRF cookie a state-changing request must echo in its header. */
async function csrf(url: string): Promise<{ cookie: string; token: string }> {
  const res = await fetch(`${url}/auth/csrf`);
  const setCookie = res.headers.getSetCookie().find((c) => c.startsWith("sw_csrf="));
  if (!setCookie) throw new Error(`GET /auth/csrf set no sw_csrf cookie (status ${res.status})`);
  const pair = setCookie.split(";")[0]!;
  return { cookie: pair, token: decodeURIComponent(pair.slice("sw_csrf=".length)) };
}

/** POST as a browser on loopback would: cookie plus the x-csrf-token header. */
export async function post(url: string, path: string, body: unknown): Promise<Response> {
  const { cookie, token } = await csrf(url);
  return fetch(`${url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", cookie, "x-csrf-token": token, origin: url },
    body: JSON.stringify(body),
  });
}

export interface Pending {
  threadId: string;
  interruptId: string;
  checkpointId: string;
  kind: string;
  summary: string;
  value: unknown;
}

/** Starts a thread through the inbox API and waits until it pauses. */
export async function startThread(url: string, graphId: string, input: unknown): Promise<Pending> {
  const res = await post(url, "/inbox/threads", { graphId, input });
  if (res.status >= 300) throw new Error(`POST /inbox/threads: ${res.status} ${await res.text()}`);
  const { threadId } = (await res.json()) as { threadId: string };
  return waitForPending(url, threadId);
}

/** Waits until the thread pauses (on another interrupt than `notInterruptId`, when given). */
export async function waitForPending(
  url: string,
  threadId: string,
  notInterruptId?: string,
): Promise<Pending> {
  for (let i = 0; i < 200; i++) {
    const res = await fetch(`${url}/inbox/threads/${encodeURIComponent(threadId)}`);
    if (res.ok) {
      const view = (await res.json()) as { pending: Pending[] };
      const first = view.pending[0];
      if (first && first.interruptId !== notInterruptId) return first;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`Thread ${threadId} did not pause within 10 s`);
}

export async function threadView(url: string, threadId: string): Promise<any> {
  const res = await fetch(`${url}/inbox/threads/${encodeURIComponent(threadId)}`);
  return res.json();
}
